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
 * @example
 * const purges = new RateLimiter({ binding: (env) => env.PURGE_RATE, periodSeconds: 60, refusal: (key, s) => new ProblemError({ status: 429, … }) });
 * await purges.charge(env, who.name); // throws the 429 once over
 */
import type { ProblemError } from "./problem.ts";

export interface RateLimiterOptions {
  /** The binding that counts. */
  binding: (env: Env) => RateLimit;
  /** The binding's `period` in wrangler.toml. */
  periodSeconds: number;
  /** Seconds until a refused key may try again: the whole period unless given (for example, to the end of the current window). */
  retryAfterSeconds?: (now: number) => number;
  /** The 429 a refused key gets. */
  refusal: (key: string, retryAfterSeconds: number) => ProblemError;
  /** Keep refused keys in this isolate until their period ends, at most this many. */
  remember?: number;
  /** Prefix of the binding's key, so two limiters may share one binding. */
  prefix?: string;
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
