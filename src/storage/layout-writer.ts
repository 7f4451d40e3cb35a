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
import { anchorDeps, anchorId, anchorsRebracketedBy, groupDeps, groupId, tailId, type LayoutParams } from "./layout.ts";
import { decodeRecord, encodeRecord, type EncodedRecord } from "./record-codec.ts";

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
    if (k > 0) await this.#closeGroup(k - 1, bytes);
    this.#anchors.seed(anchorId(k), bytes);
    this.#anchorRecords.set(k, await encodeRecord(anchorId(k), [bytes], await this.#dictFor(anchorDeps(k, count)), this.#params));
    for (const j of anchorsRebracketedBy(k)) {
      const own = await this.#anchors.anchor(anchorId(j));
      this.#anchorRecords.set(j, await encodeRecord(anchorId(j), [own], await this.#dictFor(anchorDeps(j, count)), this.#params));
    }
    this.#anchorsChanged = true;
  }

  /** Packs group k's tail contents into one stream against anchors k and k+1. */
  async #closeGroup(k: number, nextAnchor: Uint8Array): Promise<void> {
    this.#anchors.seed(anchorId(k + 1), nextAnchor);
    const G = this.#params.groupSize;
    const members: Uint8Array[] = [];
    for (let u = k * G + 1; u < (k + 1) * G; u++) members.push(await this.#member(u, k));
    if (members.length === 0) return;
    const record = await encodeRecord(groupId(k), members, await this.#dictFor([k, k + 1]), this.#params);
    this.#closed.push({ group: k, record });
  }

  readonly #closed: Array<{ group: number; record: EncodedRecord }> = [];

  async #member(u: number, group: number): Promise<Uint8Array> {
    const known = this.#openMembers.get(u);
    if (known) return known;
    const key = this.#state.tails.get(u);
    if (!key) throw new Error(`tail content ${u} has no blob`);
    const blob = await parsedBlob(this.#store, key);
    const meta = blob.records.get(tailId(u))!;
    const bytes = await decodeRecord(meta, blob.payload(meta), await this.#anchors.dictionary(groupDeps(group, group + 1).map(anchorId)));
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
      if (this.#state.anchorsBlob && this.#state.anchorsBlob !== commit.anchorsBlob) commit.deadBlobs.push(this.#state.anchorsBlob);
    }
    const closedGroups = new Set<number>();
    for (const { group, record } of this.#closed) {
      closedGroups.add(group);
      commit.closedGroups.push({ group, blob: await put([record]) });
    }
    for (const [u, key] of this.#state.tails) {
      if (closedGroups.has(Math.floor(u / G))) {
        commit.removedTails.push(u);
        commit.deadBlobs.push(key);
      }
    }
    for (const u of this.#newTails) {
      const group = Math.floor(u / G);
      if (closedGroups.has(group)) continue;
      const record = await encodeRecord(tailId(u), [this.#openMembers.get(u)!], await this.#dictFor(groupDeps(group, group + 1)), this.#params);
      commit.newTails.push({ u, blob: await put([record]) });
    }
    return commit;
  }
}
