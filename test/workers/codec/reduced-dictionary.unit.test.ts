/**
 * The reduced static dictionary in workerd: malformed tables are refused with
 * BAD_DICTIONARY naming the fault; an attached table changes nothing where it
 * must not (empty table, qualities outside 5-9); with a table, every input
 * kind round-trips through our decoder and word-heavy text gets smaller; the
 * trace's events are real (the dictionary word under its transform equals the
 * input at that position) and gain what they claim; a prepared table is
 * reused, never rebuilt per call.
 */
import "../../../src/codec/install-worker.ts";
import { describe, expect, it } from "vitest";
import {
  ReducedDictionary,
  brotliCompress,
  brotliDecompress,
  cachedReducedDictionary,
  dictionaryWord,
  traceDictionaryCandidates,
  traceDictionaryCandidatesRaw,
  DICTIONARY_WORD_BITS,
} from "../../../src/codec/index.ts";
import { withHeap } from "../../../src/codec/runtime/heap.ts";
import { prng, type Prng } from "./support/prng.ts";
import { KiB, MiB, concat, expectCodecError, expectSameBytes, htmlLike, utf8 } from "./support/inputs.ts";

type Pair = readonly [length: number, index: number, transform: number];

function table(pairs: readonly Pair[], count = pairs.length): Uint8Array {
  const bytes = new Uint8Array(8 + 4 * pairs.length);
  const view = new DataView(bytes.buffer);
  bytes.set(utf8("PSD1"));
  view.setUint32(4, count, true);
  pairs.forEach(([length, index, transform], i) => {
    view.setUint8(8 + 4 * i, length);
    view.setUint16(9 + 4 * i, index, true);
    view.setUint8(11 + 4 * i, transform);
  });
  return bytes;
}

/** Every word of every length under each of `transforms`. */
function allWords(transforms: readonly number[]): Pair[] {
  const pairs: Pair[] = [];
  for (let length = 4; length <= 24; length++) {
    for (let index = 0; index < 1 << DICTIONARY_WORD_BITS[length]!; index++)
      for (const t of transforms) pairs.push([length, index, t]);
  }
  return pairs;
}

// identity, " " suffix, " "+w+" ", " "+w, Uppercase-first, Uppercase+" ", w+"\"", w+".", w+"\">", w+"\n"
const WEB_TRANSFORMS = [0, 1, 2, 6, 9, 4, 19, 20, 21, 22];
const big = cachedReducedDictionary("test:all-words-x-10", () => table(allWords(WEB_TRANSFORMS)));

/** Text made of random dictionary words under random transforms: what the table is for. */
function wordSoup(rand: Prng, words: number): Uint8Array {
  const parts: Uint8Array[] = [];
  for (let i = 0; i < words; i++) {
    const length = rand.int(4, 24);
    const index = rand.int(0, (1 << DICTIONARY_WORD_BITS[length]!) - 1);
    parts.push(dictionaryWord(length, index, rand.pick(WEB_TRANSFORMS)));
    if (rand.next() < 0.3) parts.push(utf8(rand.pick(["<p>", ", "])));
  }
  return concat(parts);
}

describe("malformed tables", () => {
  const good = table([[4, 0, 0]]);
  const cases: [string, Uint8Array, RegExp][] = [
    ["empty", new Uint8Array(0), /bad magic/],
    ["bad magic", concat([utf8("PSD2"), good.subarray(4)]), /bad magic/],
    ["count says more than there is", table([[4, 0, 0]], 2), /count 2 needs 16 bytes, got 12/],
    ["trailing byte", concat([good, new Uint8Array(1)]), /count 1 needs 12 bytes, got 13/],
    ["word length 3", table([[3, 0, 0]]), /entry 0: word length 3/],
    [
      "word length 25",
      table([
        [4, 0, 0],
        [25, 0, 0],
      ]),
      /entry 1: word length 25/,
    ],
    ["index past the length's block", table([[24, 32, 0]]), /entry 0: word index 32 is outside 0..31 for length 24/],
    ["transform 121", table([[4, 0, 121]]), /entry 0: transform 121 is outside 0..120/],
  ];
  for (const [name, bytes, message] of cases) {
    it(`refuses ${name} with BAD_DICTIONARY`, () => {
      const err = expectCodecError(() => ReducedDictionary.prepare(bytes), "BAD_DICTIONARY");
      expect(err.message).toMatch(message);
    });
  }

  it("the native prepare refuses what the TS check refuses (NULL, not a half-built structure)", () => {
    // Straight at the export, bypassing checkReducedTable: the C validation stands on its own.
    for (const [, bytes] of cases) {
      const got = callPrepareRaw(bytes);
      expect(got).toBe(0);
    }
    expect(callPrepareRaw(good)).not.toBe(0);
  });
});

/** BrotliReducedDictionaryPrepare on raw bytes; returns the handle (0 = refused) and frees it. */
function callPrepareRaw(bytes: Uint8Array): number {
  return withHeap("brotli", (heap) => {
    const at = heap.copyIn(bytes);
    try {
      const handle = heap.fn.BrotliReducedDictionaryPrepare!(at, bytes.byteLength) >>> 0;
      if (handle) heap.fn.BrotliReducedDictionaryDestroy!(handle);
      return handle;
    } finally {
      heap.free(at);
    }
  });
}

describe("no effect where there must be none", () => {
  const rand = prng(12);
  const page = htmlLike(rand, 48 * KiB);

  it("an empty table gives stock output at q5-9", () => {
    const empty = ReducedDictionary.prepare(table([]));
    for (const quality of [5, 6, 7, 8, 9]) {
      expectSameBytes(
        brotliCompress(page, { quality, reducedDictionary: empty }),
        brotliCompress(page, { quality }),
        `q${quality}`,
      );
    }
    empty.dispose();
  });

  it("outside q5-9 the table is ignored", () => {
    for (const quality of [0, 1, 2, 3, 4, 10, 11]) {
      expectSameBytes(
        brotliCompress(page, { quality, reducedDictionary: big }),
        brotliCompress(page, { quality }),
        `q${quality}`,
      );
    }
  });

  it("with the table, q5 output differs from stock (the hook is live)", () => {
    const soup = wordSoup(prng(5), 400);
    expect(brotliCompress(soup, { quality: 5, reducedDictionary: big })).not.toEqual(
      brotliCompress(soup, { quality: 5 }),
    );
  });
});

describe("round trips with a table (fuzzed inputs)", () => {
  const rand = prng(77);
  const inputs: [string, Uint8Array][] = [
    ["empty", new Uint8Array(0)],
    ["1 byte", utf8("a")],
    ["3 bytes", utf8("the")],
    ["one word", dictionaryWord(7, 100, 0)],
    ["random bytes 64 KiB", rand.bytes(64 * KiB)],
    ["html-like 200 KiB", htmlLike(rand, 200 * KiB)],
    ...Array.from({ length: 12 }, (_, i): [string, Uint8Array] => [`word soup #${i}`, wordSoup(rand, 50 + i * 100)]),
    ["big: 3 MiB of html-like and words", concat([htmlLike(rand, 2 * MiB), wordSoup(rand, 60_000)])],
  ];
  for (const [name, input] of inputs) {
    it(`${name} (${input.byteLength} B) at q5, q7, q9, lgwin 16 and 22`, () => {
      for (const [quality, lgwin] of [
        [5, 22],
        [7, 22],
        [9, 22],
        [5, 16],
        [9, 16],
      ] as const) {
        const packed = brotliCompress(input, { quality, lgwin, reducedDictionary: big });
        expectSameBytes(brotliDecompress(packed), input, `${name} q${quality} w${lgwin}`);
      }
    });
  }

  it("word soup gets at least 5 % smaller than stock q5", () => {
    const soup = wordSoup(prng(9), 3000);
    const stock = brotliCompress(soup, { quality: 5 }).byteLength;
    const reduced = brotliCompress(soup, { quality: 5, reducedDictionary: big }).byteLength;
    expect(reduced).toBeLessThan(stock * 0.95);
  });
});

describe("trace", () => {
  it("every event is the dictionary word under its transform, at its position, in order, gaining what it says", () => {
    const rand = prng(31);
    const input = concat([htmlLike(rand, 16 * KiB), wordSoup(rand, 800), htmlLike(rand, 8 * KiB)]);
    const events = traceDictionaryCandidates(input, { quality: 5, table: big });
    expect(events.length).toBeGreaterThan(100);
    let end = 0;
    for (const e of events) {
      const word = dictionaryWord(e.wordLength, e.wordIndex, e.transformId);
      expect(e.matchLength).toBe(word.byteLength);
      expectSameBytes(input.subarray(e.position, e.position + e.matchLength), word, `event at ${e.position}`);
      expect(e.position).toBeGreaterThanOrEqual(end);
      end = e.position + e.matchLength;
      expect(e.scoreGain).toBeGreaterThan(0);
      expect(WEB_TRANSFORMS).toContain(e.transformId);
    }
  });

  it("the traced run's output is the plain run's output, and decodes", () => {
    const input = wordSoup(prng(4), 500);
    const { compressed, count } = traceDictionaryCandidatesRaw(input, { quality: 6, table: big });
    expect(count).toBeGreaterThan(0);
    expectSameBytes(compressed, brotliCompress(input, { quality: 6, reducedDictionary: big }));
    expectSameBytes(brotliDecompress(compressed), input);
  });

  it("a table given as bytes is prepared for the call; only listed pairs are reported", () => {
    const input = utf8("xx information yy information zz");
    // "information" is a length-11 word; find its index through the export rather than hard-coding it.
    let index = -1;
    for (let i = 0; i < 1 << DICTIONARY_WORD_BITS[11]!; i++) {
      if (new TextDecoder().decode(dictionaryWord(11, i, 0)) === "information") index = i;
    }
    expect(index).toBeGreaterThanOrEqual(0);
    const events = traceDictionaryCandidates(input, {
      quality: 5,
      table: table([
        [11, index, 0],
        [11, index, 6],
      ]),
    });
    expect(events.map((e) => [e.position, e.wordIndex, e.transformId, e.matchLength])).toEqual([[2, index, 6, 12]]);
  });

  it("refuses qualities outside 5-9", () => {
    expectCodecError(() => traceDictionaryCandidates(utf8("hello"), { quality: 4, table: big }), "INVALID_ARGUMENT");
    expectCodecError(() => traceDictionaryCandidates(utf8("hello"), { quality: 10, table: big }), "INVALID_ARGUMENT");
  });
});

describe("preparation", () => {
  it("is done once per isolate: the cache hands back the same prepared structure", () => {
    let loads = 0;
    const load = () => {
      loads++;
      return table([[4, 1, 0]]);
    };
    const a = cachedReducedDictionary("test:once", load);
    const b = cachedReducedDictionary("test:once", load);
    expect(b).toBe(a);
    expect(loads).toBe(1);
    const handle = withHeap("brotli", (heap) => a.handleIn(heap));
    brotliCompress(utf8("some text with time in it"), { quality: 5, reducedDictionary: a });
    expect(withHeap("brotli", (heap) => a.handleIn(heap))).toBe(handle);
  });

  it("all 13,504 words x 10 transforms fit in under 8 MiB of heap", () => {
    expect(big.entries).toBe(135_040);
    expect(big.preparedBytes()).toBeGreaterThan(4 * MiB);
    expect(big.preparedBytes()).toBeLessThan(8 * MiB);
  });

  it("dictionaryWord applies the transforms as RFC 7932 does", () => {
    const time = new TextDecoder().decode(dictionaryWord(4, 0, 0));
    expect(time).toMatch(/^[a-z]{4}$/);
    expect(new TextDecoder().decode(dictionaryWord(4, 0, 9))).toBe(time[0]!.toUpperCase() + time.slice(1));
    expect(new TextDecoder().decode(dictionaryWord(4, 0, 2))).toBe(` ${time} `);
    expect(new TextDecoder().decode(dictionaryWord(4, 0, 21))).toBe(`${time}">`);
    expectCodecError(() => dictionaryWord(4, 1024, 0), "INVALID_ARGUMENT");
    expectCodecError(() => dictionaryWord(4, 0, 121), "INVALID_ARGUMENT");
  });
});
