/**
 * A polite, read-only client of a MediaWiki's Action API (`api.php`), for
 * the follower (src/follow/follower.ts). It runs wherever the follower does:
 * `palimpsest follow` in Node, and the deployment's Cron Trigger in a Worker,
 * so it needs nothing but `fetch`.
 *
 * Polite, as MediaWiki's API etiquette asks: every request names the
 * follower in its User-Agent with a way to reach its operator, sends
 * `maxlag` so a lagging wiki can turn it away, waits as long as a 429 or 503
 * (or a `maxlag` error) says in `Retry-After`, and never has more than the
 * caller's bound in flight (the follower keeps it, {@link LIMITS.follow}).
 *
 * The wiki's answer is untrusted: a body over `follow.maxAnswerBytes`, a
 * stalled connection (`follow.requestTimeoutMs`), an answer that is not JSON
 * or an API error all become an {@link ActionApiError} saying which, after
 * the retries a transient one deserves.
 *
 * @example
 * const api = new ActionApi({ url: "https://wiki.example/w/api.php", userAgent: "…" });
 * const { query } = await api.get({ action: "query", meta: "siteinfo" });
 */
import { backoffMs, sleep } from "../lib/backoff.ts";
import { LIMITS } from "../limits.ts";

export type ApiParams = Record<string, string | number | undefined>;

/** The API failed in a way the follower reports: a stable `code` and whether trying later may help. */
export class ActionApiError extends Error {
  override readonly name = "ActionApiError";
  constructor(
    readonly code: "http" | "not_json" | "too_big" | "timeout" | "network" | "api",
    message: string,
    readonly retryable: boolean,
  ) {
    super(message);
  }
}

export interface ActionApiOptions {
  /** The wiki's `api.php` URL. */
  url: string;
  /** Who is asking and how to reach them, e.g. `palimpsest-follower/0.1 (https://archive.example; ops@example)`. */
  userAgent: string;
  /** Default LIMITS.follow.maxAttempts. */
  maxAttempts?: number;
  /** Default LIMITS.follow.requestTimeoutMs. */
  timeoutMs?: number;
  /** For tests: how the client waits (default: real time). */
  wait?: (ms: number) => Promise<void>;
}

const FOLLOW = LIMITS.follow;

export class ActionApi {
  readonly url: string;
  /** Requests sent again (after a 429/503, maxlag, a timeout or a network error). */
  retries = 0;
  readonly #opts: Required<ActionApiOptions>;

  constructor(opts: ActionApiOptions) {
    const url = new URL(opts.url);
    if (url.protocol !== "http:" && url.protocol !== "https:")
      throw new ActionApiError("http", `the wiki's API URL must be http or https: ${opts.url}`, false);
    this.url = url.toString();
    this.#opts = {
      maxAttempts: FOLLOW.maxAttempts,
      timeoutMs: FOLLOW.requestTimeoutMs,
      wait: sleep,
      ...opts,
      url: this.url,
    };
  }

  /** One GET with `format=json&formatversion=2&maxlag=…`; the parsed answer, or an ActionApiError. */
  async get<T = Record<string, unknown>>(params: ApiParams): Promise<T> {
    const url = new URL(this.url);
    const all: ApiParams = { format: "json", formatversion: 2, maxlag: FOLLOW.maxlagSeconds, ...params };
    for (const [k, v] of Object.entries(all)) if (v !== undefined) url.searchParams.set(k, String(v));
    for (let attempt = 1; ; attempt++) {
      const outcome = await this.#once<T>(url).catch((err: unknown) => {
        if (err instanceof ActionApiError) return err;
        throw err;
      });
      if (!(outcome instanceof ActionApiError)) return outcome.body;
      if (!outcome.retryable || attempt >= this.#opts.maxAttempts)
        throw new ActionApiError(
          outcome.code,
          `${outcome.message} (${url.searchParams.get("action")} at ${this.url}, after ${attempt} attempt${attempt === 1 ? "" : "s"})`,
          outcome.retryable,
        );
      this.retries++;
      const told = retryAfterMs(outcome);
      await this.#opts.wait(told ?? FOLLOW.retryBaseMs / 2 + backoffMs(attempt - 1, FOLLOW.retryBaseMs, 60_000));
    }
  }

  async #once<T>(url: URL): Promise<{ body: T }> {
    let res: Response;
    const signal = AbortSignal.timeout(this.#opts.timeoutMs);
    try {
      res = await fetch(url, {
        headers: { "user-agent": this.#opts.userAgent, "api-user-agent": this.#opts.userAgent },
        signal,
      });
    } catch (err) {
      throw signal.aborted
        ? new ActionApiError("timeout", `no answer within ${this.#opts.timeoutMs} ms`, true)
        : new ActionApiError("network", `cannot reach the wiki: ${(err as Error).message}`, true);
    }
    const retryAfter = res.headers.get("retry-after");
    if (res.status === 429 || res.status === 503 || res.status >= 500) {
      await res.body?.cancel();
      throw withRetryAfter(new ActionApiError("http", `the wiki answered HTTP ${res.status}`, true), retryAfter);
    }
    if (!res.ok) {
      await res.body?.cancel();
      throw new ActionApiError("http", `the wiki answered HTTP ${res.status}`, false);
    }
    const text = await readBounded(res, FOLLOW.maxAnswerBytes, signal, this.#opts.timeoutMs);
    let body: { error?: { code?: string; info?: string } } & Record<string, unknown>;
    try {
      body = JSON.parse(text);
    } catch {
      throw new ActionApiError(
        "not_json",
        `the wiki's answer is not JSON: ${JSON.stringify(text.slice(0, 120))}`,
        false,
      );
    }
    if (body === null || typeof body !== "object" || Array.isArray(body))
      throw new ActionApiError("not_json", "the wiki's answer is not a JSON object", false);
    if (body.error) {
      const code = String(body.error.code ?? "unknown");
      const err = new ActionApiError("api", `API error ${code}: ${String(body.error.info ?? "")}`, code === "maxlag");
      throw code === "maxlag" ? withRetryAfter(err, retryAfter ?? "5") : err;
    }
    return { body: body as T };
  }
}

const RETRY_AFTER = new WeakMap<ActionApiError, number>();

function withRetryAfter(err: ActionApiError, header: string | null): ActionApiError {
  if (header === null) return err;
  const seconds = /^\d{1,6}$/.test(header.trim()) ? Number(header.trim()) : (Date.parse(header) - Date.now()) / 1000;
  if (Number.isFinite(seconds))
    RETRY_AFTER.set(err, Math.min(Math.max(0, seconds), FOLLOW.maxRetryAfterSeconds) * 1000);
  return err;
}

function retryAfterMs(err: ActionApiError): number | undefined {
  return RETRY_AFTER.get(err);
}

/** The body as text, refused past `maxBytes` (counted as it arrives), and within the request's deadline. */
async function readBounded(res: Response, maxBytes: number, signal: AbortSignal, timeoutMs: number): Promise<string> {
  const declared = Number(res.headers.get("content-length") ?? NaN);
  if (declared > maxBytes) {
    await res.body?.cancel();
    throw new ActionApiError(
      "too_big",
      `the wiki's answer is ${declared} bytes, over follow.maxAnswerBytes (${maxBytes})`,
      false,
    );
  }
  if (!res.body) return "";
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let text = "";
  let bytes = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return text + decoder.decode();
      bytes += value.byteLength;
      if (bytes > maxBytes) {
        await reader.cancel();
        throw new ActionApiError(
          "too_big",
          `the wiki's answer is over follow.maxAnswerBytes (${maxBytes} bytes)`,
          false,
        );
      }
      text += decoder.decode(value, { stream: true });
    }
  } catch (err) {
    if (err instanceof ActionApiError) throw err;
    throw signal.aborted
      ? new ActionApiError("timeout", `the answer stalled: not complete within ${timeoutMs} ms`, true)
      : new ActionApiError("network", `the answer broke off: ${(err as Error).message}`, true);
  }
}
