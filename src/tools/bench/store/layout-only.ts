/**
 * The storage layout alone, outside the Worker: each page of a MediaWiki
 * export written by the same LayoutWriter the PageStore runs (distinct
 * contents, imports in commits of 50 revisions), into an in-memory BLOBS,
 * then every distinct content read back once through readContent. Reports,
 * per history, the live blob bytes and the decode amplification (bytes a read
 * decodes over the bytes it returns: max and mean), for the layout under test
 * and a baseline layout in the same run, with their ratios. No SQLite, no
 * HTTP: `bench store` measures those; this isolates what the layout decides.
 *
 * @example
 * node --import tsx src/tools/bench/store/layout-only.ts ../shared/corpus/histories/w3c-webdriver.xml.br
 */
import "../../../codec/install-node.ts";
import { sha256Hex } from "../../../lib/digests.ts";
import { BlobStore } from "../../../storage/blob-store.ts";
import { DEFAULT_LAYOUT, type LayoutParams } from "../../../storage/layout.ts";
import { LayoutWriter, type LayoutState } from "../../../storage/layout-writer.ts";
import { historyName } from "./history.ts";
import { readWrittenContent } from "./layout-read.ts";
import { exportPages } from "./wiki-export.ts";

/** Revisions per commit, as `palimpsest import` batches them. */
const COMMIT_REVISIONS = 50;

interface LayoutFigures {
  blobBytes: number;
  reads: number;
  maxAmplification: number;
  meanAmplification: number;
  /** The content whose read decoded the most per byte: page, distinct content index, its size. */
  worst: { page: string; u: number; bytes: number } | null;
  overBudget: number;
}

/** A KV namespace in memory: only what BlobStore uses. */
function memoryKv(): KVNamespace {
  const values = new Map<string, Uint8Array>();
  return {
    get: (key: string) => {
      const v = values.get(key);
      return Promise.resolve(v === undefined ? null : v.slice().buffer);
    },
    put: (key: string, value: Uint8Array) => {
      values.set(key, value.slice());
      return Promise.resolve();
    },
    delete: (key: string) => {
      values.delete(key);
      return Promise.resolve();
    },
  } as unknown as KVNamespace;
}

/** Writes one page's distinct contents with `params` and reads each back, adding to `acc`. */
async function measurePage(page: string, contents: Uint8Array[][], params: LayoutParams, acc: LayoutFigures) {
  const store = new BlobStore(memoryKv(), "bench");
  const groups = new Map<number, string>();
  const state: LayoutState = { contentCount: 0, anchorsBlob: null, tails: new Map(), groupBlob: (g) => groups.get(g) };
  const live = new Map<string, number>();
  const all: Uint8Array[] = [];
  for (const batch of contents) {
    if (batch.length === 0) continue;
    const writer = new LayoutWriter(store, params, { ...state, tails: new Map(state.tails) });
    await writer.append(batch);
    const commit = await writer.finish();
    for (const [key, bytes] of commit.blobs) {
      await store.put(bytes);
      live.set(key, bytes.byteLength);
    }
    for (const key of commit.deadBlobs) live.delete(key);
    for (const g of commit.closedGroups) groups.set(g.group, g.blob);
    for (const u of commit.removedTails) state.tails.delete(u);
    for (const t of commit.newTails) state.tails.set(t.u, t.blob);
    state.contentCount += batch.length;
    state.anchorsBlob = commit.anchorsBlob;
    all.push(...batch);
  }
  acc.blobBytes += [...live.values()].reduce((a, b) => a + b, 0);
  let sum = acc.meanAmplification * acc.reads;
  for (let u = 0; u < all.length; u++) {
    const { bytes, stats } = await readWrittenContent(store, { ...state, groups }, params.groupSize, u, all[u]!);
    const amplification = stats.decodedBytes / Math.max(1, bytes.byteLength);
    sum += amplification;
    acc.reads++;
    if ((params.decodeBudget ?? Infinity) < amplification) acc.overBudget++;
    if (amplification > acc.maxAmplification) {
      acc.maxAmplification = amplification;
      acc.worst = { page, u, bytes: bytes.byteLength };
    }
  }
  acc.meanAmplification = acc.reads === 0 ? 0 : sum / acc.reads;
}

/** Each page's distinct contents, in commits of {@link COMMIT_REVISIONS} revisions. */
async function* pagesOf(file: string): AsyncGenerator<{ title: string; batches: Uint8Array[][] }> {
  for await (const page of exportPages(file)) {
    const seen = new Set<string>();
    const batches: Uint8Array[][] = [];
    let n = 0;
    for await (const rev of page.revisions) {
      if (n++ % COMMIT_REVISIONS === 0) batches.push([]);
      const bytes = new TextEncoder().encode(rev.text);
      const sha = await sha256Hex(bytes);
      if (seen.has(sha)) continue;
      seen.add(sha);
      batches.at(-1)!.push(bytes);
    }
    yield { title: page.title, batches };
  }
}

const empty = (): LayoutFigures => ({
  blobBytes: 0,
  reads: 0,
  maxAmplification: 0,
  meanAmplification: 0,
  worst: null,
  overBudget: 0,
});

/** The layout pages got before reads were bounded by the anchors actually written (the baseline). */
const BASELINE: LayoutParams = (() => {
  const { boundedBrackets: _b, ...rest } = DEFAULT_LAYOUT;
  return rest;
})();

const files = process.argv.slice(2);
if (files.length === 0) throw new Error("usage: layout-only.ts <export.xml[.br]> ...");
const round = (x: number) => Math.round(x * 100) / 100;
for (const file of files) {
  const baseline = empty();
  const layout = empty();
  for await (const page of pagesOf(file)) {
    await measurePage(page.title, page.batches, BASELINE, baseline);
    await measurePage(page.title, page.batches, DEFAULT_LAYOUT, layout);
  }
  const show = (f: LayoutFigures) => ({
    ...f,
    maxAmplification: round(f.maxAmplification),
    meanAmplification: round(f.meanAmplification),
  });
  console.log(
    JSON.stringify({
      history: historyName(file),
      baseline: show(baseline),
      layout: show(layout),
      ratios: {
        blobBytes: Math.round((layout.blobBytes / baseline.blobBytes) * 10000) / 10000,
        maxAmplification: round(layout.maxAmplification / baseline.maxAmplification),
        meanAmplification: round(layout.meanAmplification / baseline.meanAmplification),
      },
    }),
  );
}
