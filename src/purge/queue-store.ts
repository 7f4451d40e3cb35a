/**
 * A PurgeQueue's storage (the Durable Object is a shell over this and
 * src/purge/queue-delivery.ts): the log of purges with their sequence
 * numbers, one pointer per target tier (the last sequence it acknowledged),
 * and the queue's own name. Reads of a queue never used create nothing.
 *
 *   log       seq (AUTOINCREMENT), event (JSON PurgeEvent), created_at, completed_at
 *             (when every target had acknowledged it; null before); the last
 *             `LIMITS.purge.retainedEvents` are kept
 *   pointers  target (name), tier (JSON PurgeTarget), acked, acked_at, attempts, next_at
 *             (retry time), last_error, sent (highest sequence handed to a Fanout)
 *   meta      name → value: `self` (JSON QueueSelf)
 *
 * @example
 * const store = new QueueStore(ctx.storage);
 * const event = store.enqueue(request, { name: "weur-q0", region: "weur" }, purgeTargets(env), Date.now());
 * store.status(event.seq); // each target's acknowledgement
 */
import { purgeIdOf, type QueueSelf } from "../bindings.ts";
import { errorMessage } from "../lib/errors.ts";
import type { Region } from "../config/topology.ts";
import { LIMITS } from "../limits.ts";
import { backoffMs } from "../lib/backoff.ts";
import { LazySqlStore, type Migration } from "../storage/migrations.ts";
import type { PurgeEvent, PurgeRequest } from "./events.ts";
import { batchStart, type FanoutBatch, type PurgeBatch } from "./plan.ts";
import { targetName, type PurgeTarget } from "./targets.ts";

/** Numbered (src/storage/migrations.ts): the first is the whole schema; a change appends the next. */
const MIGRATIONS: readonly Migration[] = [
  `CREATE TABLE log (
     seq INTEGER PRIMARY KEY AUTOINCREMENT,
     event TEXT NOT NULL,
     created_at INTEGER NOT NULL,
     completed_at INTEGER
   );
   CREATE TABLE pointers (
     target TEXT PRIMARY KEY,
     tier TEXT NOT NULL,
     acked INTEGER NOT NULL,
     acked_at INTEGER,
     attempts INTEGER NOT NULL DEFAULT 0,
     next_at INTEGER NOT NULL DEFAULT 0,
     -- Why the pointer's delivery last failed.
     last_error TEXT,
     -- Pipelined fanout delivery: the highest sequence handed on.
     sent INTEGER NOT NULL DEFAULT 0
   );
   CREATE TABLE meta (name TEXT PRIMARY KEY, value TEXT NOT NULL);`,
];

export interface PurgeStatus {
  id: string;
  event: PurgeEvent | null;
  createdAt: number | null;
  /** When the last tier acknowledged it; null while any is pending. */
  completedAt: number | null;
  tiers: Array<{
    tier: string;
    region: string;
    level: string;
    acknowledged: boolean;
    ackedAt: number | null;
    lastError: string | null;
  }>;
  acknowledged: boolean;
}

/** A queue's load report: what its region's autoscaler and the operator views read. */
export interface QueueLoad {
  queue: string;
  lastSeq: number;
  oldestRetained: number;
  /** Events not yet acknowledged by every target (the furthest-behind pointer's lag). */
  depth: number;
  /** The same count, by the name the autoscaler's band uses. */
  backlog: number;
  lagging: number;
  /** Events logged per second over the last `windowMs` (from the log's created_at). */
  eventsPerSecond: number;
  windowMs: number;
  /** Created → acknowledged by every target, over events completed within the window; null if none did. */
  latencyMs: { p50: number; max: number; events: number } | null;
  /** How long the oldest event not yet acknowledged by every target has waited; null if none waits. */
  oldestPendingMs: number | null;
  pointers: Array<{ tier: string; acked: number; lag: number; ackedAt: number | null }>;
}

export interface PointerRow {
  target: string;
  tier: string;
  acked: number;
  acked_at: number | null;
  attempts: number;
  next_at: number;
  last_error: string | null;
  /** The highest sequence handed to this target's Fanout (pipelined delivery). */
  sent: number;
  [key: string]: SqlStorageValue;
}

export class QueueStore extends LazySqlStore {
  readonly #storage: DurableObjectStorage;
  /** Targets that already have a pointer, read once per wake. */
  #known: Set<string> | undefined;
  /** The last sequence known complete (every tier acknowledged); -1 until read from the log. */
  #completedThrough = -1;

  constructor(storage: DurableObjectStorage) {
    super(storage, MIGRATIONS, ["log"]);
    this.#storage = storage;
  }

  /** Whether this queue was ever used (migrating it if so). Reads ask this and create nothing. */
  used(): boolean {
    return this.schema.exists();
  }

  self(): QueueSelf {
    const row = this.sql.exec<{ value: string }>("SELECT value FROM meta WHERE name = 'self'").toArray()[0];
    if (!row) throw new Error("purge queue used before its first enqueue");
    return JSON.parse(row.value) as QueueSelf;
  }

  lastSeq(): number {
    return this.sql.exec<{ n: number | null }>("SELECT max(seq) AS n FROM log").one().n ?? 0;
  }

  #oldestRetained(): number {
    return this.sql.exec<{ n: number | null }>("SELECT min(seq) AS n FROM log").one().n ?? this.lastSeq() + 1;
  }

  /** Appends a purge to the log, with a pointer for each target new to this queue (starting just before it). */
  enqueue(request: PurgeRequest, self: QueueSelf, targets: readonly PurgeTarget[], now: number): PurgeEvent {
    if (!this.used()) this.schema.create();
    return this.#storage.transactionSync(() => {
      this.sql.exec("INSERT OR IGNORE INTO meta (name, value) VALUES ('self', ?)", JSON.stringify(self));
      const seq = this.sql
        .exec<{ seq: number }>("INSERT INTO log (event, created_at) VALUES ('', ?) RETURNING seq", now)
        .one().seq;
      const full: PurgeEvent = { ...request, seq, id: purgeIdOf(self.name, seq), queue: self.name, createdAt: now };
      this.sql.exec("UPDATE log SET event = ? WHERE seq = ?", JSON.stringify(full), seq);
      // The known targets are read once per wake.
      this.#known ??= new Set(
        this.sql
          .exec<{ target: string }>("SELECT target FROM pointers")
          .toArray()
          .map((r) => r.target),
      );
      for (const target of targets) {
        const name = targetName(target);
        if (this.#known.has(name)) continue;
        this.sql.exec(
          "INSERT OR IGNORE INTO pointers (target, tier, acked) VALUES (?, ?, ?)",
          name,
          JSON.stringify(target),
          seq - 1,
        );
        this.#known.add(name);
      }
      this.sql.exec("DELETE FROM log WHERE seq <= ?", seq - LIMITS.purge.retainedEvents);
      return full;
    });
  }

  /**
   * Moves pointers forward (never back); acked_at records when a pointer last moved, so it dates that acknowledgement.
   */
  acked(acks: Array<{ target: string; seq: number }>, now: number): void {
    for (const { target, seq } of acks) {
      this.sql.exec(
        "UPDATE pointers SET acked_at = CASE WHEN acked < ?1 THEN ?2 ELSE acked_at END, acked = max(acked, ?1), attempts = 0, next_at = 0, last_error = NULL WHERE target = ?3",
        seq,
        now,
        target,
      );
    }
  }

  /** A fanout reported a failed delivery to a target it names. */
  failedAt(target: string, error: string): void {
    const p = this.sql.exec<PointerRow>("SELECT * FROM pointers WHERE target = ?", target).toArray()[0];
    if (p) this.failed(p, new Error(error));
  }

  /** A delivery to a pointer's target failed: it retries on jittered backoff, and its status shows why. */
  failed(p: PointerRow, err: unknown): void {
    const message = errorMessage(err).slice(0, 300);
    console.warn("purge delivery failed; will retry", p.target, message);
    const delay = backoffMs(p.attempts, LIMITS.purge.retryBaseMs, LIMITS.purge.retryMaxMs);
    this.sql.exec(
      "UPDATE pointers SET attempts = attempts + 1, next_at = ?, last_error = ? WHERE target = ?",
      Date.now() + delay,
      message,
      p.target,
    );
  }

  /** Dates the events every tier has now acknowledged; returns the operators' purges among them. */
  complete(now: number): PurgeEvent[] {
    const low = this.sql.exec<{ n: number | null }>("SELECT min(acked) AS n FROM pointers").one().n;
    if (low === null || low <= this.#completedThrough) return [];
    // Every event up to the lowest pointer is complete; only the ones since the last call are new.
    if (this.#completedThrough < 0)
      this.#completedThrough =
        (this.sql.exec<{ n: number | null }>("SELECT min(seq) AS n FROM log WHERE completed_at IS NULL").one().n ??
          low + 1) - 1;
    const done = this.sql
      .exec<{ event: string }>(
        "UPDATE log SET completed_at = ? WHERE seq > ? AND seq <= ? RETURNING event",
        now,
        this.#completedThrough,
        low,
      )
      .toArray()
      .map((r) => JSON.parse(r.event) as PurgeEvent)
      .filter((e) => e.operator);
    this.#completedThrough = low;
    return done;
  }

  /** When each purge completed, as dated when it did; null where not yet, or no longer in the retained log. */
  completedAt(seqs: number[]): Array<number | null> {
    if (!this.used()) return seqs.map(() => null);
    return seqs.map(
      (seq) =>
        this.sql.exec<{ at: number | null }>("SELECT completed_at AS at FROM log WHERE seq = ?", seq).toArray()[0]
          ?.at ?? null,
    );
  }

  /** Each target's acknowledgement of one purge; null if this queue never logged it. */
  status(seq: number): PurgeStatus | null {
    if (!this.used()) return null;
    const self = this.self();
    const row = this.sql
      .exec<{ event: string; completed_at: number | null }>("SELECT event, completed_at FROM log WHERE seq = ?", seq)
      .toArray()[0];
    if (!row && seq > this.lastSeq()) return null;
    const tiers = this.sql
      .exec<PointerRow>("SELECT * FROM pointers ORDER BY target")
      .toArray()
      .map((p) => {
        const tier = JSON.parse(p.tier) as PurgeTarget;
        const acknowledged = p.acked >= seq;
        return {
          tier: p.target,
          region: tier.region,
          level: tier.level,
          acknowledged,
          ackedAt: acknowledged ? p.acked_at : null,
          lastError: acknowledged ? null : p.last_error,
        };
      });
    const event = row ? (JSON.parse(row.event) as PurgeEvent) : null;
    const acknowledged = tiers.every((t) => t.acknowledged);
    // An event acknowledged before completion times were recorded is dated by its last acknowledgement.
    const completedAt = acknowledged ? (row?.completed_at ?? Math.max(...tiers.map((t) => t.ackedAt ?? 0))) : null;
    return {
      id: purgeIdOf(self.name, seq),
      event,
      createdAt: event?.createdAt ?? null,
      completedAt,
      tiers,
      acknowledged,
    };
  }

  load(now: number): QueueLoad {
    const windowMs = LIMITS.pool.loadWindowMs;
    const idle = {
      lastSeq: 0,
      oldestRetained: 1,
      depth: 0,
      backlog: 0,
      lagging: 0,
      eventsPerSecond: 0,
      windowMs,
      latencyMs: null,
      oldestPendingMs: null,
      pointers: [],
    };
    if (!this.used()) return { queue: "(unused)", ...idle };
    const lastSeq = this.lastSeq();
    const oldestRetained = this.#oldestRetained();
    const pointers = this.sql.exec<PointerRow>("SELECT * FROM pointers ORDER BY target").toArray();
    const name = this.sql.exec<{ value: string }>("SELECT value FROM meta WHERE name = 'self'").toArray()[0];
    const minAcked = Math.min(lastSeq, ...pointers.map((p) => p.acked));
    // The log's seqs are contiguous and created_at rises with them, so walking back from the head
    // to the newest event older than the window reads only the window's events, not the whole log.
    const before =
      this.sql
        .exec<{ seq: number }>("SELECT seq FROM log WHERE created_at < ? ORDER BY seq DESC LIMIT 1", now - windowMs)
        .toArray()[0]?.seq ?? oldestRetained - 1;
    // completed_at rises with seq (an event completes when the lowest pointer passes it), so the events
    // completed within the window sit just below minAcked; rows logged before the column have none.
    const completedBefore =
      this.sql
        .exec<{ seq: number }>(
          "SELECT seq FROM log WHERE seq <= ? AND (completed_at < ? OR completed_at IS NULL) ORDER BY seq DESC LIMIT 1",
          minAcked,
          now - windowMs,
        )
        .toArray()[0]?.seq ?? oldestRetained - 1;
    const latencies = this.sql
      .exec<{ ms: number }>(
        "SELECT completed_at - created_at AS ms FROM log WHERE seq > ? AND seq <= ? AND completed_at IS NOT NULL ORDER BY ms",
        completedBefore,
        minAcked,
      )
      .toArray()
      .map((r) => r.ms);
    const oldestPending =
      minAcked < lastSeq
        ? this.sql
            .exec<{ at: number }>("SELECT created_at AS at FROM log WHERE seq > ? ORDER BY seq LIMIT 1", minAcked)
            .toArray()[0]
        : undefined;
    return {
      queue: name ? (JSON.parse(name.value) as QueueSelf).name : "(unused)",
      lastSeq,
      oldestRetained,
      depth: lastSeq - minAcked,
      backlog: lastSeq - minAcked,
      lagging: pointers.filter((p) => p.acked < lastSeq).length,
      eventsPerSecond: (lastSeq - before) / (windowMs / 1000),
      windowMs,
      latencyMs:
        latencies.length > 0
          ? {
              p50: latencies[Math.floor((latencies.length - 1) / 2)]!,
              max: latencies.at(-1)!,
              events: latencies.length,
            }
          : null,
      oldestPendingMs: oldestPending ? now - oldestPending.at : null,
      pointers: pointers.map((p) => ({ tier: p.target, acked: p.acked, lag: lastSeq - p.acked, ackedAt: p.acked_at })),
    };
  }

  /** Pointers short of `lastSeq`. */
  lagging(lastSeq: number): PointerRow[] {
    return this.sql.exec<PointerRow>("SELECT * FROM pointers WHERE acked < ?", lastSeq).toArray();
  }

  /** The batch a pointer at `acked` needs next, from the retained log. */
  batchFor(acked: number): PurgeBatch {
    const { after, flushUpTo } = batchStart(acked, this.#oldestRetained());
    const events = this.sql
      .exec<{ event: string }>(
        "SELECT event FROM log WHERE seq > ? ORDER BY seq LIMIT ?",
        after,
        LIMITS.purge.deliveryBatch,
      )
      .toArray()
      .map((r) => JSON.parse(r.event) as PurgeEvent);
    return flushUpTo === undefined ? { events } : { events, flushUpTo };
  }

  /** The batch a region's Fanout gets for these pointers (all of that region), from the laggiest. */
  fanoutBatch(self: QueueSelf, region: Region, pointers: PointerRow[]): FanoutBatch {
    return {
      ...this.batchFor(Math.min(...pointers.map((p) => p.acked))),
      queue: self,
      region,
      targets: pointers.map((p) => ({ target: p.target, tier: JSON.parse(p.tier) as PurgeTarget, acked: p.acked })),
    };
  }

  /**
   * A batch went to a Fanout, which acknowledges later; if it never does (it
   * was reset), its pointers are delivered again at `waitUntil`. Only
   * pointers still short of the batch wait: an acknowledgement that already
   * arrived stands.
   */
  handedOn(batch: FanoutBatch, waitUntil: number): void {
    const batchEnd = batch.events.at(-1)?.seq ?? Math.min(...batch.targets.map((t) => t.acked));
    for (const { target } of batch.targets)
      this.sql.exec(
        "UPDATE pointers SET next_at = ?, sent = max(sent, ?) WHERE target = ? AND acked < ?",
        waitUntil,
        batchEnd,
        target,
        batchEnd,
      );
  }

  /** When the earliest lagging pointer is due a retry; null if none lags. */
  nextRetryAt(): number | null {
    return this.sql
      .exec<{ at: number | null }>("SELECT min(next_at) AS at FROM pointers WHERE acked < ?", this.lastSeq())
      .one().at;
  }
}
