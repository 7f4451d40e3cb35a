/**
 * PurgeQueue: one of a region's pool of purge queues (after Cloudflare's
 * coreless purge). It appends each purge to a persistent log with a sequence
 * number and keeps one pointer per target tier: the last sequence that tier
 * acknowledged. It pushes to its own region's tiers directly and to every
 * other region through that region's Fanout (or, in "direct" mode, to every
 * tier itself). With more regions than connections, the regions past its
 * connections go in one local call to its own region's Fanout, which hands
 * them on, so no region waits a second round trip. Whatever is not acknowledged is retried from the alarm with
 * jittered backoff, by replay from the pointer, so a tier or queue reset
 * mid-broadcast loses nothing.
 */
import { DurableObject } from "cloudflare:workers";
import type { FanoutBatch } from "./fanout.ts";
import { runLimited } from "../src/lib/run-limited.ts";
import { fanoutOf, purgeAuditOf, purgeIdOf, type QueueSelf } from "../src/bindings.ts";
import { topologyOf, type Region } from "../src/config/topology.ts";
import { LIMITS } from "../src/limits.ts";
import { applyAt } from "../src/purge/apply.ts";
import type { PurgeEvent, PurgeRequest } from "../src/purge/events.ts";
import { batchStart, neededBy, type PurgeBatch } from "../src/purge/plan.ts";
import { purgeTargets, targetName, type PurgeTarget } from "../src/purge/targets.ts";
import { backoffMs } from "../src/lib/backoff.ts";
import { crossRegionHop } from "../src/tiers/link-latency.ts";

const SCHEMA = `
CREATE TABLE IF NOT EXISTS log (seq INTEGER PRIMARY KEY AUTOINCREMENT, event TEXT NOT NULL, created_at INTEGER NOT NULL, completed_at INTEGER);
CREATE TABLE IF NOT EXISTS pointers (
  target TEXT PRIMARY KEY,
  tier TEXT NOT NULL,
  acked INTEGER NOT NULL,
  acked_at INTEGER,
  attempts INTEGER NOT NULL DEFAULT 0,
  next_at INTEGER NOT NULL DEFAULT 0,
  last_error TEXT,
  sent INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value TEXT NOT NULL);
`;

export interface PurgeStatus {
  id: string;
  event: PurgeEvent | null;
  createdAt: number | null;
  /** When the last tier acknowledged it; null while any is pending. */
  completedAt: number | null;
  tiers: Array<{ tier: string; region: string; level: string; acknowledged: boolean; ackedAt: number | null; lastError: string | null }>;
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

interface PointerRow {
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

export class PurgeQueue extends DurableObject<Env> {
  readonly #sql: SqlStorage;
  #delivering: Promise<void> | null = null;
  #again = false;

  #ready = false;
  /** Targets that already have a pointer, read once per wake. */
  #known: Set<string> | undefined;
  /** The last sequence known complete (every tier acknowledged); -1 until read from the log. */
  #completedThrough = -1;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.#sql = ctx.storage.sql;
  }

  /** Whether this queue was ever used. Reads (status, load) ask this and create nothing. */
  #used(): boolean {
    if (!this.#ready && this.#sql.exec("SELECT 1 FROM sqlite_master WHERE name = 'log'").toArray().length > 0) {
      // Queues logged before pointers had last_error get it now.
      if (this.#sql.exec("SELECT 1 FROM pragma_table_info('pointers') WHERE name = 'last_error'").toArray().length === 0) {
        this.#sql.exec("ALTER TABLE pointers ADD COLUMN last_error TEXT");
      }
      // …and before pipelined fanout delivery, the highest sequence handed on…
      if (this.#sql.exec("SELECT 1 FROM pragma_table_info('pointers') WHERE name = 'sent'").toArray().length === 0) {
        this.#sql.exec("ALTER TABLE pointers ADD COLUMN sent INTEGER NOT NULL DEFAULT 0");
      }
      // …and logs from before completion times get the column.
      if (this.#sql.exec("SELECT 1 FROM pragma_table_info('log') WHERE name = 'completed_at'").toArray().length === 0) {
        this.#sql.exec("ALTER TABLE log ADD COLUMN completed_at INTEGER");
      }
      this.#ready = true;
    }
    return this.#ready;
  }

  #self(): QueueSelf {
    const row = this.#sql.exec<{ value: string }>("SELECT value FROM meta WHERE name = 'self'").toArray()[0];
    if (!row) throw new Error("purge queue used before its first enqueue");
    return JSON.parse(row.value) as QueueSelf;
  }

  #lastSeq(): number {
    return this.#sql.exec<{ n: number | null }>("SELECT max(seq) AS n FROM log").one().n ?? 0;
  }

  #oldestRetained(): number {
    return this.#sql.exec<{ n: number | null }>("SELECT min(seq) AS n FROM log").one().n ?? this.#lastSeq() + 1;
  }

  /** Appends a purge to the log and starts delivering it; answers as soon as it is durable. */
  enqueue(request: PurgeRequest, self: QueueSelf): { id: string; seq: number } {
    const now = Date.now();
    if (!this.#used()) {
      this.#sql.exec(SCHEMA);
      this.#ready = true;
    }
    const event = this.ctx.storage.transactionSync(() => {
      this.#sql.exec("INSERT OR IGNORE INTO meta (name, value) VALUES ('self', ?)", JSON.stringify(self));
      const seq = this.#sql.exec<{ seq: number }>("INSERT INTO log (event, created_at) VALUES ('', ?) RETURNING seq", now).one().seq;
      const full: PurgeEvent = { ...request, seq, id: purgeIdOf(self.name, seq), queue: self.name, createdAt: now };
      this.#sql.exec("UPDATE log SET event = ? WHERE seq = ?", JSON.stringify(full), seq);
      // A target new to this queue starts just before this event; the known ones are read once per wake.
      this.#known ??= new Set(this.#sql.exec<{ target: string }>("SELECT target FROM pointers").toArray().map((r) => r.target));
      for (const target of purgeTargets(this.env)) {
        const name = targetName(target);
        if (this.#known.has(name)) continue;
        this.#sql.exec("INSERT OR IGNORE INTO pointers (target, tier, acked) VALUES (?, ?, ?)", name, JSON.stringify(target), seq - 1);
        this.#known.add(name);
      }
      this.#sql.exec("DELETE FROM log WHERE seq <= ?", seq - LIMITS.purge.retainedEvents);
      return full;
    });
    // A safety net: if this object is reset mid-delivery, the alarm resumes it.
    this.ctx.waitUntil(this.#alarmBy(now + LIMITS.purge.fanoutAckTimeoutMs));
    this.#kick();
    return { id: event.id, seq: event.seq };
  }

  /** Records acknowledgements (a pointer only moves forward) and a fanout's failed deliveries, which retry on backoff. */
  ack(acks: Array<{ target: string; seq: number }>, failures: Array<{ target: string; error: string }> = []): void {
    const now = Date.now();
    for (const { target, error } of failures) {
      const p = this.#sql.exec<PointerRow>("SELECT * FROM pointers WHERE target = ?", target).toArray()[0];
      if (p) this.#failed(p, new Error(error));
    }
    if (failures.length > 0) this.ctx.waitUntil(this.#scheduleRetry());
    for (const { target, seq } of acks) {
      // acked_at records when the pointer last moved, so it dates that acknowledgement.
      this.#sql.exec(
        "UPDATE pointers SET acked_at = CASE WHEN acked < ?1 THEN ?2 ELSE acked_at END, acked = max(acked, ?1), attempts = 0, next_at = 0, last_error = NULL WHERE target = ?3",
        seq, now, target,
      );
    }
    this.#complete(now);
    // Purges enqueued while these tiers waited on their fanout were skipped: deliver them now.
    const last = this.#lastSeq();
    if (acks.some(({ seq }) => seq < last)) this.#kick();
  }

  /**
   * Dates the events every tier has now acknowledged, and tells the audit
   * log when an operator's purge completed. The report may be lost (the
   * status, read from here, stays right); it is not retried.
   */
  #complete(now: number): void {
    const low = this.#sql.exec<{ n: number | null }>("SELECT min(acked) AS n FROM pointers").one().n;
    if (low === null || low <= this.#completedThrough) return;
    // Every event up to the lowest pointer is complete; only the ones since the last call are new.
    if (this.#completedThrough < 0) this.#completedThrough = (this.#sql.exec<{ n: number | null }>("SELECT min(seq) AS n FROM log WHERE completed_at IS NULL").one().n ?? low + 1) - 1;
    const done = this.#sql
      .exec<{ event: string }>("UPDATE log SET completed_at = ? WHERE seq > ? AND seq <= ? RETURNING event", now, this.#completedThrough, low)
      .toArray()
      .map((r) => JSON.parse(r.event) as PurgeEvent)
      .filter((e) => e.operator);
    this.#completedThrough = low;
    if (done.length > 0) this.ctx.waitUntil(purgeAuditOf(this.env).completed(done.map((e) => ({ id: e.id, at: now }))).catch((err) => console.warn("audit completion report lost", String(err))));
  }

  /**
   * When each of these purges completed, as dated when it did; null where not
   * yet, or no longer in the retained log (whose later stand-in date, the last
   * acknowledgement, must not be written into the audit as if it were exact).
   */
  completedAt(seqs: number[]): Array<number | null> {
    if (!this.#used()) return seqs.map(() => null);
    return seqs.map((seq) => this.#sql.exec<{ at: number | null }>("SELECT completed_at AS at FROM log WHERE seq = ?", seq).toArray()[0]?.at ?? null);
  }

  /** Each target's acknowledgement of one purge; null if this queue never logged it. */
  status(seq: number): PurgeStatus | null {
    if (!this.#used()) return null;
    const self = this.#self();
    const row = this.#sql.exec<{ event: string; completed_at: number | null }>("SELECT event, completed_at FROM log WHERE seq = ?", seq).toArray()[0];
    if (!row && seq > this.#lastSeq()) return null;
    const tiers = this.#sql.exec<PointerRow>("SELECT * FROM pointers ORDER BY target").toArray().map((p) => {
      const tier = JSON.parse(p.tier) as PurgeTarget;
      const acknowledged = p.acked >= seq;
      return { tier: p.target, region: tier.region, level: tier.level, acknowledged, ackedAt: acknowledged ? p.acked_at : null, lastError: acknowledged ? null : p.last_error };
    });
    const event = row ? (JSON.parse(row.event) as PurgeEvent) : null;
    const acknowledged = tiers.every((t) => t.acknowledged);
    // An event acknowledged before completion times were recorded is dated by its last acknowledgement.
    const completedAt = acknowledged ? (row?.completed_at ?? Math.max(...tiers.map((t) => t.ackedAt ?? 0))) : null;
    return { id: purgeIdOf(self.name, seq), event, createdAt: event?.createdAt ?? null, completedAt, tiers, acknowledged };
  }

  load(): QueueLoad {
    const windowMs = LIMITS.pool.loadWindowMs;
    const idle = { lastSeq: 0, oldestRetained: 1, depth: 0, backlog: 0, lagging: 0, eventsPerSecond: 0, windowMs, latencyMs: null, oldestPendingMs: null, pointers: [] };
    if (!this.#used()) return { queue: "(unused)", ...idle };
    const now = Date.now();
    const lastSeq = this.#lastSeq();
    const oldestRetained = this.#oldestRetained();
    const pointers = this.#sql.exec<PointerRow>("SELECT * FROM pointers ORDER BY target").toArray();
    const name = this.#sql.exec<{ value: string }>("SELECT value FROM meta WHERE name = 'self'").toArray()[0];
    const minAcked = Math.min(lastSeq, ...pointers.map((p) => p.acked));
    // The log's seqs are contiguous and created_at rises with them, so walking back from the head
    // to the newest event older than the window reads only the window's events, not the whole log.
    const before = this.#sql.exec<{ seq: number }>("SELECT seq FROM log WHERE created_at < ? ORDER BY seq DESC LIMIT 1", now - windowMs).toArray()[0]?.seq ?? oldestRetained - 1;
    // completed_at rises with seq (an event completes when the lowest pointer passes it), so the events
    // completed within the window sit just below minAcked; rows logged before the column have none.
    const completedBefore =
      this.#sql.exec<{ seq: number }>("SELECT seq FROM log WHERE seq <= ? AND (completed_at < ? OR completed_at IS NULL) ORDER BY seq DESC LIMIT 1", minAcked, now - windowMs).toArray()[0]?.seq ??
      oldestRetained - 1;
    const latencies = this.#sql
      .exec<{ ms: number }>("SELECT completed_at - created_at AS ms FROM log WHERE seq > ? AND seq <= ? AND completed_at IS NOT NULL ORDER BY ms", completedBefore, minAcked)
      .toArray()
      .map((r) => r.ms);
    const oldestPending = minAcked < lastSeq ? this.#sql.exec<{ at: number }>("SELECT created_at AS at FROM log WHERE seq > ? ORDER BY seq LIMIT 1", minAcked).toArray()[0] : undefined;
    return {
      queue: name ? (JSON.parse(name.value) as QueueSelf).name : "(unused)",
      lastSeq,
      oldestRetained,
      depth: lastSeq - minAcked,
      backlog: lastSeq - minAcked,
      lagging: pointers.filter((p) => p.acked < lastSeq).length,
      eventsPerSecond: (lastSeq - before) / (windowMs / 1000),
      windowMs,
      latencyMs: latencies.length > 0 ? { p50: latencies[Math.floor((latencies.length - 1) / 2)]!, max: latencies.at(-1)!, events: latencies.length } : null,
      oldestPendingMs: oldestPending ? now - oldestPending.at : null,
      pointers: pointers.map((p) => ({ tier: p.target, acked: p.acked, lag: lastSeq - p.acked, ackedAt: p.acked_at })),
    };
  }

  override async alarm(): Promise<void> {
    if (!this.#used()) return;
    // Through the same loop as every other pass: passes never overlap, so a Fanout sees one queue's batches in order.
    this.#kick();
    await this.#delivering;
  }

  #kick(): void {
    if (this.#delivering) {
      this.#again = true;
      return;
    }
    this.#delivering = (async () => {
      try {
        do {
          this.#again = false;
          await this.#deliver();
        } while (this.#again);
      } finally {
        this.#delivering = null;
      }
    })();
    this.ctx.waitUntil(this.#delivering);
  }

  /** One pass over every lagging pointer whose retry time has come. */
  async #deliver(): Promise<void> {
    const self = this.#self();
    const topology = topologyOf(this.env);
    const now = Date.now();
    const lastSeq = this.#lastSeq();
    const lagging = this.#sql.exec<PointerRow>("SELECT * FROM pointers WHERE acked < ?", lastSeq).toArray();
    const direct: PointerRow[] = [];
    const byRegion = new Map<string, PointerRow[]>();
    for (const p of lagging) {
      const tier = JSON.parse(p.tier) as PurgeTarget;
      const viaFanout = tier.region !== self.region && topology.purgeDelivery === "fanout";
      // A Fanout's pointer does not wait for its acknowledgement to hand on newer events (pipelining),
      // unless it is backing off after a failure. Each batch starts at the acknowledged sequence, so
      // none leaves a gap, and re-applying what is still in flight is harmless.
      const due = p.next_at <= now || (viaFanout && p.attempts === 0 && p.sent < lastSeq);
      if (!due) continue;
      if (viaFanout) byRegion.set(tier.region, [...(byRegion.get(tier.region) ?? []), p]);
      else direct.push(p);
    }
    // Other regions first: their hop is the longest, and their Fanouts then work while this queue serves its own region.
    // More of them than connections would take a second round trip; the ones past the connections (but one) go
    // in one call to this region's Fanout, a local hop, which hands them on with connections of its own.
    const remote = [...byRegion.entries()] as Array<[Region, PointerRow[]]>;
    const ownConnections = remote.length > LIMITS.purge.maxConcurrentDeliveries ? LIMITS.purge.maxConcurrentDeliveries - 1 : remote.length;
    const relayed = remote.slice(ownConnections);
    const jobs: Array<() => Promise<void>> = [
      ...remote.slice(0, ownConnections).map(([region, pointers]) => () => this.#deliverVia(self, region, pointers)),
      ...(relayed.length > 0 ? [() => this.#deliverRelayed(self, relayed)] : []),
      ...direct.map((p) => () => this.#deliverTo(self, p)),
    ];
    await runLimited(jobs, LIMITS.purge.maxConcurrentDeliveries, (job) => job());
    await this.#scheduleRetry();
  }

  /** The batch a pointer at `acked` needs next, from the retained log. */
  #batchFor(acked: number): PurgeBatch {
    const { after, flushUpTo } = batchStart(acked, this.#oldestRetained());
    const events = this.#sql
      .exec<{ event: string }>("SELECT event FROM log WHERE seq > ? ORDER BY seq LIMIT ?", after, LIMITS.purge.deliveryBatch)
      .toArray()
      .map((r) => JSON.parse(r.event) as PurgeEvent);
    return flushUpTo === undefined ? { events } : { events, flushUpTo };
  }

  async #deliverTo(self: QueueSelf, p: PointerRow): Promise<void> {
    const tier = JSON.parse(p.tier) as PurgeTarget;
    try {
      await crossRegionHop(this.env, self.region, tier.region);
      const applied = await applyAt(this.env, tier, self.name, neededBy(p.acked, this.#batchFor(p.acked)));
      this.ack([{ target: p.target, seq: applied }]);
    } catch (err) {
      this.#failed(p, err);
    }
  }

  /** The batch a region's Fanout gets for these pointers (all of that region), from the laggiest. */
  #fanoutBatch(self: QueueSelf, region: Region, pointers: PointerRow[]): FanoutBatch {
    return {
      ...this.#batchFor(Math.min(...pointers.map((p) => p.acked))),
      queue: self,
      region,
      targets: pointers.map((p) => ({ target: p.target, tier: JSON.parse(p.tier) as PurgeTarget, acked: p.acked })),
    };
  }

  /**
   * The Fanouts acknowledge later; if one never does (it was reset), its
   * pointers are delivered again after the timeout. Only pointers still
   * short of the batch wait: an acknowledgement that already arrived stands.
   */
  #handedOn(batch: FanoutBatch, waitUntil: number): void {
    const batchEnd = batch.events.at(-1)?.seq ?? Math.min(...batch.targets.map((t) => t.acked));
    for (const { target } of batch.targets) this.#sql.exec("UPDATE pointers SET next_at = ?, sent = max(sent, ?) WHERE target = ? AND acked < ?", waitUntil, batchEnd, target, batchEnd);
  }

  async #deliverVia(self: QueueSelf, region: Region, pointers: PointerRow[]): Promise<void> {
    const batch = this.#fanoutBatch(self, region, pointers);
    const waitUntil = Date.now() + LIMITS.purge.fanoutAckTimeoutMs;
    try {
      await crossRegionHop(this.env, self.region, region);
      await fanoutOf(this.env, region).deliver(batch);
      this.#handedOn(batch, waitUntil);
    } catch (err) {
      for (const p of pointers) this.#failed(p, err);
    }
  }

  /** Several regions' batches through this region's own Fanout, which hands them on (see Fanout.relay). */
  async #deliverRelayed(self: QueueSelf, regions: Array<[Region, PointerRow[]]>): Promise<void> {
    const batches = regions.map(([region, pointers]) => this.#fanoutBatch(self, region, pointers));
    const waitUntil = Date.now() + LIMITS.purge.fanoutAckTimeoutMs;
    try {
      await fanoutOf(this.env, self.region).relay(batches);
      for (const batch of batches) this.#handedOn(batch, waitUntil);
    } catch (err) {
      for (const [, pointers] of regions) for (const p of pointers) this.#failed(p, err);
    }
  }

  #failed(p: PointerRow, err: unknown): void {
    const message = String((err as Error)?.message ?? err).slice(0, 300);
    console.warn("purge delivery failed; will retry", p.target, message);
    const delay = backoffMs(p.attempts, LIMITS.purge.retryBaseMs, LIMITS.purge.retryMaxMs);
    this.#sql.exec("UPDATE pointers SET attempts = attempts + 1, next_at = ?, last_error = ? WHERE target = ?", Date.now() + delay, message, p.target);
  }

  async #alarmBy(at: number): Promise<void> {
    const current = await this.ctx.storage.getAlarm();
    if (current === null || current > at) await this.ctx.storage.setAlarm(at);
  }

  async #scheduleRetry(): Promise<void> {
    const next = this.#sql.exec<{ at: number | null }>("SELECT min(next_at) AS at FROM pointers WHERE acked < ?", this.#lastSeq()).one().at;
    if (next === null) return;
    await this.#alarmBy(Math.max(next, Date.now() + 10));
  }
}
