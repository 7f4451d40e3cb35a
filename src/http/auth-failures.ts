/**
 * Failed authentications, limited per client on every route that takes a
 * credential (bearer tokens on the API, the dashboard's login form): past
 * AUTH_FAILURE_RATE's allowance a client gets 429 before its credential is
 * even looked at, so guessing costs the guesser time, not the archive.
 *
 * Only failures count: an importer posting batches with a good token is
 * never slowed by this. The binding counts across isolates; once it says a
 * client is over, this isolate remembers that until the window ends (the
 * binding has no way to ask without counting). A client is its address,
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

/** The AUTH_FAILURE_RATE binding's period in wrangler.toml: a refused client may try again after it. */
export const AUTH_FAILURE_PERIOD_SECONDS = 60;

/** Clients this isolate knows to be over the limit, and until when (ms); oldest first. */
const blocked = new Map<string, number>();

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
  const groups = tail === undefined ? left : [...left, ...Array<string>(Math.max(0, 8 - left.length - right.length)).fill("0"), ...right];
  return groups
    .slice(0, 4)
    .map((g) => (/^[0-9a-f]{1,4}$/.test(g) ? g.replace(/^0+(?=.)/, "") : "x"))
    .join(":");
}

function tooMany(): ProblemError {
  return new ProblemError({
    status: 429,
    code: "auth_rate_limited",
    title: "Too Many Requests",
    detail: `Too many failed authentications from your address; try again in ${AUTH_FAILURE_PERIOD_SECONDS} seconds.`,
    extensions: { retryAfterSeconds: AUTH_FAILURE_PERIOD_SECONDS },
  });
}

/** Throws 429 if this client has failed too often lately. */
export function refuseIfBlocked(client: string, now = Date.now()): void {
  const until = blocked.get(client);
  if (until === undefined) return;
  if (until > now) throw tooMany();
  blocked.delete(client);
}

/** Counts a failed authentication; throws 429 once the client is over its allowance. */
export async function recordFailure(env: Env, client: string, now = Date.now()): Promise<void> {
  const { success } = await env.AUTH_FAILURE_RATE.limit({ key: `auth-failure:${client}` });
  if (success) return;
  blocked.delete(client);
  blocked.set(client, now + AUTH_FAILURE_PERIOD_SECONDS * 1000);
  // Bounded: a flood of addresses evicts the oldest, which the binding still counts.
  while (blocked.size > LIMITS.http.authFailureClientsRemembered) blocked.delete(blocked.keys().next().value!);
  throw tooMany();
}
