/**
 * A region's QueuePool storage: the pool's size, when it was last in use,
 * every resize the autoscaler decided, and an hour of health samples.
 *
 *   state      name → JSON value: `region`, `size` (queues taking new purges),
 *              `known` (queues sampled: the active ones and any still
 *              draining), `lastChangeAt`, `activeAt`, `lastTick`
 *   decisions  one row per resize: at, region, from, to, reason, loads (JSON)
 *   samples    one row per tick: pool size, the region's queue depth and
 *              events/s, its tiers' counters, and each tier's purge lag
 *              behind this region's queues
 */
import type { Region } from "../../config/topology.ts";
import { LIMITS } from "../../limits.ts";
import { migrate, type Migration } from "../../storage/migrations.ts";
import type { Decision, QueueSample } from "./decide.ts";

/** Numbered (src/storage/migrations.ts): the first is the whole schema; a change appends the next. */
const MIGRATIONS: readonly Migration[] = [
  `
CREATE TABLE state (name TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE decisions (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  at INTEGER NOT NULL,
  region TEXT NOT NULL,
  from_size INTEGER NOT NULL,
  to_size INTEGER NOT NULL,
  reason TEXT NOT NULL,
  loads TEXT NOT NULL
);
CREATE TABLE samples (
  at INTEGER PRIMARY KEY,
  pool_size INTEGER NOT NULL,
  depth INTEGER NOT NULL,
  events_per_second REAL NOT NULL,
  tiers TEXT NOT NULL,
  lags TEXT NOT NULL
);
`,
];

export interface PoolDecision {
  at: number;
  region: string;
  from: number;
  to: number;
  reason: string;
  loads: QueueSample[];
}

/** What one tick saw: the outcome of the decision, whether or not it resized. */
export interface TickOutcome extends Decision {
  at: number;
  region: Region;
  loads: QueueSample[];
}

/** One tier's counters at a sample (cumulative, as TierCache `stats()` reports them). */
export interface TierCounters {
  tier: string;
  level: string;
  region: string;
  counters: Record<string, number>;
}

export interface PoolSample {
  at: number;
  poolSize: number;
  /** Events held by the region's queues (active and draining) that not every tier has acknowledged. */
  depth: number;
  eventsPerSecond: number;
  /** The tiers this region's pool samples: its regional tiers, and the upper tier in the upper region. */
  tiers: TierCounters[];
  /** Tier name → how far its pointer trails the head of the furthest-ahead queue of this region. */
  lags: Record<string, number>;
}

/** The pool as an operator sees it (QueuePool `overview`). */
export interface PoolOverview {
  region: Region;
  size: number;
  min: number;
  max: number;
  /** Queues sampled: the active ones and any above them still delivering what they hold. */
  queues: number;
  lastTick: TickOutcome | null;
  /** Recent resizes, newest first. */
  decisions: PoolDecision[];
}

interface SampleRow {
  at: number;
  pool_size: number;
  depth: number;
  events_per_second: number;
  tiers: string;
  lags: string;
  [key: string]: SqlStorageValue;
}

export class PoolStore {
  private readonly sql: SqlStorage;

  constructor(storage: DurableObjectStorage) {
    this.sql = storage.sql;
    migrate(storage, MIGRATIONS);
  }

  #get<T>(name: string): T | undefined {
    const row = this.sql.exec<{ value: string }>("SELECT value FROM state WHERE name = ?", name).toArray()[0];
    return row ? (JSON.parse(row.value) as T) : undefined;
  }

  #set(name: string, value: unknown): void {
    this.sql.exec("INSERT OR REPLACE INTO state (name, value) VALUES (?, ?)", name, JSON.stringify(value));
  }

  region(): Region | undefined {
    return this.#get<Region>("region");
  }

  setRegion(region: Region): void {
    if (this.region() !== region) this.#set("region", region);
  }

  /** Queues taking new purges; `min` until the autoscaler first resizes. */
  size(min: number): number {
    return this.#get<number>("size") ?? min;
  }

  /** Queues worth sampling: the active ones, and those above them still draining. */
  known(min: number): number {
    return Math.max(this.size(min), this.#get<number>("known") ?? 0);
  }

  setKnown(known: number): void {
    this.#set("known", known);
  }

  lastChangeAt(): number | null {
    return this.#get<number>("lastChangeAt") ?? null;
  }

  activeAt(): number {
    return this.#get<number>("activeAt") ?? 0;
  }

  markActive(now: number): void {
    this.#set("activeAt", now);
  }

  lastTick(): TickOutcome | null {
    return this.#get<TickOutcome>("lastTick") ?? null;
  }

  /** Records a tick; a resize changes the size and is kept as a decision, in one transaction. */
  record(outcome: TickOutcome, storage: DurableObjectStorage): void {
    storage.transactionSync(() => {
      this.#set("lastTick", outcome);
      if (outcome.to === outcome.from) return;
      this.#set("size", outcome.to);
      this.#set("lastChangeAt", outcome.at);
      this.sql.exec(
        "INSERT INTO decisions (at, region, from_size, to_size, reason, loads) VALUES (?, ?, ?, ?, ?, ?)",
        outcome.at,
        outcome.region,
        outcome.from,
        outcome.to,
        outcome.reason,
        JSON.stringify(outcome.loads),
      );
      this.sql.exec("DELETE FROM decisions WHERE id <= (SELECT max(id) FROM decisions) - ?", LIMITS.pool.decisionsKept);
    });
  }

  decisions(limit: number): PoolDecision[] {
    return this.sql
      .exec<{ at: number; region: string; from_size: number; to_size: number; reason: string; loads: string }>(
        "SELECT * FROM decisions ORDER BY id DESC LIMIT ?",
        limit,
      )
      .toArray()
      .map((r) => ({
        at: r.at,
        region: r.region,
        from: r.from_size,
        to: r.to_size,
        reason: r.reason,
        loads: JSON.parse(r.loads) as QueueSample[],
      }));
  }

  addSample(s: PoolSample): void {
    this.sql.exec(
      "INSERT OR REPLACE INTO samples (at, pool_size, depth, events_per_second, tiers, lags) VALUES (?, ?, ?, ?, ?, ?)",
      s.at,
      s.poolSize,
      s.depth,
      s.eventsPerSecond,
      JSON.stringify(s.tiers),
      JSON.stringify(s.lags),
    );
    this.sql.exec("DELETE FROM samples WHERE at < ?", s.at - LIMITS.pool.seriesRetentionMs);
  }

  samples(since: number): PoolSample[] {
    return this.sql
      .exec<SampleRow>("SELECT * FROM samples WHERE at >= ? ORDER BY at", since)
      .toArray()
      .map((r) => ({
        at: r.at,
        poolSize: r.pool_size,
        depth: r.depth,
        eventsPerSecond: r.events_per_second,
        tiers: JSON.parse(r.tiers) as TierCounters[],
        lags: JSON.parse(r.lags) as Record<string, number>,
      }));
  }
}
