/**
 * The read phase of the store bench: fetch revisions over the public read
 * API (`GET /page/{key}/{revid}`), prove each body is the revision the export
 * holds (MediaWiki base-36 SHA-1), and collect what each read cost the
 * origin from its `x-read-cost` header, plus wall-clock latency.
 *
 * Which revisions: every one, or for histories longer than
 * {@link READ_SAMPLE} a seeded random sample of that many plus the first and
 * the last. They are read once each in a seeded random order, after
 * {@link WARMUP_READS} untimed warm-up reads (of the first revisions in that
 * order), so the timings are over random revisions and exclude start-up
 * costs (first wasm instantiation, first SQLite page loads). A read is timed
 * from sending the request to having the whole body.
 *
 * A read's decode amplification is its decoded bytes over the byte size of
 * the revision it returned (at least 1 byte): 1 when only the revision itself
 * was decoded (or it needed no decoding beyond itself), 12 when it took
 * twelve times its own size of decoding. {@link ReadTally} sums up a series of
 * reads; the read-scaling check (read-scaling.ts) keeps one per history length.
 *
 * @example
 * const reads = await measureReads(client, "BIP_0340", imported.revisions, { seed: 1 });
 * reads.maxBlobReads; // 2
 */
import type { ArchiveClient } from "../../local/archive-client.ts";
import { sha1Base36 } from "../../../lib/digests.ts";
import { parseServerTiming } from "../../../http/server-timing.ts";
import { mulberry32 } from "../../../lib/mulberry32.ts";
import { sampleIndices } from "../../../lib/sample.ts";
import { mean } from "../harness/index.ts";
import type { RevisionRef } from "./importer.ts";

export const READ_SAMPLE = 400;
export const WARMUP_READS = 5;

export interface ReadCost {
  blobReads: number;
  decodes: number;
  decodedBytes: number;
}

export interface ReadMeasurement {
  /** Revisions read (and verified), warm-up reads excluded. */
  reads: number;
  maxBlobReads: number;
  maxDecodes: number;
  meanDecodedBytes: number;
  maxDecodedBytes: number;
  /** Decoded bytes of a read / that revision's own bytes: mean and maximum over the reads. */
  meanAmplification: number;
  maxAmplification: number;
  /** Wall-clock milliseconds per timed read, in the order made. */
  latenciesMs: number[];
}

/** Thrown when the archive answers with anything but the exact revision asked for. */
export class ReadVerificationError extends Error {}

/** Parses `x-read-cost: blob-reads=N; decodes=N; decoded-bytes=N`. */
export function parseReadCost(header: string | null): ReadCost {
  const fields = new Map<string, number>();
  for (const part of (header ?? "").split(";")) {
    const m = /^\s*([a-z-]+)=(\d+)\s*$/.exec(part);
    if (m) fields.set(m[1]!, Number(m[2]));
  }
  const get = (name: string) => {
    const v = fields.get(name);
    if (v === undefined) throw new ReadVerificationError(`x-read-cost header ${JSON.stringify(header)} has no ${name}`);
    return v;
  };
  return { blobReads: get("blob-reads"), decodes: get("decodes"), decodedBytes: get("decoded-bytes") };
}

/** Reads one revision, verifies it and returns its cost, its latency and where the Worker says its time went (`Server-Timing`, ms per hop). */
export async function readRevision(
  client: ArchiveClient,
  key: string,
  rev: RevisionRef,
): Promise<{ cost: ReadCost; ms: number; hops: Record<string, number> }> {
  const path = `/page/${encodeURIComponent(key)}/${rev.id}`;
  // Identity, as MediaWiki's php -S answers beside it: otherwise the local front line compresses every
  // body on the way out (gzip, as fetch asks), the dev stack's cost, not the archive's.
  const { status, headers, body, ms } = await client.read(path, { identity: true });
  if (status !== 200) {
    throw new ReadVerificationError(`GET ${path}: HTTP ${status} ${new TextDecoder().decode(body.subarray(0, 300))}`);
  }
  const sha1 = await sha1Base36(body);
  if (sha1 !== rev.sha1) {
    throw new ReadVerificationError(
      `GET ${path}: body has SHA-1 ${sha1} (${body.byteLength} bytes), the export says ${rev.sha1} (${rev.bytes} bytes)`,
    );
  }
  return { cost: parseReadCost(headers.get("x-read-cost")), ms, hops: parseServerTiming(headers.get("server-timing")) };
}

/** Reads revisions one after another, each verified: their latencies and hops, in the order read. */
export async function readInTurn(
  client: ArchiveClient,
  reads: readonly { key: string; rev: RevisionRef }[],
): Promise<{ ms: number[]; hops: Record<string, number>[] }> {
  const ms: number[] = [];
  const hops: Record<string, number>[] = [];
  for (const { key, rev } of reads) {
    const read = await readRevision(client, key, rev);
    ms.push(read.ms);
    hops.push(read.hops);
  }
  return { ms, hops };
}

/** Decoded bytes per byte of the revision returned (a 0-byte revision counts as 1 byte). */
export function decodeAmplification(cost: ReadCost, rev: RevisionRef): number {
  return cost.decodedBytes / Math.max(rev.bytes, 1);
}

/** The timed reads of one page, summed up as a {@link ReadMeasurement}. */
export class ReadTally {
  readonly #costs: ReadCost[] = [];
  readonly #amplification: number[] = [];
  readonly #latenciesMs: number[] = [];

  add(rev: RevisionRef, read: { cost: ReadCost; ms: number }): void {
    this.#costs.push(read.cost);
    this.#amplification.push(decodeAmplification(read.cost, rev));
    this.#latenciesMs.push(read.ms);
  }

  summary(): ReadMeasurement {
    if (this.#costs.length === 0) throw new Error("no reads to sum up");
    const costs = this.#costs;
    return {
      reads: costs.length,
      maxBlobReads: Math.max(...costs.map((c) => c.blobReads)),
      maxDecodes: Math.max(...costs.map((c) => c.decodes)),
      meanDecodedBytes: mean(costs.map((c) => c.decodedBytes)),
      maxDecodedBytes: Math.max(...costs.map((c) => c.decodedBytes)),
      meanAmplification: mean(this.#amplification),
      maxAmplification: Math.max(...this.#amplification),
      latenciesMs: [...this.#latenciesMs],
    };
  }
}

export async function measureReads(
  client: ArchiveClient,
  key: string,
  revisions: readonly RevisionRef[],
  options: { seed: number; sampleSize?: number; warmup?: number },
): Promise<ReadMeasurement> {
  if (revisions.length === 0) throw new Error(`page ${key}: no revisions to read`);
  const order = sampleIndices(revisions.length, options.sampleSize ?? READ_SAMPLE, mulberry32(options.seed)).map(
    (i) => revisions[i]!,
  );
  const warmup = Math.min(options.warmup ?? WARMUP_READS, order.length);
  for (const rev of order.slice(0, warmup)) await readRevision(client, key, rev);
  const tally = new ReadTally();
  for (const rev of order) tally.add(rev, await readRevision(client, key, rev));
  return tally.summary();
}
