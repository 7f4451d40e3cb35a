/**
 * The layout's bounds, checked on the writer and reader themselves (no
 * PageStore): capped anchor trees keep a read's anchors bounded at any
 * history length, groups cut to the decode budget keep a read within 16
 * times the revision, and layouts written before either still read.
 */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import "../../../src/codec/install-worker.ts";
import { encodeBlob, decodeBlob } from "../../../src/storage/blob-format.ts";
import { BlobStore } from "../../../src/storage/blob-store.ts";
import { planStreams } from "../../../src/storage/group-streams.ts";
import {
  anchorClosure,
  anchorDeps,
  anchorsRebracketedBy,
  DEFAULT_LAYOUT,
  finalClosure,
  type LayoutParams,
} from "../../../src/storage/layout.ts";
import { LayoutWriter, type LayoutWriterParams } from "../../../src/storage/layout-writer.ts";
import { encodeRecord } from "../../../src/storage/record-codec.ts";
import { readWrittenContent } from "../../../src/tools/bench/store/layout-read.ts";

const LEGACY: LayoutParams = { groupSize: 16, quality: 7, keyframeQuality: 8, lgwin: 22 };

describe("anchor trees", () => {
  it("without a cap, as pages made before it: one tree, and an anchor's closure grows with the history", () => {
    expect(anchorDeps(12, 100)).toEqual([8, 16]);
    expect(anchorDeps(64, 100)).toEqual([0]);
    expect(anchorsRebracketedBy(64)).toEqual([63, 62, 60, 56, 48, 32]);
    expect(anchorClosure(1, 1024).length).toBeGreaterThan(anchorClosure(1, 16).length + 5);
  });

  it("capped: tops chain back to a keyframe, trees never reach past the next top, and no closure outgrows the cap", () => {
    const shape = { treeLevels: 2, chainTops: 2 };
    expect(anchorDeps(4, 100, shape)).toEqual([0]);
    expect(anchorDeps(8, 100, shape)).toEqual([]);
    expect(anchorDeps(12, 100, shape)).toEqual([8]);
    expect(anchorDeps(6, 100, shape)).toEqual([4, 8]);
    expect(anchorDeps(7, 100, shape)).toEqual([6, 8]);
    expect(anchorsRebracketedBy(8, shape)).toEqual([7, 6]);
    const { treeLevels, chainTops } = DEFAULT_LAYOUT;
    let widest = 0;
    for (let k = 0; k < 40_000; k++)
      widest = Math.max(widest, finalClosure([k, k + 1], { treeLevels, chainTops }).length);
    // Two anchors per level of the tree, the chain of tops before it, and the next top.
    expect(widest).toBeLessThanOrEqual(2 * treeLevels! + chainTops! + 1);
    expect(finalClosure([3], shape)).toEqual(anchorClosure(3, 9, shape).sort((a, b) => a - b));
  });
});

describe("cutting a group to its decode budget", () => {
  it("keeps one stream while it fits, cuts where it would not, and drops the dictionary only for a member smaller than its anchors allow", () => {
    expect(planStreams([10, 10, 10], 50, 16)).toEqual([{ parts: 3, plain: false }]);
    expect(planStreams([10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10], 100, 16)).toEqual([
      { parts: 6, plain: false },
      { parts: 6, plain: false },
    ]);
    expect(planStreams([30_000, 31_000, 200], 150_000, 16)).toEqual([
      { parts: 2, plain: false },
      { parts: 1, plain: true },
    ]);
    // A blanked revision goes without the dictionary, but the revert after it does not follow it there.
    expect(planStreams([30_000, 30_500, 0, 31_000], 150_000, 16)).toEqual([
      { parts: 2, plain: false },
      { parts: 1, plain: true },
      { parts: 1, plain: false },
    ]);
    // A cautious estimate cuts, but the dictionary goes only when the known anchors already overflow.
    expect(planStreams([100, 100], 2_000, 16, 1_000)).toEqual([
      { parts: 1, plain: false },
      { parts: 1, plain: false },
    ]);
  });
});

/**
 * Writes `contents` in commits of `batch` with `params`, deleting each commit's dead blobs, then reads
 * every one back, returning the largest decode per byte read, the live blob bytes, and how many
 * group blobs of earlier commits later commits cut again (left dead).
 */
async function writeAndReadAll(
  owner: string,
  contents: Uint8Array[],
  params: LayoutWriterParams,
  batch: number,
): Promise<{ worst: number; reads: number; blobBytes: number; groupsCutAgain: number }> {
  const store = new BlobStore(env.BLOBS, owner);
  let state = { contentCount: 0, anchorsBlob: null as string | null, tails: new Map<number, string>() };
  const groups = new Map<number, string>();
  const groupBlob = (g: number) => groups.get(g);
  const live = new Map<string, number>();
  let groupsCutAgain = 0;
  for (let i = 0; i < contents.length; i += batch) {
    const writer = new LayoutWriter(store, params, { ...state, tails: new Map(state.tails), groupBlob });
    const slice = contents.slice(i, i + batch);
    await writer.append(slice);
    const commit = await writer.finish();
    for (const [key, bytes] of commit.blobs) {
      expect(await store.put(bytes)).toBe(key);
      live.set(key, bytes.byteLength);
    }
    const groupBlobs = new Set(groups.values());
    for (const key of commit.deadBlobs) {
      if (groupBlobs.has(key)) groupsCutAgain++;
      live.delete(key);
      await store.delete(key);
    }
    for (const g of commit.closedGroups) groups.set(g.group, g.blob);
    for (const u of commit.removedTails) state.tails.delete(u);
    for (const t of commit.newTails) state.tails.set(t.u, t.blob);
    state = { contentCount: state.contentCount + slice.length, anchorsBlob: commit.anchorsBlob, tails: state.tails };
  }
  let worst = 0;
  let reads = 0;
  for (let u = 0; u < contents.length; u++) {
    const { bytes, stats } = await readWrittenContent(store, { ...state, groups }, params.groupSize, u, contents[u]!);
    expect(bytes).toEqual(contents[u]);
    reads = Math.max(reads, stats.blobReads);
    worst = Math.max(worst, stats.decodedBytes / bytes.byteLength);
  }
  return { worst, reads, blobBytes: [...live.values()].reduce((a, b) => a + b, 0), groupsCutAgain };
}

/** A page edited line by line: each revision changes one line of a fixed-size text and adds a word. */
function editedPage(revisions: number, lines = 120): Uint8Array[] {
  const text = Array.from(
    { length: lines },
    (_, i) => `Line ${i}: the archive keeps every revision of this page, compressed.`,
  );
  const out: Uint8Array[] = [];
  for (let r = 0; r < revisions; r++) {
    const at = (r * 37) % lines;
    text[at] = `${text[at]!.slice(0, 60)} edit ${r}`;
    out.push(new TextEncoder().encode(text.join("\n")));
  }
  return out;
}

describe("reads within the decode budget", () => {
  it("every content of a 600-revision page reads back byte for byte, from at most two blobs, decoding at most 16 times its size", async () => {
    const { worst, reads } = await writeAndReadAll("layout-budget", editedPage(600), DEFAULT_LAYOUT, 100);
    expect(reads).toBeLessThanOrEqual(2);
    expect(worst).toBeLessThanOrEqual(16);
  });

  it("the layout pages were made with before the cap and the budget still reads, and decodes more", async () => {
    const { worst, reads } = await writeAndReadAll("layout-legacy", editedPage(600), LEGACY, 100);
    expect(reads).toBeLessThanOrEqual(2);
    expect(worst).toBeGreaterThan(16);
  });
});

/**
 * A page shaped like the start of w3c-webdriver's history, at a tenth of its size: small first
 * revisions, then the page grows about fourfold within its first anchor tree, far beyond what
 * the groups cut early could foresee of the anchors written later (2.9 KB at anchor 0, 7.2 KB at
 * anchor 1, 12.8 KB at anchor 8, 22 KB by anchor 24).
 */
function growingPage(contents = 560): Uint8Array[] {
  const knots: Array<[number, number]> = [
    [0, 2_900],
    [15, 6_900],
    [16, 7_200],
    [32, 9_100],
    [64, 10_100],
    [128, 12_800],
    [192, 13_600],
    [256, 16_500],
    [320, 17_400],
    [384, 22_200],
    [contents, 22_500],
  ];
  const sizeAt = (u: number) => {
    const i = knots.findIndex(([at]) => at >= u);
    if (knots[i]![0] === u || i === 0) return knots[i]![1];
    const [u0, s0] = knots[i - 1]!;
    const [u1, s1] = knots[i]!;
    return Math.round(s0 + ((s1 - s0) * (u - u0)) / (u1 - u0));
  };
  const lines: string[] = [];
  const out: Uint8Array[] = [];
  for (let u = 0; u < contents; u++) {
    lines[(u * 37) % Math.max(1, lines.length)] = `Section ${u}: the specification was revised in draft ${u}.`;
    while (lines.join("\n").length < sizeAt(u))
      lines.push(`Line ${lines.length}: a requirement added as the draft grew, numbered ${lines.length * 7919}.`);
    out.push(new TextEncoder().encode(lines.join("\n")));
  }
  return out;
}

describe("a page that outgrows its early groups", () => {
  it("every revision of a page growing fourfold within its first tree reads back within 16 times its size, for about the bytes of the unbounded layout", async () => {
    const page = growingPage();
    const bounded = await writeAndReadAll("layout-growing", page, DEFAULT_LAYOUT, 50);
    expect(bounded.reads).toBeLessThanOrEqual(2);
    expect(bounded.worst).toBeLessThanOrEqual(16);
    // Held by cutting some early groups again (within the repair cap).
    expect(bounded.groupsCutAgain).toBeGreaterThan(0);
    // The same page without brackets bounded by the anchors written (as pages made before): over the budget.
    const { boundedBrackets: _, ...estimated } = DEFAULT_LAYOUT;
    const before = await writeAndReadAll("layout-growing-estimated", page, estimated, 50);
    expect(before.worst).toBeGreaterThan(16);
    expect(bounded.blobBytes).toBeLessThanOrEqual(before.blobBytes * 1.02);
  });
});

/**
 * A page of `groups` groups of 4 whose contents are the start of one long text, edited line by line,
 * cut to `sizeOf(group)` characters: a page that shrinks and grows back.
 */
function reshapedPage(groups: number, sizeOf: (group: number) => number): Uint8Array[] {
  const lines = Array.from(
    { length: 2_000 },
    (_, i) => `Line ${i}: a requirement of the specification, numbered ${i * 7919}.`,
  );
  const out: Uint8Array[] = [];
  for (let u = 0; u < groups * 4; u++) {
    lines[(u * 37) % lines.length] = `Line ${(u * 37) % lines.length}: revised in draft ${u}.`;
    out.push(new TextEncoder().encode(lines.join("\n").slice(0, sizeOf(Math.floor(u / 4)))));
  }
  return out;
}

describe("repairs that keep a bracket", () => {
  it("an anchor moved onto its tree's top by a repair still reads within 16 times its size on a page that shrank under a large top and grew back", async () => {
    // 20 KB up to anchor 40, 1 KB at anchors 40-41, 2.4 KB at 42-43, 12 KB from 44: when 44 brackets 42,
    // anchor 41 (1 KB) reads over budget, and against the top (anchor 32, itself against anchor 0) it costs
    // next to nothing but decodes 41 times its size.
    const page = reshapedPage(50, (g) => (g < 40 ? 20_000 : g < 42 ? 1_000 : g < 44 ? 2_400 : 12_000));
    const { worst, reads } = await writeAndReadAll("layout-shrunk-top", page, { ...DEFAULT_LAYOUT, groupSize: 4 }, 10);
    expect(reads).toBeLessThanOrEqual(2);
    expect(worst).toBeLessThanOrEqual(16);
  });

  it("past the repair cap a commit leaves the bracket out instead of cutting groups again, and every read stays within 16 times its size", async () => {
    // The page above, whose early groups are cut again under the default cap.
    const capped = await writeAndReadAll(
      "layout-repair-capped",
      growingPage(),
      { ...DEFAULT_LAYOUT, repairBytes: 0 },
      50,
    );
    expect(capped.groupsCutAgain).toBe(0);
    expect(capped.reads).toBeLessThanOrEqual(2);
    expect(capped.worst).toBeLessThanOrEqual(16);
  });
});

describe("blanked revisions", () => {
  it("an empty revision reads back as an anchor, at the end of a group, mid-group and as a tail, and later commits still close its group", async () => {
    const page = editedPage(70);
    // u = 16 (an anchor), 31 (last of group 1), 40 (mid-group), 66 (a tail of the open group).
    for (const u of [16, 31, 40, 66]) page[u] = new Uint8Array(0);
    const { reads } = await writeAndReadAll("layout-blanked", page, DEFAULT_LAYOUT, 7);
    expect(reads).toBeLessThanOrEqual(2);
    const legacy = await writeAndReadAll("layout-blanked-legacy", page, LEGACY, 7);
    expect(legacy.reads).toBeLessThanOrEqual(2);
  });
});

describe("blob headers", () => {
  it("leave out what the records imply and compress the rest; a blob of another format version is refused", async () => {
    const parts = [new TextEncoder().encode("first revision text"), new TextEncoder().encode("second revision text")];
    const record = await encodeRecord("g0", parts, { ids: [], bytes: [] }, DEFAULT_LAYOUT, [
      { parts: 1, plain: true },
      { parts: 1, plain: true },
    ]);
    const blob = encodeBlob([record, { ...record, meta: { ...record.meta, id: "g1" } }]);
    const meta = decodeBlob(blob).records.get("g1")!;
    expect(meta).toMatchObject({
      off: record.payload.byteLength,
      size: parts[0]!.byteLength + parts[1]!.byteLength,
      streams: [1, 1],
      plain: [0, 1],
    });

    // The format is 1; any other version byte (the CRC covers bytes 16 on, so only the version differs) is refused.
    expect(blob[4]).toBe(1);
    for (const version of [0, 2, 255]) {
      const other = blob.slice();
      other[4] = version;
      expect(() => decodeBlob(other)).toThrow(`blob format version ${version} is not supported`);
    }
  });
});
