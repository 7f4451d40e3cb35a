/**
 * The tiers bench's view of the archive over HTTP: reads through a simulated
 * colo (the dev-only `x-palimpsest-colo` header), writes, and purge status.
 * Nothing here retries: the bench counts what fails instead of hiding it.
 *
 * @example
 * const api = new TiersApi(worker.url, worker.token);
 * const read = await api.read("/page/Foo", "SYD"); // { status: 200, tier: "origin", revisionId: 2, ms: 41.3, ... }
 */

export interface ReadResult {
  status: number;
  /** `x-palimpsest-tier`: lower | regional | upper | origin. */
  tier: string | null;
  /** `x-revision-id`, or null when absent. */
  revisionId: number | null;
  /** Wall-clock time (Date.now()) when the request was sent. */
  startedAt: number;
  /** Request sent to last body byte, in ms. */
  ms: number;
}

export interface WriteResult {
  status: number;
  purges: string[];
  ms: number;
  detail?: string;
}

export interface PurgeTierStatus {
  tier: string;
  region: string;
  level: string;
  acknowledged: boolean;
  ackedAt: number | null;
}

export interface PurgeStatusBody {
  id: string;
  event: { createdAt: number; seq: number; queue: string } | null;
  tiers: PurgeTierStatus[];
  acknowledged: boolean;
}

export interface TiersStatsBody {
  tiers: Array<{ tier: string; level: string; region: string; counters: Record<string, number>; applied: Record<string, { seq: number; at: number }> }>;
  lower: { isolateCounters: Record<string, number> };
}

export class TiersApi {
  constructor(
    readonly url: string,
    private readonly token: string,
  ) {}

  async read(path: string, colo: string): Promise<ReadResult> {
    const startedAt = Date.now();
    const t0 = performance.now();
    const res = await fetch(`${this.url}${path}`, { headers: { "x-palimpsest-colo": colo } });
    await res.arrayBuffer();
    const ms = performance.now() - t0;
    const rev = res.headers.get("x-revision-id");
    return { status: res.status, tier: res.headers.get("x-palimpsest-tier"), revisionId: rev === null ? null : Number(rev), startedAt, ms };
  }

  async append(page: string, revisions: unknown[], colo: string): Promise<WriteResult> {
    const t0 = performance.now();
    const res = await fetch(`${this.url}/api/pages/${encodeURIComponent(page)}/revisions`, {
      method: "POST",
      headers: { authorization: `Bearer ${this.token}`, "content-type": "application/json", "x-palimpsest-colo": colo },
      body: JSON.stringify({ revisions }),
    });
    const text = await res.text();
    const ms = performance.now() - t0;
    let body: { purges?: string[]; detail?: string; title?: string } = {};
    try {
      body = JSON.parse(text) as typeof body;
    } catch {
      /* not JSON */
    }
    return { status: res.status, purges: body.purges ?? [], ms, detail: res.ok ? undefined : (body.detail ?? body.title ?? text.slice(0, 200)) };
  }

  async purgeStatus(id: string): Promise<PurgeStatusBody | null> {
    const res = await fetch(`${this.url}/api/purges/${encodeURIComponent(id)}`, { headers: { authorization: `Bearer ${this.token}` } });
    if (!res.ok) {
      await res.arrayBuffer();
      return null;
    }
    return (await res.json()) as PurgeStatusBody;
  }

  async tierStats(): Promise<TiersStatsBody> {
    const res = await fetch(`${this.url}/api/tiers`, { headers: { authorization: `Bearer ${this.token}` } });
    if (!res.ok) throw new Error(`GET /api/tiers: HTTP ${res.status} ${(await res.text()).slice(0, 200)}`);
    return (await res.json()) as TiersStatsBody;
  }
}

/** Runs `job` over `items` with at most `limit` in flight. */
export async function pool<T>(items: readonly T[], limit: number, job: (item: T, index: number) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      await job(items[i]!, i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

/** A counting semaphore. */
export class Semaphore {
  #free: number;
  readonly #waiting: Array<() => void> = [];

  constructor(slots: number) {
    this.#free = slots;
  }

  async with<T>(fn: () => Promise<T>): Promise<T> {
    if (this.#free > 0) this.#free--;
    else await new Promise<void>((resolve) => this.#waiting.push(resolve));
    try {
      return await fn();
    } finally {
      const next = this.#waiting.shift();
      if (next) next();
      else this.#free++;
    }
  }
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
