/**
 * The purge bench's workload: a small catalogue of pages to warm into every
 * tier, the operator purge of each kind aimed at one of them, and the named
 * purge-scope tokens the purges are spread over so that none crosses the
 * product's per-token rate (`PURGE_RATE`, 60 a minute).
 *
 * @example
 * purgeBody("tags", "Purge_bench_003", new URL("http://127.0.0.1:8787"), 7); // { tags: ["page:Purge_bench_003"] }
 * benchTokens(3).map((t) => t.name); // ["bench-purge-01", "bench-purge-02", "bench-purge-03"]
 */
import { randomBytes } from "node:crypto";
import type { OperatorPurgeBody } from "../../../wire.ts";
import type { ApiToken } from "../../local/dev-token.ts";

/** The kinds of Cloudflare's purge API, in the order the bench runs them (everything last: it empties every tier). */
export const PURGE_KINDS = ["files", "tags", "prefixes", "hosts", "everything"] as const;
export type PurgeKind = (typeof PURGE_KINDS)[number];

/** Page key (URL segment) of the catalogue page `i`. */
export const benchPageKey = (i: number) => `Purge_bench_${String(i).padStart(3, "0")}`;

/** The paths warmed for a page, in every colo: its latest revision and its first one. */
export const warmPaths = (key: string, firstRevision: number) => [`/page/${key}`, `/page/${key}/${firstRevision}`];

/**
 * One operator purge of `kind` aimed at `key`: `files` names the page's two
 * warmed URLs, `tags` its `page:` tag, `prefixes` its `host/page/{key}`;
 * `hosts` and `everything` cover every page whatever `key` is.
 */
export function purgeBody(kind: PurgeKind, key: string, origin: URL, firstRevision: number): OperatorPurgeBody {
  switch (kind) {
    case "files":
      return { files: warmPaths(key, firstRevision).map((p) => `${origin.origin}${p}`) };
    case "tags":
      return { tags: [`page:${key}`] };
    case "prefixes":
      return { prefixes: [`${origin.host}/page/${key}`] };
    case "hosts":
      return { hosts: [origin.host] };
    case "everything":
      return { purge_everything: true };
  }
}

/** The purges one token may send in a Worker's lifetime: under PURGE_RATE's 60 a minute, whatever its window. */
export const PURGES_PER_TOKEN = 50;

/** `count` purge-scope tokens, `bench-purge-01`…, each with a random secret. */
export function benchTokens(count: number): ApiToken[] {
  return Array.from({ length: count }, (_, i) => ({
    name: `bench-purge-${String(i + 1).padStart(2, "0")}`,
    token: `pal_bench_${randomBytes(18).toString("base64url")}`,
    scopes: ["purge"],
  }));
}
