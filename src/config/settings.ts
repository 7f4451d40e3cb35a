/**
 * Operator settings from wrangler.toml's `[vars]` (strings or numbers, as
 * wrangler passes them), checked once per isolate. Limits are not settings:
 * they live in `src/limits.ts`. A bad value fails loudly with the var's name.
 *
 *   ORPHAN_GRACE_SECONDS   how long an unreferenced blob is kept before it is
 *                          collected (default 600); it must outlast any commit
 *                          still in flight, so do not go below a few seconds
 *   ENVIRONMENT            "production" (default) or "development", which
 *                          trusts the x-palimpsest-colo simulation header
 *   CF_ZONE_ID             the zone whose cache the lower tier lives in; with
 *                          the CF_PURGE_TOKEN secret, lets purges reach every
 *                          data centre through Cloudflare's purge API
 *   PUBLIC_ORIGIN          the archive's public origin (https://host), the
 *                          host lower-tier cache entries are stored under
 *   PAGE_STORE_SHARDS      how many PageStore shards hold the pages (default
 *                          16): set once, before the first write, and never
 *                          changed (a shard refuses to answer under another
 *                          count); docs/architecture.md says how to size it
 *
 * @example
 * settingsOf(env).orphanGraceMs // 600000
 */
import { z } from "zod";

const seconds = z.coerce
  .number()
  .int()
  .min(1)
  .max(30 * 86_400);

const schema = z.object({
  ORPHAN_GRACE_SECONDS: seconds.default(600),
  ENVIRONMENT: z.enum(["production", "development"]).default("production"),
  CF_ZONE_ID: z
    .string()
    .regex(/^[0-9a-f]{32}$/, "must be a 32-digit hex zone id")
    .optional(),
  CF_PURGE_TOKEN: z.string().min(1).optional(),
  PUBLIC_ORIGIN: z.url({ protocol: /^https?$/ }).optional(),
  PAGE_STORE_SHARDS: z.coerce.number().int().min(1).max(1_000_000).default(16),
});

export interface Settings {
  orphanGraceMs: number;
  development: boolean;
  zonePurge: { zoneId: string; token: string } | null;
  publicOrigin: string | null;
  /** How many PageStore shards hold the pages (src/bindings.ts shardOf). */
  pageStoreShards: number;
}

const cache = new WeakMap<object, Settings>();

export function settingsOf(env: Env): Settings {
  const hit = cache.get(env);
  if (hit) return hit;
  const raw = env as unknown as Record<string, unknown>;
  const parsed = schema.safeParse({
    ORPHAN_GRACE_SECONDS: raw.ORPHAN_GRACE_SECONDS === "" ? undefined : raw.ORPHAN_GRACE_SECONDS,
    ENVIRONMENT: raw.ENVIRONMENT || undefined,
    CF_ZONE_ID: raw.CF_ZONE_ID || undefined,
    CF_PURGE_TOKEN: raw.CF_PURGE_TOKEN || undefined,
    PUBLIC_ORIGIN: raw.PUBLIC_ORIGIN || undefined,
    PAGE_STORE_SHARDS: raw.PAGE_STORE_SHARDS === "" ? undefined : raw.PAGE_STORE_SHARDS,
  });
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new Error(`[vars] ${issue.path.join(".")} in wrangler.toml is invalid: ${issue.message}`);
  }
  const v = parsed.data;
  const settings: Settings = {
    orphanGraceMs: v.ORPHAN_GRACE_SECONDS * 1000,
    development: v.ENVIRONMENT === "development",
    zonePurge: v.CF_ZONE_ID && v.CF_PURGE_TOKEN ? { zoneId: v.CF_ZONE_ID, token: v.CF_PURGE_TOKEN } : null,
    publicOrigin: v.PUBLIC_ORIGIN ? new URL(v.PUBLIC_ORIGIN).origin : null,
    pageStoreShards: v.PAGE_STORE_SHARDS,
  };
  cache.set(env, settings);
  return settings;
}
