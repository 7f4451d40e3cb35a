/**
 * The one HTTP client for the archive: the write API, reads (through a
 * simulated colo if asked), page stats, purge status and tier counters.
 *
 * Retries are the caller's choice. The default suits `palimpsest import`:
 * network failures, 429 and 5xx are retried with jittered exponential
 * backoff. The benches count failures instead of hiding them, so they make
 * one attempt, or retry only what wrangler's dev proxy lost
 * ({@link retryLostByDevProxy}). Anything else comes back as-is, or as an
 * {@link ArchiveHttpError} where a body was expected.
 *
 * @example
 * const client = new ArchiveClient({ url: "http://localhost:8787", token });
 * await client.append("Vellum", revisions);
 * const read = await client.read("/page/Vellum", { colo: "SYD" }); // { status, headers, body, ms, ... }
 */
import type { HiddenFields, NewRevision } from "../../page/types.ts";
import { errorMessage } from "../../lib/errors.ts";
import { backoffMs, sleep } from "../../lib/backoff.ts";
import type {
  OperatorPurgeBody,
  PageDeletionBody,
  PageListBody,
  PageStatsBody,
  PurgeReceiptBody,
  PurgeStatusBody,
  SuppressionBody,
  TiersBody,
  WriteBody,
} from "../../wire.ts";

/** What the importer needs of the archive's LIMITS (`GET /api/limits`, src/wire.ts LimitsBody). */
export interface ArchiveLimits {
  /** `storage.maxRequestBytes`: the largest write body, in bytes, the archive accepts. */
  maxRequestBytes: number;
}

/** Decides, from an answer or a network error, whether another attempt may help. */
export type RetryPolicy = (outcome: Response | Error) => boolean | Promise<boolean>;

export interface ClientOptions {
  url: string;
  token: string;
  /** Attempts per request; 1 never retries. */
  attempts?: number;
  baseDelayMs?: number;
  retryable?: RetryPolicy;
}

export class ArchiveHttpError extends Error {
  constructor(
    readonly status: number,
    readonly problem: Record<string, unknown> | null,
    message: string,
  ) {
    super(message);
  }
}

export interface ReadResult {
  status: number;
  headers: Headers;
  body: Uint8Array;
  /** Wall-clock time (Date.now()) when the request was sent. */
  startedAt: number;
  /** Request sent to last body byte, in ms. */
  ms: number;
}

/** A value sent as JSON, or a function that streams JSON, called anew for each attempt. */
type RequestBody = { json: unknown } | { stream: () => ReadableStream<Uint8Array> };

/** The longest Retry-After a 429 is waited out for: the archive's rate limits count per minute. */
const MAX_RETRY_AFTER_SECONDS = 60;

const retryTransient: RetryPolicy = (o) => o instanceof Error || o.status === 429 || o.status >= 500;

/**
 * wrangler's dev proxy sometimes loses a POST on its way to the Worker under
 * load and answers 503 "Your worker restarted mid-request" (it retries GETs
 * itself, never POSTs). An append is idempotent by revision id, so retrying it
 * is safe; a retried write that had landed answers 200 with nothing created.
 */
export const retryLostByDevProxy: RetryPolicy = async (o) =>
  !(o instanceof Error) && o.status === 503 && (await o.clone().text()).startsWith("Your worker restarted mid-request");

const page = (key: string) => `/api/pages/${encodeURIComponent(key)}`;

/** For the write API's small JSON answers: coding them would cost the Worker more than it saves on the wire. */
const IDENTITY = { "accept-encoding": "identity" } as const;

export class ArchiveClient {
  readonly #opts: Required<ClientOptions>;
  /** Requests sent again after a retryable answer or error. */
  retries = 0;

  constructor(opts: ClientOptions) {
    this.#opts = {
      attempts: 6,
      baseDelayMs: 250,
      retryable: retryTransient,
      ...opts,
      url: opts.url.replace(/\/+$/, ""),
    };
  }

  get url(): string {
    return this.#opts.url;
  }

  async #send(
    method: string,
    path: string,
    body?: RequestBody,
    headers: Record<string, string> = {},
  ): Promise<Response> {
    return fetch(`${this.#opts.url}${path}`, {
      method,
      headers: {
        // No token (""): an anonymous client, as a public export is asked for.
        ...(this.#opts.token === "" ? {} : { authorization: `Bearer ${this.#opts.token}` }),
        ...(body === undefined ? {} : { "content-type": "application/json" }),
        ...headers,
      },
      ...(body && "stream" in body
        ? { body: body.stream(), duplex: "half" }
        : { body: body && JSON.stringify(body.json) }),
    });
  }

  async #request(
    method: string,
    path: string,
    body?: RequestBody,
    headers?: Record<string, string>,
  ): Promise<Response> {
    const { attempts, baseDelayMs, retryable } = this.#opts;
    for (let attempt = 1; ; attempt++) {
      const outcome = await this.#send(method, path, body, headers).catch((err: unknown) =>
        err instanceof Error ? err : new Error(String(err)),
      );
      if (attempt >= attempts || !(await retryable(outcome))) {
        if (outcome instanceof Error)
          throw new Error(
            `cannot reach the archive at ${this.#opts.url} after ${attempt} attempts: ${outcome.message}`,
            { cause: outcome.cause ?? outcome },
          );
        return outcome;
      }
      if (!(outcome instanceof Error)) await outcome.body?.cancel();
      this.retries++;
      // A 429 says when to come back (anonymous exports are limited per client a minute at a time): wait that long.
      const retryAfter =
        outcome instanceof Error || outcome.status !== 429 ? NaN : Number(outcome.headers.get("retry-after"));
      if (retryAfter > 0) {
        await sleep(Math.min(retryAfter, MAX_RETRY_AFTER_SECONDS) * 1000);
        continue;
      }
      // Half the step is a floor, so that the attempts span some seconds of an outage whatever the jitter draws.
      await sleep(
        (baseDelayMs * 2 ** (attempt - 1)) / 2 + backoffMs(attempt - 1, baseDelayMs, Number.POSITIVE_INFINITY),
      );
    }
  }

  async #json<T>(res: Response, what: string): Promise<T> {
    const text = await res.text();
    let parsed: unknown = null;
    try {
      parsed = JSON.parse(text);
    } catch {
      /* not JSON */
    }
    if (!res.ok) {
      const p = parsed as Record<string, unknown> | null;
      throw new ArchiveHttpError(
        res.status,
        p,
        `${what}: HTTP ${res.status} ${[p?.detail, p?.title].find((s) => typeof s === "string") ?? text.slice(0, 200)}`,
      );
    }
    return parsed as T;
  }

  /** The answer as JSON, or null when the archive answers one of `absent` (e.g. 404). */
  async #jsonOrNull<T>(res: Response, what: string, absent: readonly number[]): Promise<T | null> {
    if (!absent.includes(res.status)) return this.#json<T>(res, what);
    await res.body?.cancel();
    return null;
  }

  /**
   * The limits the archive advertises at `GET /api/limits`. An archive that does not (404: not this
   * archive, or a path in front of it that drops the route) is an error, never a guess.
   */
  async limits(): Promise<ArchiveLimits> {
    // Read as untrusted (src/wire.ts LimitsBody is what this archive sends): the URL may be something else.
    type Body = { limits?: { storage?: { maxRequestBytes?: unknown } } } | null;
    const res = await this.#request("GET", "/api/limits");
    if (res.status === 404) {
      await res.body?.cancel();
      throw new Error(
        `the archive at ${this.#opts.url} does not advertise its limits (GET /api/limits: 404): is this URL a Palimpsest archive?`,
      );
    }
    const maxRequestBytes = (await this.#json<Body>(res, "limits"))?.limits?.storage?.maxRequestBytes;
    if (typeof maxRequestBytes !== "number" || !Number.isSafeInteger(maxRequestBytes) || maxRequestBytes <= 0) {
      throw new Error(`the archive at ${this.#opts.url} answers GET /api/limits without a storage.maxRequestBytes`);
    }
    return { maxRequestBytes };
  }

  /**
   * Appends a batch: the revisions, or a function that streams their request
   * body, called anew for each attempt (see src/tools/import/request-body.ts).
   */
  async append(
    titleKey: string,
    batch: NewRevision[] | (() => ReadableStream<Uint8Array>),
    options: { colo?: string; wikiPageId?: number } = {},
  ): Promise<WriteBody> {
    const body = typeof batch === "function" ? { stream: batch } : { json: { revisions: batch } };
    const query = options.wikiPageId === undefined ? "" : `?page_id=${options.wikiPageId}`;
    const res = await this.#request("POST", `${page(titleKey)}/revisions${query}`, body, {
      ...IDENTITY,
      ...colo(options.colo),
    });
    return this.#json<WriteBody>(res, `page ${titleKey}`);
  }

  /**
   * The id of the latest revision the archive stores for the page, or null if it has none: asked of
   * the page's PageStore through the write API (a `write` token), not read through the tiers as the
   * public history is, so nothing is cached for a page about to be written. An archive whose stats do
   * not give it yet is asked the public way.
   */
  async storedLatestId(titleKey: string): Promise<number | null> {
    const res = await this.#request("GET", `${page(titleKey)}/stats`, undefined, IDENTITY);
    const stats = await this.#jsonOrNull<Partial<PageStatsBody>>(res, `stats of ${titleKey}`, [404]);
    if (stats === null) return null;
    const latest = stats.latestId;
    return latest === null || typeof latest === "number" ? latest : this.latestId(titleKey);
  }

  /** The page's latest revision id, or null if the archive has no such page. */
  async latestId(titleKey: string): Promise<number | null> {
    const res = await this.#request("GET", `/page/${encodeURIComponent(titleKey)}/history?limit=1`);
    const history = await this.#jsonOrNull<{ revisions: Array<{ id: number }> }>(
      res,
      `history of ${titleKey}`,
      [404, 410],
    );
    return history?.revisions[0]?.id ?? null;
  }

  /** Hides (or shows again) a revision's content; null if the archive has no such revision. */
  setSuppressed(titleKey: string, id: number, suppressed: boolean, reason: string): Promise<SuppressionBody | null> {
    return this.setHidden(titleKey, id, { content: suppressed }, reason);
  }

  /** Hides (or shows again) a revision's content, comment or contributor, saying why; null if the archive has no such revision. */
  async setHidden(titleKey: string, id: number, change: HiddenFields, reason: string): Promise<SuppressionBody | null> {
    const json = { suppressed: change.content, comment: change.comment, contributor: change.contributor, reason };
    const res = await this.#request("PUT", `${page(titleKey)}/revisions/${id}/suppression`, { json });
    return this.#jsonOrNull<SuppressionBody>(res, `suppression of ${titleKey} revision ${id}`, [404]);
  }

  /** Deletes a page as MediaWiki does (restorable), or restores it, saying why; null if the archive has no such page. */
  async setPageDeleted(titleKey: string, deleted: boolean, reason: string): Promise<PageDeletionBody | null> {
    const res = await this.#request("PUT", `${page(titleKey)}/deletion`, { json: { deleted, reason } });
    return this.#jsonOrNull<PageDeletionBody>(res, `deletion of ${titleKey}`, [404]);
  }

  /** One list of the archive's pages (`GET /api/pages`), in key order, after `after`. */
  async listPages(after: string, limit?: number): Promise<PageListBody> {
    const query = new URLSearchParams({ after, ...(limit ? { limit: String(limit) } : {}) });
    return this.#json(await this.#request("GET", `/api/pages?${query}`), "GET /api/pages");
  }

  /**
   * A page's export (`GET /page/{title}/export`, MediaWiki XML), as a response whose body the
   * caller streams; `offset` continues from an earlier answer's `Link: rel="next"`. A problem
   * answer is an {@link ArchiveHttpError}.
   */
  async exportPage(titleKey: string, offset?: string): Promise<Response> {
    const query = offset === undefined ? "" : `?${new URLSearchParams({ offset })}`;
    // gzip: the edge compresses the export as it streams; wrangler dev's br of a long stream was at times 50 times slower.
    const res = await this.#request("GET", `/page/${encodeURIComponent(titleKey)}/export${query}`, undefined, {
      "accept-encoding": "gzip",
    });
    if (!res.ok) await this.#json(res, `export of ${titleKey}`);
    return res;
  }

  async stats(titleKey: string): Promise<PageStatsBody> {
    return this.#json(
      await this.#request("GET", `${page(titleKey)}/stats`, undefined, IDENTITY),
      `stats of ${titleKey}`,
    );
  }

  /** A public read, timed from sending the request to having the whole body. */
  async read(path: string, options: { colo?: string; identity?: boolean } = {}): Promise<ReadResult> {
    const startedAt = Date.now();
    const t0 = performance.now();
    try {
      const headers = { ...colo(options.colo), ...(options.identity ? IDENTITY : {}) };
      const res = await this.#request("GET", path, undefined, headers);
      const body = new Uint8Array(await res.arrayBuffer());
      return { status: res.status, headers: res.headers, body, startedAt, ms: performance.now() - t0 };
    } catch (err) {
      const cause = (err as Error & { cause?: Error & { code?: string } }).cause;
      throw new Error(
        `GET ${this.#opts.url}${path}: ${errorMessage(err)}${cause ? ` (${cause.code ?? cause.name}: ${cause.message})` : ""}`,
      );
    }
  }

  /** An operator's purge (`POST /api/purges`, purge scope), received at `colo` if given. */
  async purge(body: OperatorPurgeBody, options: { colo?: string } = {}): Promise<PurgeReceiptBody> {
    return this.#json(await this.#request("POST", "/api/purges", { json: body }, colo(options.colo)), "purge");
  }

  /** A purge's acknowledgement by every tier, or null if the archive does not know it; `waitSeconds` lets the archive hold the answer until it completes. */
  async purgeStatus(id: string, options: { waitSeconds?: number } = {}): Promise<PurgeStatusBody | null> {
    const wait = options.waitSeconds ? `?wait=${options.waitSeconds}` : "";
    const res = await this.#request("GET", `/api/purges/${encodeURIComponent(id)}${wait}`);
    return this.#jsonOrNull(res, `purge ${id}`, res.ok ? [] : [res.status]);
  }

  /** Development only: cuts a TierCache off (`{unavailable: true}`) or restores it (`{}`); see workers/routes/admin/dev-fault-routes.ts. */
  async setTierFaults(tier: string, faults: { unavailable?: boolean; delayMs?: number }): Promise<void> {
    await this.#json(
      await this.#request("PUT", `/api/dev/faults/tiers/${encodeURIComponent(tier)}`, { json: faults }),
      `faults of ${tier}`,
    );
  }

  async tierStats(): Promise<TiersBody> {
    return this.#json(await this.#request("GET", "/api/tiers"), "GET /api/tiers");
  }
}

/** The dev-only header that picks the colo a request arrives at. */
function colo(name: string | undefined): Record<string, string> {
  return name === undefined ? {} : { "x-palimpsest-colo": name };
}
