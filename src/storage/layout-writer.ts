/**
 * Appends distinct contents to a page's layout (see layout.ts) and works out
 * which blobs a commit must write and which it leaves dead. Nothing here
 * touches SQLite: the PageStore writes the blobs first, then commits the
 * returned references in one transaction.
 */
import { parsedBlob } from "./blob-cache.ts";
import { encodeBlob, type ParsedBlob, type RecordMeta } from "./blob-format.ts";
import type { BlobStore } from "./blob-store.ts";
import { LIMITS } from "../limits.ts";
import { AnchorDecoder } from "./anchor-decoder.ts";
import { planStreams, roomLeft } from "./group-streams.ts";
import {
  anchorClosure,
  anchorDeps,
  anchorId,
  anchorsRebracketedBy,
  finalClosure,
  groupDeps,
  groupId,
  tailId,
  type LayoutParams,
} from "./layout.ts";
import {
  decodeRecord,
  encodeRecord,
  RecordCorruptError,
  streamOf,
  type EncodedRecord,
  type StreamCut,
} from "./record-codec.ts";

/**
 * Anchors back over which a page's growth is measured, and the most growth
 * assumed: an anchor not written yet is counted at the largest known one
 * times the growth of the last {@link GROWTH_SPAN} anchors, capped at
 * {@link MAX_FUTURE_GROWTH}. Measured on the shared histories: a fixed
 * factor of 1 let a read of bips-readme (whose revisions grow fivefold)
 * decode 19.9 times its revision; a fixed 2 held every read under 16 but
 * cut stable pages for nothing (bip-0340 12 % bigger); the trend does both.
 * A page's first groups are cut for the most growth, since nothing is known.
 */
const GROWTH_SPAN = 4;
const MAX_FUTURE_GROWTH = 2;

export interface LayoutState {
  /** Distinct contents stored so far. */
  contentCount: number;
  anchorsBlob: string | null;
  /** Blob of each tail content of the open group. */
  tails: Map<number, string>;
  /** Blob of a closed group, for a commit that cuts it again (layout.ts, boundedBrackets). */
  groupBlob?: (group: number) => string | undefined;
}

export interface LayoutCommit {
  /** Blobs to write before committing, by key. */
  blobs: Map<string, Uint8Array>;
  anchorsBlob: string | null;
  closedGroups: Array<{ group: number; blob: string }>;
  newTails: Array<{ u: number; blob: string }>;
  /** Tails folded into a closed group: their rows go, their blobs die. */
  removedTails: number[];
  /** Blobs no longer referenced once this commit lands. */
  deadBlobs: string[];
}

/** A closed group cut again, and the payload bytes that costs. */
interface Recut {
  record: EncodedRecord;
  members: Uint8Array[];
  cut: StreamCut[];
  cost: number;
}

/**
 * The layout's parameters, and how many bytes of revision text one commit's
 * repairs may decode and re-encode (default LIMITS.storage.maxLayoutRepairBytes).
 * The cap is the writer's, not the page's: it decides how hard a commit tries,
 * never how a record is read, so it is not stored with the page.
 */
export type LayoutWriterParams = LayoutParams & { repairBytes?: number };

/**
 * A way to keep every read within budget: the anchor records it leaves, the groups it cuts again, its cost in bytes.
 */
interface Repair {
  cost: number;
  records: Map<number, { meta: Omit<RecordMeta, "off" | "len">; payload: Uint8Array }>;
  recuts: Map<number, Recut>;
}

export class LayoutWriter {
  readonly #params: LayoutWriterParams;
  readonly #store: BlobStore;
  readonly #state: LayoutState;
  #oldAnchors: ParsedBlob | null = null;
  #anchors!: AnchorDecoder;
  /** Anchor records by anchor index: kept as stored, or re-encoded by this commit. */
  readonly #anchorRecords = new Map<number, { meta: Omit<RecordMeta, "off" | "len">; payload: Uint8Array }>();
  /** Decoded size of every anchor known, stored or new. */
  readonly #anchorSizes = new Map<number, number>();
  /** Contents of the open group known in memory (new in this commit, or decoded tails). */
  readonly #openMembers = new Map<number, Uint8Array>();
  /** Contents added by this commit that are not anchors; encoded as tails only if their group stays open. */
  readonly #newTails: number[] = [];
  #count: number;
  #anchorsChanged = false;

  constructor(store: BlobStore, params: LayoutWriterParams, state: LayoutState) {
    this.#store = store;
    this.#params = params;
    this.#state = state;
    this.#count = state.contentCount;
  }

  async #load(): Promise<void> {
    if (this.#anchors) return;
    if (this.#state.anchorsBlob) {
      this.#oldAnchors = await parsedBlob(this.#store, this.#state.anchorsBlob);
      for (const meta of this.#oldAnchors.records.values()) {
        this.#anchorRecords.set(Number(meta.id.slice(1)), { meta, payload: this.#oldAnchors.payload(meta) });
        this.#anchorSizes.set(Number(meta.id.slice(1)), meta.size);
      }
    }
    this.#anchors = new AnchorDecoder(this.#oldAnchors);
  }

  /** Appends distinct contents, in order. Returns each one's index u. */
  async append(contents: Uint8Array[]): Promise<number[]> {
    await this.#load();
    const ids: number[] = [];
    for (const bytes of contents) {
      const u = this.#count++;
      ids.push(u);
      const G = this.#params.groupSize;
      const group = Math.floor(u / G);
      if (u % G === 0) await this.#addAnchor(group, bytes);
      else {
        this.#openMembers.set(u, bytes);
        this.#newTails.push(u);
      }
    }
    return ids;
  }

  async #dictFor(anchors: number[]): Promise<{ ids: string[]; bytes: Uint8Array[] }> {
    const ids = anchors.map(anchorId);
    return { ids, bytes: await this.#anchors.dictionary(ids) };
  }

  async #addAnchor(k: number, bytes: Uint8Array): Promise<void> {
    const count = k + 1;
    this.#anchorSizes.set(k, bytes.byteLength);
    if (k > 0) await this.#closeGroup(k - 1, bytes);
    this.#anchors.seed(anchorId(k), bytes);
    let deps = anchorDeps(k, count, this.#params);
    // An anchor whose own read would overflow the budget (the page shrank) stands alone.
    if (this.#bounded && !this.#withinBudget(k, deps, count)) deps = [];
    this.#anchorRecords.set(k, await encodeRecord(anchorId(k), [bytes], await this.#dictFor(deps), this.#params));
    // Highest level first: once a wide anchor takes k as its bracket, the anchors under it take k for free.
    for (const j of anchorsRebracketedBy(k, this.#params).reverse()) {
      const bracketed = anchorDeps(j, count, this.#params);
      const record = await this.#encodeAnchor(j, bracketed);
      if (this.#bounded && !(await this.#makeRoom(j, bracketed, record, count))) continue;
      // A repair may have cut group j again: its room is on j's record as the repair left it.
      const { room: _old, ...meta } = record.meta;
      const room = this.#anchorRecords.get(j)?.meta.room;
      this.#anchorRecords.set(j, { ...record, meta: room === undefined ? meta : { ...meta, room } });
    }
    this.#anchorsChanged = true;
  }

  /** Anchor `a` encoded against `deps`, keeping the room its record holds for its group. */
  async #encodeAnchor(a: number, deps: number[]): Promise<EncodedRecord> {
    const own = await this.#anchors.anchor(anchorId(a));
    const record = await encodeRecord(anchorId(a), [own], await this.#dictFor(deps), this.#params);
    const room = this.#anchorRecords.get(a)?.meta.room;
    return room === undefined ? record : { ...record, meta: { ...record.meta, room } };
  }

  /**
   * Lets anchor `trial` take `deps` (its record then `record`) if every read
   * decoding it stays within the budget, or can be brought within it for
   * fewer bytes than the bracket saves. Two repairs are priced and the
   * cheaper kept: storing each over-budget anchor alone and cutting each
   * over-budget group again (against the anchors it now needs); and a greedy
   * one that, read by read, takes whichever step fixes the most for the
   * fewest bytes, where a step may also drop the right bracket of an anchor
   * between the reads and `trial` (so no read reaches `trial` through it).
   * Returns false, changing nothing, when the bracket is not worth it.
   */
  async #makeRoom(trial: number, deps: number[], record: EncodedRecord, count: number): Promise<boolean> {
    const over = this.#overBudget(trial, deps, count);
    if (over.anchors.length === 0 && over.groups.length === 0) return true;
    const current = this.#anchorRecords.get(trial);
    if (!current) return false;
    const gain = current.payload.byteLength - record.payload.byteLength;
    const before = new Map(this.#anchorRecords);
    this.#recuts.clear();
    this.#encodes.clear();
    const plans: Repair[] = [];
    const restore = () => {
      this.#anchorRecords.clear();
      for (const [a, r] of before) this.#anchorRecords.set(a, r);
    };
    for (const plan of [this.#repairAloneThenRecut, this.#repairGreedy]) {
      const repair = await plan.call(this, trial, deps, count, gain);
      restore();
      if (repair) plans.push(repair);
    }
    // Each anchor on a path to `trial` giving up its right bracket, then the rest repaired as above.
    for (const a of this.#pathAnchors(trial, deps, over)) {
      const ds = this.#depsOf(a);
      const was = this.#anchorRecords.get(a)!;
      const next = await this.#repairEncode(a, [ds[0]!]);
      if (!next) continue;
      const dropCost = next.payload.byteLength - was.payload.byteLength;
      if (dropCost < gain) {
        this.#anchorRecords.set(a, next);
        const rest = await this.#repairAloneThenRecut(trial, deps, count, gain - dropCost);
        if (rest) plans.push({ ...rest, cost: rest.cost + dropCost });
      }
      restore();
    }
    const best = plans.sort((a, b) => a.cost - b.cost)[0];
    if (!best) return false;
    this.#anchorRecords.clear();
    for (const [a, r] of best.records) this.#anchorRecords.set(a, r);
    for (const [group, recut] of best.recuts) {
      const at = this.#closed.findIndex((c) => c.group === group);
      if (at >= 0) this.#closed[at] = { group, ...recut };
      else {
        this.#closed.push({ group, ...recut });
        this.#recutBlobs.add(this.#state.groupBlob!(group)!);
      }
    }
    return true;
  }

  /**
   * Each over-budget anchor stored alone, then each over-budget group cut again; null if that costs the gain or more.
   */
  async #repairAloneThenRecut(trial: number, deps: number[], count: number, gain: number): Promise<Repair | null> {
    let over = this.#overBudget(trial, deps, count);
    if (over.anchors.includes(trial)) return null;
    let cost = 0;
    for (const a of over.anchors) {
      const was = this.#anchorRecords.get(a)!;
      let best: EncodedRecord | null = null;
      for (const to of this.#smallerDicts(a)) {
        const next = await this.#repairEncode(a, to);
        if (!next) continue;
        this.#anchorRecords.set(a, next);
        const fits = !this.#overBudget(trial, deps, count).anchors.includes(a);
        this.#anchorRecords.set(a, was);
        if (fits && (!best || next.payload.byteLength < best.payload.byteLength)) best = next;
      }
      if (!best) return null;
      cost += best.payload.byteLength - was.payload.byteLength;
      if (cost >= gain) return null;
      this.#anchorRecords.set(a, best);
    }
    over = this.#overBudget(trial, deps, count);
    if (over.anchors.length > 0) return null;
    const recuts = new Map<number, Recut>();
    for (const g of over.groups) {
      const recut = await this.#recut(g, trial, deps);
      if (!recut) return null;
      cost += recut.cost;
      if (cost >= gain) return null;
      recuts.set(g, recut);
      this.#setRoom(g, recut.members, recut.cut);
    }
    return { cost, records: new Map(this.#anchorRecords), recuts };
  }

  /**
   * Repairs step by step: at each step every way to fix some over-budget
   * read is priced (an anchor on a path to `trial` giving up its right
   * bracket, an over-budget anchor stored alone, an over-budget group cut
   * again) and the one with the fewest bytes per read fixed is taken. Null
   * if the steps cost the gain or more, or none fixes what is left.
   */
  async #repairGreedy(trial: number, deps: number[], count: number, gain: number): Promise<Repair | null> {
    let cost = 0;
    const recuts = new Map<number, Recut>();
    const overCount = () => {
      const o = this.#overBudget(trial, deps, count);
      return o.anchors.length + o.groups.length;
    };
    for (;;) {
      const over = this.#overBudget(trial, deps, count);
      const left = over.anchors.length + over.groups.length;
      if (left === 0) return { cost, records: new Map(this.#anchorRecords), recuts };
      let best: { perRead: number; cost: number; apply: () => void } | null = null;
      const consider = (stepCost: number, fixed: number, apply: () => void) => {
        if (fixed <= 0 || cost + stepCost >= gain) return;
        const perRead = Math.max(0, stepCost) / fixed;
        if (!best || perRead < best.perRead) best = { perRead, cost: stepCost, apply };
      };
      const tryAnchor = async (a: number, to: number[]) => {
        const was = this.#anchorRecords.get(a)!;
        const next = await this.#repairEncode(a, to);
        if (!next) return;
        this.#anchorRecords.set(a, next);
        const fixed = left - overCount();
        this.#anchorRecords.set(a, was);
        consider(next.payload.byteLength - was.payload.byteLength, fixed, () => this.#anchorRecords.set(a, next));
      };
      for (const a of this.#pathAnchors(trial, deps, over)) await tryAnchor(a, [this.#depsOf(a)[0]!]);
      for (const a of over.anchors) if (a !== trial) for (const to of this.#smallerDicts(a)) await tryAnchor(a, to);
      for (const g of over.groups) {
        const recut = await this.#recut(g, trial, deps);
        if (recut)
          consider(recut.cost, 1, () => {
            recuts.set(g, recut);
            this.#setRoom(g, recut.members, recut.cut);
          });
      }
      const step = best as { cost: number; apply: () => void } | null;
      if (!step) return null;
      cost += step.cost;
      step.apply();
    }
  }

  /**
   * Dictionaries anchor `a` may fall back to when its read is over budget:
   * the first anchor of its tree (whose read decodes only its chain), if
   * that read fits `a`'s own budget, or none. Against the top, `a` no longer
   * reaches the anchor being bracketed, so no later check would see its read:
   * a page that shrank at `a` under a large top would decode far past 16x.
   */
  #smallerDicts(a: number): number[][] {
    const levels = this.#params.treeLevels;
    const top = levels === undefined ? 0 : Math.floor(a / 2 ** levels) * 2 ** levels;
    const current = this.#depsOf(a);
    const out: number[][] = [];
    const own = this.#anchorSizes.get(a) ?? 0;
    const fits = own + this.#closureBytes([top], -1, []) <= this.#params.decodeBudget! * Math.max(1, own);
    if (top !== a && String(current) !== String(top) && fits) out.push([top]);
    if (current.length > 0) out.push([]);
    return out;
  }

  /**
   * Anchors whose right bracket leads an over-budget read to `trial`: those
   * the reads in `over` decode, other than `trial`, with a right bracket that
   * decodes `trial`. Dropping such a bracket shortens those reads.
   */
  #pathAnchors(trial: number, deps: readonly number[], over: { anchors: number[]; groups: number[] }): number[] {
    const seen = new Set<number>();
    const visit = (a: number) => {
      if (seen.has(a)) return;
      seen.add(a);
      for (const d of a === trial ? deps : this.#depsOf(a)) visit(d);
    };
    for (const a of over.anchors) visit(a);
    for (const g of over.groups) [g, g + 1].forEach(visit);
    return [...seen].filter((a) => {
      if (a === trial) return false;
      const ds = this.#depsOf(a);
      return ds.length === 2 && this.#reaches(ds[1]!, trial);
    });
  }

  /** Whether reading anchor `a` decodes anchor `trial` (the walk stops there, whatever `trial` is encoded against). */
  #reaches(a: number, trial: number): boolean {
    const seen = new Set<number>();
    const visit = (x: number): boolean => {
      if (x === trial) return true;
      if (seen.has(x)) return false;
      seen.add(x);
      return this.#depsOf(x).some(visit);
    };
    return visit(a);
  }

  /**
   * Group `g` cut again for the anchors its reads need with `trial` encoded
   * against `deps`; null if no cut fits, or the repair cap
   * ({@link LayoutWriterParams}) has no room left for decoding and encoding
   * its members. One cut is kept per group: one priced for more anchor bytes
   * serves any repair needing fewer.
   */
  async #recut(g: number, trial: number, deps: readonly number[]): Promise<Recut | null> {
    const needed = this.#closureBytes([g, g + 1], trial, deps);
    const known = this.#recuts.get(g);
    if (
      known?.recut &&
      roomLeft(
        known.recut.members.map((m) => m.byteLength),
        known.recut.cut,
        this.#params.decodeBudget!,
      ) >= needed
    )
      return known.recut;
    if (known && known.failedAt <= needed) return null;
    const before = await this.#closedGroup(g, known?.recut?.members);
    if (!before) return null;
    const recut = await this.#cutAgain(g, before, needed);
    if (recut) this.#recuts.set(g, { recut, failedAt: known?.failedAt ?? Infinity });
    else this.#recuts.set(g, { recut: known?.recut ?? null, failedAt: Math.min(needed, known?.failedAt ?? Infinity) });
    return recut;
  }

  /** Recuts priced by the repair under way, one per group, and the least anchor bytes no cut of it could afford. */
  readonly #recuts = new Map<number, { recut: Recut | null; failedAt: number }>();

  /** Anchors re-encoded by the repair under way, by anchor and dictionary. */
  readonly #encodes = new Map<string, EncodedRecord>();

  /** Bytes of revision text this commit's repairs have decoded or re-encoded so far. */
  #repairSpent = 0;

  /** Whether `bytes` more of repair work stay within the cap. */
  #canSpend(bytes: number): boolean {
    return this.#repairSpent + bytes <= (this.#params.repairBytes ?? LIMITS.storage.maxLayoutRepairBytes);
  }

  /** Counts `bytes` of repair work against the cap; false, counting nothing, if they would pass it. */
  #spend(bytes: number): boolean {
    if (!this.#canSpend(bytes)) return false;
    this.#repairSpent += bytes;
    return true;
  }

  /**
   * Anchor `a` encoded against `to` for a repair, keeping the room its record
   * holds now; each encoding is done once per repair and counted against the
   * cap, and null once the cap has no room for it.
   */
  async #repairEncode(a: number, to: number[]): Promise<EncodedRecord | null> {
    const key = `${a}:${to.join(",")}`;
    let r = this.#encodes.get(key);
    if (!r) {
      if (!this.#spend(this.#anchorSizes.get(a) ?? 0)) return null;
      this.#encodes.set(key, (r = await this.#encodeAnchor(a, to)));
    }
    const room = this.#anchorRecords.get(a)?.meta.room;
    const { room: _old, ...meta } = r.meta;
    return { ...r, meta: room === undefined ? meta : { ...meta, room } };
  }

  async #cutAgain(
    g: number,
    before: { record: EncodedRecord; members: Uint8Array[] },
    needed: number,
  ): Promise<Recut | null> {
    const sizes = before.members.map((m) => m.byteLength);
    const cut = planStreams(sizes, Math.max(needed, this.#anchorBytes([g, g + 1])), this.#params.decodeBudget!, needed);
    if (roomLeft(sizes, cut, this.#params.decodeBudget!) < needed) return null;
    if (!this.#spend(before.record.meta.size)) return null;
    const record = await encodeRecord(groupId(g), before.members, await this.#dictFor([g, g + 1]), this.#params, cut);
    return { record, members: before.members, cut, cost: record.payload.byteLength - before.record.payload.byteLength };
  }

  /**
   * A closed group's record and members: closed by this commit, or read back
   * from its blob (`members` if already decoded), its decoding counted
   * against the repair cap; null if the cap has no room for it.
   */
  async #closedGroup(
    g: number,
    members?: Uint8Array[],
  ): Promise<{ record: EncodedRecord; members: Uint8Array[] } | null> {
    const open = this.#closed.find((c) => c.group === g);
    if (open) return open;
    const key = this.#state.groupBlob?.(g);
    if (!key) return null;
    const blob = await parsedBlob(this.#store, key);
    const meta = blob.records.get(groupId(g));
    if (!meta) throw new RecordCorruptError(`record ${groupId(g)} is not in blob ${key}`);
    if (members) return { record: { meta, payload: blob.payload(meta) }, members };
    // A group whose decoding and encoding again would not both fit under the cap is not decoded at all.
    if (!this.#canSpend(2 * meta.size) || !this.#spend(meta.size)) return null;
    const dict = await this.#anchors.dictionary(meta.dict);
    members = [];
    for (let part = 0; part < meta.parts.length;) {
      const stream = streamOf(meta, part);
      const payload = blob.payload(meta).subarray(stream.off, stream.off + stream.len);
      const bytes = await decodeRecord(meta, payload, stream.plain ? [] : dict, stream.size, stream.size);
      let off = 0;
      do {
        members.push(bytes.slice(off, off + meta.parts[part]!));
        off += meta.parts[part]!;
        part++;
      } while (part < meta.parts.length && streamOf(meta, part).firstPart === stream.firstPart);
    }
    return { record: { meta, payload: blob.payload(meta) }, members };
  }

  /** Whether reads are bounded by the anchors actually written (layout.ts, boundedBrackets). */
  get #bounded(): boolean {
    return this.#params.boundedBrackets === true && this.#params.decodeBudget !== undefined;
  }

  /** The anchors anchor `a`'s record is encoded against, as stored (or as this commit re-encoded it). */
  #depsOf(a: number): number[] {
    const record = this.#anchorRecords.get(a);
    if (!record) throw new Error(`anchor ${a} has no record`);
    return record.meta.dict.map((id) => Number(id.slice(1)));
  }

  /**
   * Bytes decoded to read `anchors`, following each one's dictionary; anchor `trial` taken as encoded against `deps`.
   */
  #closureBytes(anchors: readonly number[], trial: number, deps: readonly number[]): number {
    const seen = new Set<number>();
    let sum = 0;
    const visit = (a: number) => {
      if (seen.has(a)) return;
      seen.add(a);
      sum += this.#anchorSizes.get(a) ?? 0;
      for (const d of a === trial ? deps : this.#depsOf(a)) visit(d);
    };
    for (const a of anchors) visit(a);
    return sum;
  }

  /**
   * Whether, with anchor `trial` encoded against `deps`, every read that
   * decodes it stays within the budget: each anchor of its tree read alone,
   * and each closed group of the tree within the room its members left
   * (RecordMeta.room). Only `trial`'s tree can reach it (layout.ts).
   */
  #withinBudget(trial: number, deps: readonly number[], count: number): boolean {
    const over = this.#overBudget(trial, deps, count);
    return over.anchors.length === 0 && over.groups.length === 0;
  }

  /** The anchors and closed groups whose reads would exceed the budget with anchor `trial` encoded against `deps`. */
  #overBudget(trial: number, deps: readonly number[], count: number): { anchors: number[]; groups: number[] } {
    const over = { anchors: [] as number[], groups: [] as number[] };
    const budget = this.#params.decodeBudget!;
    const levels = this.#params.treeLevels;
    const span = levels === undefined ? Infinity : 2 ** levels;
    const from = Number.isFinite(span) ? Math.floor(trial / span) * span : 0;
    const to = Math.min(from + span, count);
    const depsOf = (a: number) => (a === trial ? deps : this.#depsOf(a));
    const reaches = new Map<number, boolean>();
    const affected = (a: number): boolean => {
      let r = reaches.get(a);
      if (r === undefined) reaches.set(a, (r = a === trial || depsOf(a).some(affected)));
      return r;
    };
    for (let a = Math.max(from, 1); a < to; a++) {
      if (!affected(a)) continue;
      if (this.#closureBytes([a], trial, deps) > budget * Math.max(1, this.#anchorSizes.get(a) ?? 0))
        over.anchors.push(a);
    }
    for (let g = from; g < to && g + 1 < count; g++) {
      const room = this.#anchorRecords.get(g)?.meta.room;
      if (room !== undefined && this.#closureBytes([g, g + 1], trial, deps) > room) over.groups.push(g);
    }
    return over;
  }

  /** Packs group k's tail contents into one stream against anchors k and k+1. */
  async #closeGroup(k: number, nextAnchor: Uint8Array): Promise<void> {
    this.#anchors.seed(anchorId(k + 1), nextAnchor);
    const G = this.#params.groupSize;
    const members: Uint8Array[] = [];
    for (let u = k * G + 1; u < (k + 1) * G; u++) members.push(await this.#member(u));
    if (members.length === 0) return;
    const budget = this.#params.decodeBudget;
    const cut =
      budget === undefined
        ? undefined
        : planStreams(
            members.map((m) => m.byteLength),
            this.#anchorBytes([k, k + 1]),
            budget,
            this.#anchorBytes([k, k + 1], 1),
          );
    const record = await encodeRecord(groupId(k), members, await this.#dictFor([k, k + 1]), this.#params, cut);
    this.#closed.push({ group: k, record, members, cut: cut ?? [] });
    if (this.#bounded && cut) this.#setRoom(k, members, cut);
  }

  /** Records on anchor k the most anchor bytes group k's members read with the dictionary can afford. */
  #setRoom(k: number, members: readonly Uint8Array[], cut: readonly StreamCut[]): void {
    const room = roomLeft(
      members.map((m) => m.byteLength),
      cut,
      this.#params.decodeBudget!,
    );
    const anchor = this.#anchorRecords.get(k);
    if (!anchor) throw new Error(`anchor ${k} has no record`);
    const { room: _old, ...meta } = anchor.meta;
    this.#anchorRecords.set(k, { ...anchor, meta: Number.isFinite(room) ? { ...meta, room } : meta });
  }

  /**
   * Bytes a read decodes for a record whose dictionary is `anchors`, once
   * the page's tree is complete around them (layout.ts, finalClosure); an
   * anchor not written yet is counted at the largest known one times the
   * page's recent growth ({@link GROWTH_SPAN}), or times `growth` if given.
   */
  #anchorBytes(anchors: number[], growth = this.#recentGrowth()): number {
    const count = this.#count === 0 ? 0 : Math.floor((this.#count - 1) / this.#params.groupSize) + 1;
    const needed =
      this.#params.treeLevels === undefined
        ? [...new Set(anchors.flatMap((a) => anchorClosure(a, count, this.#params)))]
        : finalClosure(anchors, this.#params);
    const sizes = needed.map((a) => this.#anchorSizes.get(a));
    const largest = Math.max(0, ...sizes.map((n) => n ?? 0));
    return sizes.reduce<number>((sum, n) => sum + (n ?? largest * growth), 0);
  }

  /**
   * How much the newest anchor outgrew the one {@link GROWTH_SPAN} before it,
   * between 1 and {@link MAX_FUTURE_GROWTH}; a page too young to tell gets the
   * most, as its first groups' reads will need the most anchors written later.
   * With bounded brackets no growth is assumed: a group the page outgrows is
   * cut again when the anchor that overflows it is bracketed ({@link #makeRoom}),
   * which stored 0.06-2.1 % fewer bytes on six of the eight shared histories
   * than cutting every group for growth that may not come (LAYOUT-TRADEOFFS.md).
   */
  #recentGrowth(): number {
    if (this.#bounded) return 1;
    const newest = Math.max(...this.#anchorSizes.keys());
    const then = this.#anchorSizes.get(newest - GROWTH_SPAN);
    const now = this.#anchorSizes.get(newest);
    if (!then || !now) return MAX_FUTURE_GROWTH;
    return Math.min(MAX_FUTURE_GROWTH, Math.max(1, now / then));
  }

  readonly #closed: Array<{ group: number; record: EncodedRecord; members: Uint8Array[]; cut: StreamCut[] }> = [];
  /** Blobs of groups closed by earlier commits and cut again by this one. */
  readonly #recutBlobs = new Set<string>();

  async #member(u: number): Promise<Uint8Array> {
    const known = this.#openMembers.get(u);
    if (known) return known;
    const key = this.#state.tails.get(u);
    if (!key) throw new Error(`tail content ${u} has no blob`);
    const blob = await parsedBlob(this.#store, key);
    const meta = blob.records.get(tailId(u))!;
    const bytes = await decodeRecord(meta, blob.payload(meta), await this.#anchors.dictionary(meta.dict));
    this.#openMembers.set(u, bytes);
    return bytes;
  }

  /** The blobs and references this commit produces. */
  async finish(): Promise<LayoutCommit> {
    await this.#load();
    const commit: LayoutCommit = {
      blobs: new Map(),
      anchorsBlob: this.#state.anchorsBlob,
      closedGroups: [],
      newTails: [],
      removedTails: [],
      deadBlobs: [],
    };
    const G = this.#params.groupSize;
    const put = async (records: EncodedRecord[]) => {
      const bytes = encodeBlob(records);
      const key = await this.#store.keyOf(bytes);
      commit.blobs.set(key, bytes);
      return key;
    };
    if (this.#anchorsChanged) {
      const ordered = [...this.#anchorRecords.entries()].sort((a, b) => a[0] - b[0]).map(([, r]) => r);
      commit.anchorsBlob = await put(ordered);
      if (this.#state.anchorsBlob && this.#state.anchorsBlob !== commit.anchorsBlob)
        commit.deadBlobs.push(this.#state.anchorsBlob);
    }
    const closedGroups = new Set<number>();
    for (const { group, record } of this.#closed) {
      closedGroups.add(group);
      commit.closedGroups.push({ group, blob: await put([record]) });
    }
    const dead = new Set<string>();
    for (const [u, key] of this.#state.tails) {
      if (closedGroups.has(Math.floor(u / G))) {
        commit.removedTails.push(u);
        dead.add(key);
      }
    }
    // A group cut again into the very bytes it had keeps its blob.
    for (const key of this.#recutBlobs) if (!commit.blobs.has(key)) dead.add(key);
    commit.deadBlobs.push(...dead);
    // The commit's tails share one blob: a blob (and its row) per tail made a
    // bulk import leave hundreds of dead rows behind.
    const tails: Array<{ u: number; record: EncodedRecord }> = [];
    for (const u of this.#newTails) {
      const group = Math.floor(u / G);
      if (closedGroups.has(group)) continue;
      const bytes = this.#openMembers.get(u)!;
      const budget = this.#params.decodeBudget;
      // A tail too small for its anchors' decoding is stored alone, as its group's cut would.
      const plain =
        budget !== undefined &&
        planStreams([bytes.byteLength], this.#anchorBytes([group]), budget, this.#anchorBytes([group], 1))[0]!.plain;
      tails.push({
        u,
        record: await encodeRecord(
          tailId(u),
          [bytes],
          plain ? { ids: [], bytes: [] } : await this.#dictFor(groupDeps(group, group + 1)),
          this.#params,
        ),
      });
    }
    if (tails.length > 0) {
      const blob = await put(tails.map((t) => t.record));
      for (const { u } of tails) commit.newTails.push({ u, blob });
    }
    return commit;
  }
}
