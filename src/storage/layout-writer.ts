/**
 * Appends distinct contents to a page's layout (see layout.ts) and works out
 * which blobs a commit must write and which it leaves dead. Nothing here
 * touches SQLite: the PageStore writes the blobs first, then commits the
 * returned references in one transaction.
 */
import { parsedBlob } from "./blob-cache.ts";
import { encodeBlob, type ParsedBlob, type RecordMeta } from "./blob-format.ts";
import type { BlobStore } from "./blob-store.ts";
import { AnchorDecoder } from "./anchor-decoder.ts";
import { planStreams } from "./group-streams.ts";
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
import { decodeRecord, encodeRecord, type EncodedRecord } from "./record-codec.ts";

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

export class LayoutWriter {
  readonly #params: LayoutParams;
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

  constructor(store: BlobStore, params: LayoutParams, state: LayoutState) {
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
    this.#anchorRecords.set(
      k,
      await encodeRecord(anchorId(k), [bytes], await this.#dictFor(anchorDeps(k, count, this.#params)), this.#params),
    );
    for (const j of anchorsRebracketedBy(k, this.#params)) {
      const own = await this.#anchors.anchor(anchorId(j));
      this.#anchorRecords.set(
        j,
        await encodeRecord(anchorId(j), [own], await this.#dictFor(anchorDeps(j, count, this.#params)), this.#params),
      );
    }
    this.#anchorsChanged = true;
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
    this.#closed.push({ group: k, record });
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
   */
  #recentGrowth(): number {
    const newest = Math.max(...this.#anchorSizes.keys());
    const then = this.#anchorSizes.get(newest - GROWTH_SPAN);
    const now = this.#anchorSizes.get(newest);
    if (!then || !now) return MAX_FUTURE_GROWTH;
    return Math.min(MAX_FUTURE_GROWTH, Math.max(1, now / then));
  }

  readonly #closed: Array<{ group: number; record: EncodedRecord }> = [];

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
