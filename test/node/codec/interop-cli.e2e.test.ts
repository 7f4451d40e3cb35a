/**
 * Interop with the reference command-line tools (Debian brotli 1.0.9,
 * lz4 1.9.4, GNU gzip) on real corpus files, in both directions, through the
 * library API and through `palimpsest codec`; plus the CLI's error contract:
 * exit 1 with one `palimpsest: ...` line on bad input, exit 2 on bad usage.
 */
import "../../../src/codec/install-node.ts";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  brotliCompress,
  brotliDecompress,
  dcbDecompress,
  gzipCompress,
  gzipDecompress,
  lz4Decompress,
  lz4FrameCompress,
  lz4FrameDecompress,
} from "../../../src/codec/index.ts";
import { describeNeeding, firstMissing } from "../support/requirements.ts";
import { scratchDirForThisFile } from "../support/scratch.ts";
import { NO_CORPUS, NO_TOOLS, historyExcerpt, palimpsest, tool, webSample, type CorpusFile } from "./support/corpus.ts";

const missing = firstMissing(NO_CORPUS, NO_TOOLS);
const ready = missing === null;

function expectSame(actual: Uint8Array, expected: Uint8Array, what: string): void {
  expect(actual.byteLength, `${what}: length`).toBe(expected.byteLength);
  expect(
    Buffer.compare(
      Buffer.from(actual.buffer, actual.byteOffset, actual.byteLength),
      Buffer.from(expected.buffer, expected.byteOffset, expected.byteLength),
    ),
    `${what}: bytes`,
  ).toBe(0);
}

describeNeeding(missing, "reference tools <-> library API on corpus files", () => {
  const files: CorpusFile[] = ready ? [...webSample(), historyExcerpt()] : [];

  it("samples 15 web files and a 2 MB history excerpt", () => {
    expect(files).toHaveLength(16);
    expect(Math.min(...files.map((f) => f.bytes.byteLength))).toBeLessThan(4096);
    expect(Math.max(...files.slice(0, 15).map((f) => f.bytes.byteLength))).toBeGreaterThan(200_000);
  });

  it("our brotli at q5/lgwin 22 (all files), q9/lgwin 24 (history) and q11 (files under 64 KB) decodes with `brotli -d`", async () => {
    // interop-node-zlib.test.ts covers every file at every setting against Node's decoder; this is the CLI's view.
    const jobs = files.flatMap((f) =>
      [
        { quality: 5, lgwin: 22 },
        { quality: 9, lgwin: 24 },
        { quality: 11, lgwin: 24 },
      ]
        .filter((o) => o.quality === 5 || (o.quality === 9 ? f === files.at(-1) : f.bytes.byteLength < 64_000))
        .map(async (options) => {
          expectSame(
            await tool("brotli", ["-d", "-c"], brotliCompress(f.bytes, options)),
            f.bytes,
            `${f.name} q${options.quality}`,
          );
        }),
    );
    await Promise.all(jobs);
  }, 60_000);

  it("`brotli -c` output at q1, q6 and the default q11 decodes with ours", async () => {
    const jobs = files.flatMap((f) =>
      ["1", "6", "11"].map(async (q) => {
        expectSame(
          brotliDecompress(await tool("brotli", ["-c", "-q", q], f.bytes)),
          f.bytes,
          `${f.name} brotli -q ${q}`,
        );
      }),
    );
    await Promise.all(jobs);
  }, 60_000);

  it("`brotli --large_window=26` output decodes with ours in large-window mode only", async () => {
    const f = files.at(-1)!;
    const packed = await tool("brotli", ["-c", "-q", "5", "--large_window=26"], f.bytes);
    expectSame(brotliDecompress(packed, { largeWindow: true }), f.bytes, f.name);
    expect(() => brotliDecompress(packed)).toThrow(expect.objectContaining({ code: "CORRUPT_INPUT" }));
  });

  it("our LZ4 frames (fast and HC 9) decode with `lz4 -d`", async () => {
    const jobs = files.flatMap((f) =>
      [0, 9].map(async (level) => {
        expectSame(
          await tool("lz4", ["-d", "-c"], lz4FrameCompress(f.bytes, { level })),
          f.bytes,
          `${f.name} level ${level}`,
        );
      }),
    );
    await Promise.all(jobs);
  });

  it("`lz4 -c` frames (default, -9, linked -BD, block checksums -BX, 64 KiB blocks -B4) decode with ours", async () => {
    const jobs = files.flatMap((f) =>
      [[], ["-9"], ["-BD"], ["-BX"], ["-B4", "-BD"]].map(async (flags) => {
        expectSame(
          lz4FrameDecompress(await tool("lz4", ["-c", ...flags], f.bytes)),
          f.bytes,
          `${f.name} lz4 ${flags.join(" ")}`,
        );
      }),
    );
    await Promise.all(jobs);
  });

  // A linked 4 MiB block bigger than about 1.5 MiB used to trap LZ4F_decompress
  // in wasm (see lz4.unit.test.ts).
  it("`lz4 -BD` output of a 6 MB history excerpt decodes with ours", async () => {
    const big = historyExcerpt(6_000_000).bytes;
    expectSame(lz4FrameDecompress(await tool("lz4", ["-c", "-BD"], big)), big, "6 MB lz4 -BD");
  });

  // The same case from the command line: the CLI reads back its own default
  // lz4-frame output of a few MB.
  it("`palimpsest codec` decompresses its own lz4-frame output of a 6 MB file", async () => {
    const big = historyExcerpt(6_000_000).bytes;
    const packed = await palimpsest(["codec", "compress", "--codec", "lz4-frame"], big);
    expect(packed.status, packed.stderr).toBe(0);
    const back = await palimpsest(["codec", "decompress", "--codec", "lz4-frame"], packed.stdout);
    expect(back.stderr).toBe("");
    expectSame(back.stdout, big, "6 MB lz4-frame via the CLI");
  }, 60_000);

  it("our gzip decodes with `gzip -d`, and `gzip -c` at levels 1, 6 and 9 decodes with ours", async () => {
    const jobs = files.flatMap((f) => [
      (async () =>
        expectSame(await tool("gzip", ["-d", "-c"], gzipCompress(f.bytes)), f.bytes, `${f.name} ours -> gzip -d`))(),
      ...["-1", "-6", "-9"].map(async (level) => {
        expectSame(
          gzipDecompress(await tool("gzip", ["-c", level], f.bytes)),
          f.bytes,
          `${f.name} gzip ${level} -> ours`,
        );
      }),
    ]);
    await Promise.all(jobs);
  });
});

describeNeeding(missing, "reference tools <-> `palimpsest codec` CLI", () => {
  const history = ready ? historyExcerpt() : { name: "", bytes: new Uint8Array(0) };
  const page = ready ? webSample()[2]! : history;
  const dir = scratchDirForThisFile("palimpsest-cli-");

  it("compresses to streams the reference tools decode (br, lz4-frame, gzip)", async () => {
    const cases = [
      { args: ["--codec", "br", "--quality", "5"], decode: ["brotli", "-d", "-c"] },
      { args: ["--codec", "br"], decode: ["brotli", "-d", "-c"] }, // default q11, lgwin 24, as `brotli`
      { args: ["--codec", "lz4-frame", "--quality", "9"], decode: ["lz4", "-d", "-c"] },
      { args: ["--codec", "gzip"], decode: ["gzip", "-d", "-c"] },
    ];
    await Promise.all(
      cases.map(async ({ args, decode }) => {
        const input = args.includes("br") && !args.includes("--quality") ? page.bytes : history.bytes;
        const out = await palimpsest(["codec", "compress", ...args], input);
        expect(out.status, out.stderr).toBe(0);
        expect(out.stderr).toBe("");
        expectSame(await tool(decode[0]!, decode.slice(1), out.stdout), input, args.join(" "));
      }),
    );
  }, 60_000);

  it("decompresses what the reference tools wrote (br, lz4-frame, gzip)", async () => {
    const cases = [
      { encode: ["brotli", "-c", "-q", "9"], args: ["--codec", "br"] },
      { encode: ["lz4", "-c", "-BD", "-BX"], args: ["--codec", "lz4-frame"] },
      { encode: ["gzip", "-c", "-9"], args: ["--codec", "gzip"] },
    ];
    await Promise.all(
      cases.map(async ({ encode, args }) => {
        const packed = await tool(encode[0]!, encode.slice(1), history.bytes);
        const out = await palimpsest(["codec", "decompress", ...args], packed);
        expect(out.status, out.stderr).toBe(0);
        expectSame(out.stdout, history.bytes, encode.join(" "));
      }),
    );
  }, 60_000);

  it("round-trips the LZ4 block and dcb formats, which only we speak, and agrees with the library", async () => {
    const dictPath = join(dir, "dict.html");
    writeFileSync(dictPath, page.bytes);
    const revision = Buffer.concat([page.bytes, Buffer.from("<p>one more paragraph</p>\n")]);
    const [lz4Out, dcbOut] = await Promise.all([
      palimpsest(["codec", "compress", "--codec", "lz4", "--quality", "9"], history.bytes),
      palimpsest(["codec", "compress", "--codec", "dcb", "--dict", dictPath, "--quality", "9"], revision),
    ]);
    expect(lz4Out.status, lz4Out.stderr).toBe(0);
    expect(dcbOut.status, dcbOut.stderr).toBe(0);
    expectSame(lz4Decompress(lz4Out.stdout), history.bytes, "lz4 block, library decode");
    expectSame(await dcbDecompress(dcbOut.stdout, page.bytes), revision, "dcb, library decode");
    expect(dcbOut.stdout.byteLength).toBeLessThan(200);
    const [lz4Back, dcbBack] = await Promise.all([
      palimpsest(["codec", "decompress", "--codec", "lz4"], lz4Out.stdout),
      palimpsest(["codec", "decompress", "--codec", "dcb", "--dict", dictPath], dcbOut.stdout),
    ]);
    expectSame(lz4Back.stdout, history.bytes, "lz4 block, CLI decode");
    expectSame(dcbBack.stdout, revision, "dcb, CLI decode");
  }, 60_000);
});

describe("`palimpsest codec` error contract", () => {
  const garbage = Buffer.from("this is not compressed data, just some text that goes on for a while".repeat(4));

  it("exits 1 with a single `palimpsest: ...` line on stderr for garbage input, for every codec", async () => {
    const results = await Promise.all(
      ["br", "lz4", "lz4-frame", "gzip"].map(async (codec) => ({
        codec,
        ...(await palimpsest(["codec", "decompress", "--codec", codec], garbage)),
      })),
    );
    for (const { codec, status, stderr, stdout } of results) {
      expect(status, `${codec}: ${stderr}`).toBe(1);
      expect(stderr, codec).toMatch(/^palimpsest: [^\n]+\n$/);
      if (codec !== "br") expect(stdout.byteLength, `${codec} wrote nothing`).toBe(0);
    }
  }, 60_000);

  it("names the limit it hit when the output passes --max-output", async () => {
    const packed = brotliCompress(new Uint8Array(1 << 20));
    const out = await palimpsest(["codec", "decompress", "--codec", "br", "--max-output", "1000"], packed);
    expect(out.status).toBe(1);
    expect(out.stderr).toMatch(/^palimpsest: output limit: .*1000-byte cap\n$/);
  });

  it("exits 2 on bad usage: --quality 99, --quality 12 for br, --dict with lz4, dcb without --dict", async () => {
    const results = await Promise.all(
      [
        ["codec", "compress", "--codec", "br", "--quality", "99"],
        ["codec", "compress", "--codec", "br", "--quality", "12"],
        ["codec", "compress", "--codec", "lz4", "--dict", "package.json"],
        ["codec", "compress", "--codec", "dcb"],
      ].map(async (args) => ({ args, ...(await palimpsest(args, Buffer.from("x"))) })),
    );
    for (const { args, status, stderr } of results) {
      expect(status, `${args.join(" ")}: ${stderr}`).toBe(2);
      expect(stderr, args.join(" ")).toMatch(/^palimpsest: [^\n]+\n$/);
    }
  }, 60_000);

  // commander's own parse errors exit 1 by default; src/tools/cli/main.ts maps them
  // to 2, so an unknown codec, an unknown flag or a missing --codec are bad usage.
  it("exits 2 on usage errors commander catches: unknown codec, unknown flag, missing --codec", async () => {
    const results = await Promise.all(
      [
        ["codec", "compress", "--codec", "zstd"],
        ["codec", "compress", "--codec", "br", "--bogus"],
        ["codec", "compress"],
      ].map(async (args) => ({ args, out: await palimpsest(args, Buffer.from("x")) })),
    );
    for (const { args, out } of results) expect(out.status, `${args.join(" ")}: ${out.stderr}`).toBe(2);
  }, 60_000);

  it("exits 2 for --lgwin above 24 without --large-window, and 0 for --help and --version", async () => {
    const results = await Promise.all(
      [
        { args: ["codec", "compress", "--codec", "br", "--lgwin", "25"], status: 2 },
        { args: ["codec", "compress", "--codec", "gzip", "--large-window"], status: 2 },
        { args: ["--help"], status: 0 },
        { args: ["--version"], status: 0 },
        { args: ["codec", "compress", "--help"], status: 0 },
        { args: ["help", "bench"], status: 0 },
        {
          args: ["codec", "compress", "--codec", "br", "--lgwin", "25", "--large-window", "--quality", "5"],
          status: 0,
        },
      ].map(async (c) => ({ ...c, out: await palimpsest(c.args, Buffer.from("x")) })),
    );
    for (const { args, status, out } of results) {
      expect(out.status, `${args.join(" ")}: ${out.stderr}`).toBe(status);
      if (status === 2) expect(out.stderr, args.join(" ")).toMatch(/^palimpsest: [^\n]+\n$/);
    }
    const help = results.find((r) => r.args[0] === "--help")!.out.stdout.toString();
    for (const command of ["dev", "codec", "import", "bench"])
      expect(help).toMatch(new RegExp(`^  ${command}\\b`, "m"));
    // `help bench` loads the bench commands, which `--help` leaves unloaded.
    expect(results.find((r) => r.args[0] === "help")!.out.stdout.toString()).toMatch(/codecs/);
  }, 60_000);
});
