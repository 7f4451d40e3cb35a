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
 * The wiki's answer is untrusted: a body over `follow.maxAnswerBytes`
 * (counted as it streams in), a stalled connection
 * (`follow.requestTimeoutMs`), an answer that is not JSON, an API error or a
 * redirect to another origin all become an {@link ActionApiError} saying
 * which, after the retries a transient one deserves. Redirects are followed
 * only within the wiki's origin, `follow.maxRedirects` of them. An error
 * names the HTTP status and a fixed phrase, or the API's error code when it
 * is a plain identifier; it never quotes what the wiki sent, so a hostile
 * wiki cannot put its words in the follower's logs or on an operator's page.
 *
 * @example
 * const api = new ActionApi({ url: "https://wiki.example/w/api.php", userAgent: "…" });
 * const { query } = await api.get({ action: "query", meta: "siteinfo" });
 */
import { backoffMs, sleep } from "../lib/backoff.ts";
import { errorMessage } from "../lib/errors.ts";
import { LIMITS } from "../limits.ts";

export type ApiParams = Record<string, string | number | undefined>;

/** The API failed in a way the follower reports: a stable `code` and whether trying later may help. */
export class ActionApiError extends Error {
  override readonly name = "ActionApiError";
  constructor(
    readonly code: "http" | "not_json" | "too_big" | "timeout" | "network" | "api" | "redirect",
    message: string,
    readonly retryable: boolean,
    /** The MediaWiki error code of an `api` error (`nosuchrevid`, `maxlag`…), when it is a plain identifier. */
    readonly apiCode?: string,
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
  /** How requests are sent (default: the global fetch); tests in workerd pass a scripted wiki. */
  fetch?: (url: URL, init: RequestInit) => Promise<Response>;
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
      fetch: (input, init) => fetch(input, init),
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
          outcome.apiCode,
        );
      this.retries++;
      const told = retryAfterMs(outcome);
      await this.#opts.wait(told ?? FOLLOW.retryBaseMs / 2 + backoffMs(attempt - 1, FOLLOW.retryBaseMs, 60_000));
    }
  }

  async #once<T>(url: URL): Promise<{ body: T }> {
    const signal = AbortSignal.timeout(this.#opts.timeoutMs);
    const res = await this.#fetchSameOrigin(url, signal);
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
      body = JSON.parse(text) as typeof body;
    } catch {
      throw new ActionApiError("not_json", "the wiki's answer is not JSON", false);
    }
    if (body === null || typeof body !== "object" || Array.isArray(body))
      throw new ActionApiError("not_json", "the wiki's answer is not a JSON object", false);
    if (body.error) {
      // The code only, and only if it is an identifier: `info` is the wiki's prose, and a hostile wiki's anything.
      const raw = body.error.code;
      const code = typeof raw === "string" && API_CODE.test(raw) ? raw : undefined;
      const err = new ActionApiError(
        "api",
        `API error ${code ?? "(a code that is not an identifier)"}`,
        code === "maxlag",
        code,
      );
      throw code === "maxlag" ? withRetryAfter(err, retryAfter ?? "5") : err;
    }
    return { body: body as T };
  }

  /**
   * Sends the request with `redirect: "manual"` and follows a redirect only within the wiki's
   * origin (at most `follow.maxRedirects`): a wiki must not send its follower, with its
   * User-Agent, to another host, nor make it read a stranger's answer as the wiki's.
   */
  async #fetchSameOrigin(url: URL, signal: AbortSignal): Promise<Response> {
    const origin = new URL(this.url).origin;
    let target = url;
    for (let hops = 0; ; hops++) {
      let res: Response;
      try {
        res = await this.#opts.fetch(target, {
          headers: { "user-agent": this.#opts.userAgent, "api-user-agent": this.#opts.userAgent },
          redirect: "manual",
          signal,
        });
      } catch (err) {
        throw signal.aborted
          ? new ActionApiError("timeout", `no answer within ${this.#opts.timeoutMs} ms`, true)
          : new ActionApiError("network", `cannot reach the wiki: ${errorMessage(err)}`, true);
      }
      if (!REDIRECTS.has(res.status)) return res;
      await res.body?.cancel();
      const location = res.headers.get("location");
      const next = location !== null && URL.canParse(location, target.href) ? new URL(location, target) : null;
      if (!next)
        throw new ActionApiError("redirect", `the wiki answered HTTP ${res.status} with no usable Location`, false);
      if (next.origin !== origin)
        throw new ActionApiError(
          "redirect",
          `the wiki answered HTTP ${res.status}, a redirect to another origin (${shortOrigin(next)}); the follower reads only ${origin}`,
          false,
        );
      if (hops >= FOLLOW.maxRedirects)
        throw new ActionApiError(
          "redirect",
          `the wiki answered HTTP ${res.status} after ${hops} redirects, over follow.maxRedirects (${FOLLOW.maxRedirects})`,
          false,
        );
      target = next;
    }
  }
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** MediaWiki's error codes are identifiers (`nosuchrevid`, `readapidenied`, `internal_api_error_DBQueryError`). */
const API_CODE = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;

/** An origin as an error may name it: a hostile Location can carry a host name of any length. */
function shortOrigin(url: URL): string {
  const origin = url.origin === "null" ? `a ${url.protocol} URL` : url.origin;
  return origin.length <= 100 ? origin : `${origin.slice(0, 100)}…`;
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
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
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
      : new ActionApiError("network", `the answer broke off: ${errorMessage(err)}`, true);
  }
}
