/**
 * An operator's purge, in the design's order: (1) the caller is already
 * authenticated and in scope; (2) the body is validated, with an error per
 * item; (3) what this archive never caches is dropped, and the answer says
 * which and why; then the purge is charged to the caller's rate, so a
 * refused request costs none of it; (4) the receiving colo's
 * lower tier applies it at once; (5) canonical cache keys are computed once
 * and travel in the event; (6) it is appended to a PurgeQueue of the
 * receiving region's pool; (7) the caller gets the purge id.
 *
 * The body has the shape of Cloudflare's purge API, so existing scripts
 * work: `files` (URLs, or `{url, headers}`), `tags`, `prefixes` (host/path),
 * `hosts`, or `purge_everything`, one kind per request, plus `soft`. An
 * operator's purge writes nothing to any PageStore.
 */
import { z } from "zod";
import { errorMessage } from "../lib/errors.ts";
import { purgeQueueOf } from "../bindings.ts";
import { settingsOf } from "../config/settings.ts";
import type { Principal } from "../http/tokens.ts";
import { ProblemError } from "../http/problem.ts";
import { RateLimiter } from "../http/rate-limit.ts";
import { LIMITS } from "../limits.ts";
import type { Colo } from "../config/colo.ts";
import { LowerTier } from "../tiers/lower-tier.ts";
import { applyToLower } from "./apply.ts";
import { recordAudit } from "./audit.ts";
import { hostOf, keyOfUrl, keyPrefixOf, ServedHosts, type Resolved } from "./canonical.ts";
import type { OperatorKind, PurgeRequest, SelectorScope } from "./events.ts";
import { activePurgeQueue } from "./pool/active.ts";
import { cacheTag } from "./tag-syntax.ts";

export interface PurgeReceipt {
  id: string;
  kind: OperatorKind;
  soft: boolean;
  /** The items that will be purged, as sent. */
  accepted: string[];
  dropped: Array<{ item: string; reason: string }>;
  /** Distinct cache keys, tags, prefixes or hosts the purge names. */
  keys: number;
}

export interface ItemError {
  index: number;
  item: string;
  reason: string;
}

const fileItem = z.union([
  z.string(),
  z.strictObject({ url: z.string(), headers: z.record(z.string(), z.string()).optional() }),
]);

const bodySchema = z.strictObject({
  files: z.array(fileItem).optional(),
  tags: z.array(z.string()).optional(),
  prefixes: z.array(z.string()).optional(),
  hosts: z.array(z.string()).optional(),
  purge_everything: z.literal(true).optional(),
  soft: z.boolean().optional(),
});

const KINDS = {
  files: "files",
  tags: "tags",
  prefixes: "prefixes",
  hosts: "hosts",
  purge_everything: "everything",
} as const satisfies Record<string, OperatorKind>;

const bad = (code: string, detail: string, extensions?: Record<string, unknown>) =>
  new ProblemError({ status: 400, code, title: "Bad Request", detail, ...(extensions ? { extensions } : {}) });

/** The kind and items of a body, or a problem naming what is wrong with its shape. */
function shapeOf(body: unknown): { kind: OperatorKind; items: unknown[]; soft: boolean } {
  const parsed = bodySchema.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    if (issue.code === "unrecognized_keys") {
      throw bad(
        "unknown_key",
        `unknown key ${issue.keys.map((k) => JSON.stringify(k)).join(", ")}; a purge has one of files, tags, prefixes, hosts, purge_everything, and optionally soft`,
        { keys: issue.keys },
      );
    }
    throw bad("invalid_purge", `${issue.path.join(".") || "the body"}: ${issue.message}`, {
      field: issue.path.join("."),
    });
  }
  const { soft = false, ...rest } = parsed.data;
  const kinds = (Object.keys(rest) as Array<keyof typeof KINDS>).filter((k) => rest[k] !== undefined);
  if (kinds.length === 0)
    throw bad("no_purge_kind", "name what to purge: files, tags, prefixes, hosts or purge_everything");
  if (kinds.length > 1)
    throw bad("mixed_purge_kinds", `one kind per purge, as Cloudflare's API: got ${kinds.join(" and ")}`, { kinds });
  const key = kinds[0]!;
  const items = key === "purge_everything" ? [] : (rest[key] as unknown[]);
  const max = key === "files" ? LIMITS.purge.maxFiles : LIMITS.purge.maxSelectors;
  if (items.length > max) {
    throw new ProblemError({
      status: 413,
      code: "too_many_items",
      detail: `${items.length} ${key} in one purge; send at most ${max} per request`,
      limit: key === "files" ? "purge.maxFiles" : "purge.maxSelectors",
    });
  }
  if (key !== "purge_everything" && items.length === 0) throw bad("no_items", `${key} is empty`);
  return { kind: KINDS[key], items, soft };
}

/** Resolves every item; refusals fail the whole purge, drops only leave that item out. */
function resolve(
  kind: OperatorKind,
  items: unknown[],
  served: ServedHosts,
): { scope: SelectorScope | { kind: "everything" }; accepted: string[]; dropped: PurgeReceipt["dropped"] } {
  if (kind === "everything") return { scope: { kind: "everything" }, accepted: [], dropped: [] };
  const errors: ItemError[] = [];
  const accepted: string[] = [];
  const dropped: PurgeReceipt["dropped"] = [];
  const values = new Set<string>();
  items.forEach((raw, index) => {
    const item = typeof raw === "string" ? raw : (raw as { url: string }).url;
    let result: Resolved<string>;
    if (kind === "files") result = keyOfUrl(item, served);
    else if (kind === "prefixes") result = keyPrefixOf(item, served);
    else if (kind === "hosts") result = hostOf(item, served);
    else {
      const tag = cacheTag.safeParse(item);
      result = tag.success ? { ok: true, value: tag.data } : { ok: false, refused: tag.error.issues[0]!.message };
    }
    if (result.ok) {
      values.add(result.value);
      accepted.push(item);
    } else if ("dropped" in result) dropped.push({ item, reason: result.dropped });
    else errors.push({ index, item: item.slice(0, 200), reason: result.refused });
  });
  if (errors.length > 0) {
    const notServed = errors.every((e) => e.reason.includes("is not served"));
    throw new ProblemError({
      status: notServed ? 422 : 400,
      code: notServed ? "not_served" : "invalid_items",
      title: notServed ? "Unprocessable Content" : "Bad Request",
      detail: `Nothing was purged: ${errors.length} of ${items.length} ${kind} refused.`,
      extensions: { errors },
    });
  }
  if (accepted.length === 0) {
    throw new ProblemError({
      status: 422,
      code: "nothing_to_purge",
      detail: "Nothing was purged: every item names something this archive never caches.",
      extensions: { dropped },
    });
  }
  const list = [...values];
  const scope: SelectorScope =
    kind === "files"
      ? { kind: "keys", keys: list }
      : kind === "tags"
        ? { kind: "tags", tags: list }
        : kind === "prefixes"
          ? { kind: "prefixes", prefixes: list }
          : { kind: "hosts", hosts: list };
  return { scope, accepted, dropped };
}

/** Per token, over the PURGE_RATE binding's window (src/http/rate-limit.ts); the answer says when to come back. */
const purgeRate = new RateLimiter({
  binding: (env) => env.PURGE_RATE,
  periodSeconds: 60,
  retryAfterSeconds: (now) => Math.max(1, 60 - (Math.floor(now / 1000) % 60)),
  refusal: (name, retryAfterSeconds) =>
    new ProblemError({
      status: 429,
      code: "rate_limited",
      detail: `${name} has sent more purges than its rate allows (docs/api.md, "Purging (operators)"); try again in ${retryAfterSeconds} s`,
      extensions: { retryAfterSeconds },
    }),
});

/**
 * Ingests one purge; `requestUrl` is the URL the purge request came to,
 * whose host counts as served (as does PUBLIC_ORIGIN's). Only a purge that
 * will be applied counts against the caller's rate: a refused one (400,
 * 413, 422) is answered first, so a typo never locks an operator out, and
 * checking one costs no more than the body limit lets it.
 */
export async function ingestPurge(
  env: Env,
  at: Colo,
  who: Principal,
  body: unknown,
  requestUrl?: string,
): Promise<PurgeReceipt> {
  const { kind, items, soft } = shapeOf(body);
  const publicOrigin = settingsOf(env).publicOrigin;
  const served = new ServedHosts(
    requestUrl ? new URL(requestUrl).host : null,
    publicOrigin ? new URL(publicOrigin).host : null,
  );
  const { scope, accepted, dropped } = resolve(kind, items, served);
  await purgeRate.charge(env, who.name);
  const mark = { at: Date.now(), soft };
  const request: PurgeRequest = {
    page: null,
    scope,
    version: 0,
    region: at.region,
    mark,
    operator: { by: who.name, kind },
  };
  await applyToLower(await LowerTier.open(env, at.colo), request);
  const queue = await activePurgeQueue(env, at.region);
  const { id } = await purgeQueueOf(env, queue).enqueue(request, queue);
  const keys = scope.kind === "everything" ? 1 : selectorCount(scope);
  await recordAudit(env, {
    id,
    by: who.name,
    kind,
    soft,
    items: kind === "everything" ? ["everything"] : accepted,
    keys,
    dropped: dropped.length,
    createdAt: mark.at,
  }).catch((err) => console.error("purge audit record failed", id, errorMessage(err)));
  return { id, kind, soft, accepted, dropped, keys };
}

function selectorCount(scope: SelectorScope): number {
  return scope.kind === "keys"
    ? scope.keys.length
    : scope.kind === "tags"
      ? scope.tags.length
      : scope.kind === "prefixes"
        ? scope.prefixes.length
        : scope.hosts.length;
}
