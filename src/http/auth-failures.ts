/**
 * Failed authentications, limited per client on every route that takes a
 * credential (bearer tokens on the API, the dashboard's login form): past
 * AUTH_FAILURE_RATE's allowance a client gets 429 before its credential is
 * even looked at, so guessing costs the guesser time, not the archive.
 *
 * Only failures count: an importer posting batches with a good token is
 * never slowed by this. The counting is the one rate limiter's
 * (src/http/rate-limit.ts), which remembers a client it found over the
 * limit until the period ends. A client is its address,
 * `CF-Connecting-IP`, which Cloudflare sets and clients cannot; an IPv6
 * client is its /64, since one host holds a whole /64. Without the header
 * (plain `wrangler dev`, where nothing sets it) every client shares one key.
 *
 * @example
 * await refuseIfBlocked(env, clientOf(c.req.raw));       // 429 if over
 * if (!check.ok) await recordFailure(env, clientOf(c.req.raw));
 */
import { LIMITS } from "../limits.ts";
import { ProblemError } from "./problem.ts";
import { RateLimiter } from "./rate-limit.ts";

/** The AUTH_FAILURE_RATE binding's period in wrangler.toml: a refused client may try again after it. */
export const AUTH_FAILURE_PERIOD_SECONDS = 60;

const failures = new RateLimiter({
  binding: (env) => env.AUTH_FAILURE_RATE,
  prefix: "auth-failure:",
  periodSeconds: AUTH_FAILURE_PERIOD_SECONDS,
  remember: LIMITS.http.authFailureClientsRemembered,
  refusal: (_client, retryAfterSeconds) =>
    new ProblemError({
      status: 429,
      code: "auth_rate_limited",
      title: "Too Many Requests",
      detail: `Too many failed authentications from your address; try again in ${retryAfterSeconds} seconds.`,
      extensions: { retryAfterSeconds },
    }),
});

/** The client's rate-limit key: its IPv4 address, or its IPv6 /64. */
export function clientOf(request: Request): string {
  const ip = (request.headers.get("cf-connecting-ip") ?? "").trim().toLowerCase();
  if (!ip) return "no-address";
  return ip.includes(":") ? `${ipv6Prefix64(ip)}::/64` : ip;
}

/** The first four groups of an IPv6 address, expanded (`2001:db8::1` → `2001:db8:0:0`). */
export function ipv6Prefix64(ip: string): string {
  const bare = ip.replace(/^\[|\]$/g, "").split("%")[0]!;
  const [head = "", tail] = bare.split("::", 2) as [string, string | undefined];
  const left = head ? head.split(":") : [];
  const right = tail ? tail.split(":") : [];
  const groups =
    tail === undefined
      ? left
      : [...left, ...Array<string>(Math.max(0, 8 - left.length - right.length)).fill("0"), ...right];
  return groups
    .slice(0, 4)
    .map((g) => (/^[0-9a-f]{1,4}$/.test(g) ? g.replace(/^0+(?=.)/, "") : "x"))
    .join(":");
}

/** Throws 429 if this client has failed too often lately. */
export function refuseIfBlocked(client: string, now = Date.now()): void {
  failures.refuseIfBlocked(client, now);
}

/** Counts a failed authentication; throws 429 once the client is over its allowance. */
export async function recordFailure(env: Env, client: string, now = Date.now()): Promise<void> {
  await failures.charge(env, client, now);
}
