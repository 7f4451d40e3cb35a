/**
 * The production lower tier's purge: every data centre's Cache API is out of
 * any Worker's reach but its own, so purges go to Cloudflare's purge API
 * (`POST /zones/{zone}/purge_cache`), by Cache-Tag and by URL, and its success
 * counts as the lower tier's acknowledgement. Chosen over Workers' own cache
 * (`ctx.cache.purge`) because the lower tier is the Cache API, which zone
 * purges reach and `ctx.cache.purge` does not (docs/architecture.md says why).
 */
import type { Settings } from "../config/settings.ts";
import { isRevisionKey, revisionKey, variantsTag } from "../tiers/cache-key.ts";
import { LowerTier } from "../tiers/lower-tier.ts";
import { mutableTag, pageTag } from "../origin/tags.ts";
import type { PurgeEvent } from "./events.ts";

/** Tags or URLs per purge request, the API's smallest per-plan allowance. */
const PER_REQUEST = 30;
const API = "https://api.cloudflare.com/client/v4";

export class ZonePurgeNotConfigured extends Error {
  override readonly name = "ZonePurgeNotConfigured";
  constructor() {
    super(
      "lower-tier purge is not configured: set CF_ZONE_ID and PUBLIC_ORIGIN in wrangler.toml and the CF_PURGE_TOKEN secret",
    );
  }
}

/**
 * The purge API bodies that carry these events to every data centre. Lower
 * tier entries all live under `<origin>/__tier`, so "everything" is that
 * prefix, never the whole zone. The API has no soft purge: a soft purge is
 * sent as a hard one, which only costs refetches.
 */
export function zonePurgeBodies(
  events: ReadonlyArray<Pick<PurgeEvent, "page" | "scope">>,
  origin: string,
): Array<Record<string, unknown>> {
  const under = `${new URL(origin).host}${LowerTier.urlOf("", "")}`;
  const tags = new Set<string>();
  const files = new Set<string>();
  const prefixes = new Set<string>();
  for (const { page, scope } of events) {
    switch (scope.kind) {
      case "everything":
      case "hosts":
        return [{ prefixes: [under] }];
      case "keys":
        for (const key of scope.keys) {
          files.add(LowerTier.urlOf(origin, key));
          // A revision's dcb variants live under URLs with a query no URL purge names: they carry its tag.
          if (isRevisionKey(key)) tags.add(variantsTag(key));
        }
        break;
      case "tags":
        for (const tag of scope.tags) tags.add(tag);
        break;
      case "prefixes":
        for (const prefix of scope.prefixes) prefixes.add(`${under}${prefix}`);
        break;
      case "mutable":
        tags.add(mutableTag(page!));
        break;
      case "revisions":
        tags.add(mutableTag(page!));
        for (const id of scope.revisions) {
          files.add(LowerTier.urlOf(origin, revisionKey(page!, id).key));
          tags.add(variantsTag(revisionKey(page!, id).key));
        }
        break;
      case "page":
        tags.add(pageTag(page!));
        break;
    }
  }
  const chunks = <T>(items: T[]) =>
    Array.from({ length: Math.ceil(items.length / PER_REQUEST) }, (_, i) =>
      items.slice(i * PER_REQUEST, (i + 1) * PER_REQUEST),
    );
  return [
    ...chunks([...tags]).map((t) => ({ tags: t })),
    ...chunks([...files]).map((f) => ({ files: f })),
    ...chunks([...prefixes]).map((p) => ({ prefixes: p })),
  ];
}

/** Sends the events' purges; throws (so the queue retries) unless every request succeeded. */
export async function zonePurge(
  settings: Settings,
  events: ReadonlyArray<Pick<PurgeEvent, "page" | "scope">>,
  fetcher: typeof fetch = fetch,
): Promise<void> {
  if (!settings.zonePurge || !settings.publicOrigin) throw new ZonePurgeNotConfigured();
  const { zoneId, token } = settings.zonePurge;
  for (const body of zonePurgeBodies(events, settings.publicOrigin)) {
    const res = await fetcher(`${API}/zones/${zoneId}/purge_cache`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    const answer = (await res.json().catch(() => null)) as {
      success?: boolean;
      errors?: Array<{ message?: string }>;
    } | null;
    if (!res.ok || answer?.success !== true) {
      throw new Error(
        `Cloudflare purge API answered ${res.status}: ${answer?.errors?.map((e) => e.message).join("; ") || "no success"}`,
      );
    }
  }
}
