/**
 * The one rate limiter: a Workers rate-limit binding (`[[ratelimits]]` in
 * wrangler.toml) asked per key, and past its allowance a 429 problem that
 * says when to come back (Retry-After). Failed authentications
 * (src/http/auth-failures.ts) and operators' purges (src/purge/ingest.ts)
 * both count through it; each names its own binding, key and refusal.
 *
 * The binding counts across isolates, but cannot be asked without counting:
 * a limiter that `remembers` keeps the keys it found over the limit in this
 * isolate until the period ends (oldest evicted past that many), so
 * `refuseIfBlocked` can answer before the key is even looked at.
 *
 * Every limiter that counts per client keys it by `clientOf`, the one
 * client-key function: the address `CF-Connecting-IP` names (Cloudflare sets
 * it; clients cannot), an IPv6 client by its /64 (one host holds a whole
 * /64), an IPv4-mapped IPv6 address (`::ffff:192.0.2.1`, `::ffff:c000:201`)
 * by the IPv4 address it maps, as the same client asking over IPv4 is.
 * Without the header (plain `wrangler dev`, where nothing sets it) every
 * client shares one key.
 *
 * @example
 * const purges = new RateLimiter({
 *   binding: (env) => env.PURGE_RATE,
 *   periodSeconds: 60,
 *   refusal: (key, s) => new ProblemError({ status: 429, … }),
 * });
 * await purges.charge(env, who.name); // throws the 429 once over
 */
import type { ProblemError } from "./problem.ts";

export interface RateLimiterOptions {
  /** The binding that counts. */
  binding: (env: Env) => RateLimit;
  /** The binding's `period` in wrangler.toml. */
  periodSeconds: number;
  /**
   * Seconds until a refused key may try again: the whole period unless given (for example, to the end of the current
   * window).
   */
  retryAfterSeconds?: (now: number) => number;
  /** The 429 a refused key gets. */
  refusal: (key: string, retryAfterSeconds: number) => ProblemError;
  /** Keep refused keys in this isolate until their period ends, at most this many. */
  remember?: number;
  /** Prefix of the binding's key, so two limiters may share one binding. */
  prefix?: string;
}

/** A request's client, as every per-client limit keys it: its IPv4 address (mapped or not), or its IPv6 /64. */
export function clientOf(request: Request): string {
  const ip = (request.headers.get("cf-connecting-ip") ?? "").trim().toLowerCase();
  if (!ip) return "no-address";
  if (!ip.includes(":")) return ip;
  const groups = ipv6Groups(ip);
  return mappedIpv4(groups) ?? `${groups.slice(0, 4).join(":")}::/64`;
}

/**
 * An IPv6 address's groups, `::` expanded, leading zeros dropped, a dotted IPv4
 * tail (`::ffff:192.0.2.1`) as its two groups; a group that is not hex is `x`.
 */
function ipv6Groups(ip: string): string[] {
  let bare = ip.replace(/^\[|\]$/g, "").split("%")[0]!;
  const dotted = /^(.*:)(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(bare);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(2).map(Number) as [number, number, number, number];
    if ([a, b, c, d].every((n) => n <= 255))
      bare = `${dotted[1]}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = "", tail] = bare.split("::", 2) as [string, string | undefined];
  const left = head ? head.split(":") : [];
  const right = tail ? tail.split(":") : [];
  const groups =
    tail === undefined
      ? left
      : [...left, ...Array<string>(Math.max(0, 8 - left.length - right.length)).fill("0"), ...right];
  return groups.map((g) => (/^[0-9a-f]{1,4}$/.test(g) ? g.replace(/^0+(?=.)/, "") : "x"));
}

/** The IPv4 address an IPv4-mapped IPv6 address (`::ffff:0:0/96`, RFC 4291 §2.5.5.2) stands for, or null. */
function mappedIpv4(groups: readonly string[]): string | null {
  if (groups.length !== 8 || groups.slice(0, 5).some((g) => g !== "0") || groups[5] !== "ffff") return null;
  const [high, low] = [parseInt(groups[6]!, 16), parseInt(groups[7]!, 16)];
  if (Number.isNaN(high) || Number.isNaN(low)) return null;
  return [high >> 8, high & 255, low >> 8, low & 255].join(".");
}

export class RateLimiter {
  /** Keys this isolate knows to be over the limit, and until when (ms); oldest first. */
  readonly #blocked = new Map<string, number>();

  constructor(private readonly options: RateLimiterOptions) {}

  #refuse(key: string, now: number): ProblemError {
    const { retryAfterSeconds, periodSeconds } = this.options;
    return this.options.refusal(key, retryAfterSeconds ? retryAfterSeconds(now) : periodSeconds);
  }

  /** Throws the 429 if this isolate already knows the key is over the limit; counts nothing. */
  refuseIfBlocked(key: string, now = Date.now()): void {
    const until = this.#blocked.get(key);
    if (until === undefined) return;
    if (until > now) throw this.#refuse(key, now);
    this.#blocked.delete(key);
  }

  /** Counts one for the key; throws the 429 once it is over its allowance. */
  async charge(env: Env, key: string, now = Date.now()): Promise<void> {
    const { success } = await this.options.binding(env).limit({ key: `${this.options.prefix ?? ""}${key}` });
    if (success) return;
    const { remember } = this.options;
    if (remember) {
      this.#blocked.delete(key);
      this.#blocked.set(key, now + this.options.periodSeconds * 1000);
      // Bounded: a flood of keys evicts the oldest, which the binding still counts.
      while (this.#blocked.size > remember) this.#blocked.delete(this.#blocked.keys().next().value!);
    }
    throw this.#refuse(key, now);
  }
}
