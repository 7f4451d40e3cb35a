/**
 * A purge's status as the dashboard shows it: one row per tier with the
 * words and times it displays. The server renders these rows into the
 * page and sends the same rows as JSON to the live script, which only
 * copies text, so the page reads the same with or without JavaScript.
 */
import type { PurgeState, PurgeView } from "../purge/status.ts";
import { formatDuration, formatTime } from "../ui/format.ts";

export interface TierRow {
  tier: string;
  level: string;
  region: string;
  acknowledged: boolean;
  /** "acknowledged" or "pending". */
  state: string;
  /** How long after the purge was logged this tier acknowledged it, as shown. */
  after: string;
  lastError: string;
}

export interface PurgeDisplay {
  id: string;
  state: PurgeState;
  /** What was purged, in words. */
  what: string;
  by: string;
  createdAt: number | null;
  created: string;
  acknowledged: number;
  total: number;
  /** "12 of 67 tiers acknowledged". */
  progress: string;
  /** Time from logging to the last tier's acknowledgement, once complete. */
  took: string | null;
  rows: TierRow[];
}

function describe(event: PurgeView["event"]): { what: string; by: string } {
  if (!event) return { what: "(no longer in the retained log)", by: "" };
  const scope = event.scope;
  const by = event.operator?.by ?? (event.page ? "a write to the page" : "");
  const soft = event.mark?.soft ? "soft " : "";
  const page = event.page ? ` of ${event.page}` : "";
  const list = (items: string[]) =>
    items.length <= 5 ? items.join(", ") : `${items.slice(0, 5).join(", ")} and ${items.length - 5} more`;
  switch (scope.kind) {
    case "keys":
      return {
        what: `${soft}purge of ${scope.keys.length} URL${scope.keys.length === 1 ? "" : "s"}: ${list(scope.keys)}`,
        by,
      };
    case "tags":
      return { what: `${soft}purge of tags ${list(scope.tags)}`, by };
    case "prefixes":
      return { what: `${soft}purge of prefixes ${list(scope.prefixes)}`, by };
    case "hosts":
      return { what: `${soft}purge of hosts ${list(scope.hosts)}`, by };
    case "everything":
      return { what: `${soft}purge of everything`, by };
    case "mutable":
      return { what: `a write${page}: its latest revision and history`, by };
    case "revisions":
      return { what: `a suppression${page}: revision ${scope.revisions.join(", ")}`, by };
    case "page":
      return { what: `a deletion${page}: every revision`, by };
  }
}

export function purgeDisplay(view: PurgeView): PurgeDisplay {
  const createdAt = view.event?.createdAt ?? null;
  const rows = view.tiers.map((t) => ({
    tier: t.tier,
    level: t.level,
    region: t.region,
    acknowledged: t.acknowledged,
    state: t.acknowledged ? "acknowledged" : "pending",
    after:
      t.acknowledged && t.ackedAt !== null && createdAt !== null
        ? formatDuration(Math.max(0, t.ackedAt - createdAt))
        : "",
    lastError: t.lastError ?? "",
  }));
  const acknowledged = rows.filter((r) => r.acknowledged).length;
  const lastAck = Math.max(...view.tiers.map((t) => t.ackedAt ?? 0));
  const complete = view.state === "complete";
  return {
    id: view.id,
    state: view.state,
    ...describe(view.event),
    createdAt,
    created: createdAt === null ? "" : formatTime(createdAt),
    acknowledged,
    total: rows.length,
    progress: `${acknowledged} of ${rows.length} tiers acknowledged`,
    took: complete && createdAt !== null && lastAck > 0 ? formatDuration(Math.max(0, lastAck - createdAt)) : null,
    rows,
  };
}
