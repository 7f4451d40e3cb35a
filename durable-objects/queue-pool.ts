/**
 * QueuePool: one per region, the autoscaler of the region's purge queues. It
 * holds how many queues take new purges (writes and operator purges ask it,
 * through a per-isolate cache in src/bindings.ts) and, on an alarm every
 * `sampleIntervalMs`, asks each queue for its load, resizes the pool one
 * queue at a time to keep each inside the configured band, and samples the
 * region's tiers for the health charts. The alarm runs only while the region
 * has had purge traffic or viewers within `LIMITS.pool.idleAfterMs`, so an
 * idle archive stops waking it.
 */
import { topologyOf, type Region } from "../src/config/topology.ts";
import { LIMITS } from "../src/limits.ts";
import { PoolStore, type PoolOverview, type PoolSample, type TickOutcome } from "../src/purge/pool/pool-store.ts";
import { runTick } from "../src/purge/pool/tick.ts";
import { storeShell } from "./store-shell.ts";

export class QueuePool extends storeShell((storage) => new PoolStore(storage)) {
  #ticking: Promise<TickOutcome> | null = null;

  /** How many queues take new purges. Asking is purge traffic: it keeps the sampler running. */
  async activeSize(region: Region): Promise<number> {
    await this.#touch(region);
    return this.store.size(topologyOf(this.env).queuePool.min);
  }

  /** The pool as an operator sees it. Looking is a viewer: it keeps the sampler running. */
  async overview(region: Region): Promise<PoolOverview> {
    await this.#touch(region);
    const { min, max } = topologyOf(this.env).queuePool;
    return {
      region,
      size: this.store.size(min),
      min,
      max,
      queues: this.store.known(min),
      lastTick: this.store.lastTick(),
      decisions: this.store.decisions(LIMITS.pool.decisionsShown),
    };
  }

  /** Health samples since `since` (at most the retained hour). */
  async series(region: Region, since: number): Promise<PoolSample[]> {
    await this.#touch(region);
    return this.store.samples(since);
  }

  /** Samples and decides now; the alarm runs the same. Concurrent calls share one tick. */
  tick(region: Region): Promise<TickOutcome> {
    this.store.setRegion(region);
    this.#ticking ??= runTick(this.env, this.store, this.ctx.storage, region).finally(() => (this.#ticking = null));
    return this.#ticking;
  }

  override async alarm(): Promise<void> {
    const region = this.store.region();
    if (!region) return;
    try {
      await this.tick(region);
    } finally {
      if (Date.now() - this.store.activeAt() < LIMITS.pool.idleAfterMs)
        await this.ctx.storage.setAlarm(this.#nextSample());
    }
  }

  async #touch(region: Region): Promise<void> {
    this.store.setRegion(region);
    this.store.markActive(Date.now());
    if ((await this.ctx.storage.getAlarm()) === null) await this.ctx.storage.setAlarm(this.#nextSample());
  }

  /** On the next multiple of the interval, so every region samples at the same instants and the charts line up. */
  #nextSample(): number {
    const step = topologyOf(this.env).queuePool.sampleIntervalMs;
    return (Math.floor(Date.now() / step) + 1) * step;
  }
}
