/**
 * HTTP client for the archive's write API, with the retry policy the import
 * needs: network failures, 429 and 5xx are retried with jittered exponential
 * backoff; anything else is the caller's problem and comes back as-is.
 */
import type { NewRevision } from "../page/types.ts";

export interface ClientOptions {
  url: string;
  token: string;
  attempts?: number;
  baseDelayMs?: number;
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

/** What the importer needs of the archive's LIMITS table. */
export interface ArchiveLimits {
  /** `storage.maxRequestBytes`: the largest write body, in bytes, the archive accepts. */
  maxRequestBytes: number;
}

/** A value sent as JSON, or a function that streams JSON, called anew for each attempt. */
type RequestBody = { json: unknown } | { stream: () => ReadableStream<Uint8Array> };

const retryable = (status: number) => status === 429 || status >= 500;

export class ArchiveClient {
  readonly #opts: Required<ClientOptions>;

  constructor(opts: ClientOptions) {
    this.#opts = { attempts: 6, baseDelayMs: 250, ...opts, url: opts.url.replace(/\/+$/, "") };
  }

  async #request(method: string, path: string, body?: RequestBody): Promise<Response> {
    const { attempts, baseDelayMs } = this.#opts;
    const json = body && "json" in body ? JSON.stringify(body.json) : undefined;
    let lastError: unknown;
    for (let attempt = 1; attempt <= attempts; attempt++) {
      try {
        const res = await fetch(`${this.#opts.url}${path}`, {
          method,
          headers: { authorization: `Bearer ${this.#opts.token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
          ...(body && "stream" in body ? { body: body.stream(), duplex: "half" } : { body: json }),
        });
        if (!retryable(res.status) || attempt === attempts) return res;
        lastError = new Error(`HTTP ${res.status}`);
        await res.body?.cancel();
      } catch (err) {
        lastError = err;
        if (attempt === attempts) break;
      }
      const delay = baseDelayMs * 2 ** (attempt - 1);
      await new Promise((r) => setTimeout(r, delay / 2 + Math.random() * delay));
    }
    throw new Error(`cannot reach the archive at ${this.#opts.url} after ${attempts} attempts: ${(lastError as Error)?.message ?? lastError}`);
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
      throw new ArchiveHttpError(res.status, p, `${what}: HTTP ${res.status} ${p?.detail ?? p?.title ?? text.slice(0, 200)}`);
    }
    return parsed as T;
  }

  /**
   * The limits the archive advertises at `GET /api/limits` (its LIMITS table),
   * or null if it is older than that route and answers 404.
   */
  async limits(): Promise<ArchiveLimits | null> {
    const res = await this.#request("GET", "/api/limits");
    if (res.status === 404) {
      await res.body?.cancel();
      return null;
    }
    const body = await this.#json<{ limits?: { storage?: { maxRequestBytes?: unknown } } } | null>(res, "limits");
    const maxRequestBytes = body?.limits?.storage?.maxRequestBytes;
    if (typeof maxRequestBytes !== "number" || !Number.isSafeInteger(maxRequestBytes) || maxRequestBytes <= 0) {
      throw new Error(`the archive at ${this.#opts.url} answers GET /api/limits without a storage.maxRequestBytes`);
    }
    return { maxRequestBytes };
  }

  /**
   * Appends a batch: the revisions, or a function that streams their request
   * body, called anew for each attempt (see src/import/request-body.ts).
   */
  async append(titleKey: string, batch: NewRevision[] | (() => ReadableStream<Uint8Array>)): Promise<{ created: number[]; existing: number[]; latestId: number | null }> {
    const res = await this.#request("POST", `/api/pages/${encodeURIComponent(titleKey)}/revisions`, typeof batch === "function" ? { stream: batch } : { json: { revisions: batch } });
    return this.#json(res, `page ${titleKey}`);
  }

  /** The page's latest revision id, or null if the archive has no such page. */
  async latestId(titleKey: string): Promise<number | null> {
    const res = await this.#request("GET", `/page/${encodeURIComponent(titleKey)}/history?limit=1`);
    if (res.status === 404 || res.status === 410) {
      await res.body?.cancel();
      return null;
    }
    const page = await this.#json<{ revisions: Array<{ id: number }> }>(res, `history of ${titleKey}`);
    return page.revisions[0]?.id ?? null;
  }

  async stats(titleKey: string): Promise<{ blobBytes: number; metadataBytes: number; revisions: number; rawBytes: number }> {
    return this.#json(await this.#request("GET", `/api/pages/${encodeURIComponent(titleKey)}/stats`), `stats of ${titleKey}`);
  }
}
