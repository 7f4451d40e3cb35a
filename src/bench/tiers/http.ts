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
  /** 201 when the revisions are stored now (or were by an attempt whose answer the dev proxy lost). */
  status: number;
  purges: string[];
  /** The write landed on an attempt whose answer was lost, so its purge id is unknown. */
  untracked: boolean;
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
  queues: Array<{ region: string; queue: string; lastSeq: number; depth: number; lagging: number }>;
  lower: { isolateCounters: Record<string, number> };
}

/** What wrangler's dev proxy answers when it could not hand a POST to the Worker. */
const PROXY_LOST_REQUEST = "Your worker restarted mid-request";

export class TiersApi {
  /** POSTs retried because the dev proxy lost them. */
  proxyRetries = 0;

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

  /**
   * Appends revisions. wrangler's dev proxy sometimes loses a POST on its way
   * to the Worker under load and answers 503 "Your worker restarted
   * mid-request" (it retries GETs itself, never POSTs); those are retried
   * here, counted in `proxyRetries`. An append is idempotent by revision id,
   * so a retry of a write that did land answers 200 with the revision in
   * `existing` and no purge id: `untracked` says so (its purge is still
   * audited, through the queues' and tiers' sequence numbers).
   */
  async append(page: string, revisions: unknown[], colo: string): Promise<WriteResult> {
    const t0 = performance.now();
    for (let attempt = 0; ; attempt++) {
      const res = await fetch(`${this.url}/api/pages/${encodeURIComponent(page)}/revisions`, {
        method: "POST",
        headers: { authorization: `Bearer ${this.token}`, "content-type": "application/json", "x-palimpsest-colo": colo },
        body: JSON.stringify({ revisions }),
      });
      const text = await res.text();
      if (res.status === 503 && text.startsWith(PROXY_LOST_REQUEST) && attempt < 3) {
        this.proxyRetries++;
        await sleep(20 + Math.random() * 80);
        continue;
      }
      let body: { purges?: string[]; created?: number[]; existing?: number[]; detail?: string; title?: string } = {};
      try {
        body = JSON.parse(text) as typeof body;
      } catch {
        /* not JSON */
      }
      const landedBefore = attempt > 0 && res.status === 200 && (body.created?.length ?? 0) === 0 && (body.existing?.length ?? 0) === revisions.length;
      return {
        status: landedBefore ? 201 : res.status,
        purges: body.purges ?? [],
        untracked: landedBefore,
        ms: performance.now() - t0,
        detail: res.ok ? undefined : (body.detail ?? body.title ?? text.slice(0, 200)),
      };
    }
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
