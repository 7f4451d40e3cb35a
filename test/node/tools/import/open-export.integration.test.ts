/**
 * openExport: recognises plain, gzip, brotli and bzip2 exports (by magic
 * bytes first, extension second) and always returns an async-iterable byte
 * stream; a corrupt compressed file is an error, not silence.
 */
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, readdirSync, readlinkSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { detectCompression, openExport } from "../../../../src/tools/import/open-export.ts";
import { commandMissing, itNeeding } from "../../support/requirements.ts";

const TEXT = `<mediawiki version="0.11">${"<page>é 😀 x</page>\n".repeat(20_000)}</mediawiki>\n`;
let dir: string;
/** The .bz2 files are made with the `bzip2` command. */
const NO_BZIP2 = commandMissing("bzip2", ["--help"]);

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "open-export-test-"));
  await writeFile(join(dir, "plain.xml"), TEXT);
  await writeFile(join(dir, "export.xml.gz"), gzipSync(TEXT));
  await writeFile(join(dir, "gzip-named-plain.xml"), gzipSync(TEXT));
  await writeFile(join(dir, "export.xml.br"), brotliCompressSync(TEXT));
  await writeFile(join(dir, "truncated.xml.gz"), gzipSync(TEXT).subarray(0, 200));
  await writeFile(join(dir, "garbage.xml.br"), Buffer.from("this is not brotli at all, no no no"));
  // Barely compressible, so the compressed file is several times the 1 MiB read size.
  const noise = randomBytes(3 << 20).toString("base64");
  await writeFile(join(dir, "large.xml.gz"), gzipSync(noise, { level: 1 }));
  await writeFile(
    join(dir, "large.xml.br"),
    brotliCompressSync(noise, { params: { [constants.BROTLI_PARAM_QUALITY]: 1 } }),
  );
  if (NO_BZIP2 === null) {
    await writeFile(join(dir, "export.xml"), TEXT);
    await promisify(execFile)("bzip2", ["-9", join(dir, "export.xml")]); // → export.xml.bz2
    const bz = await import("node:fs/promises").then((fs) => fs.readFile(join(dir, "export.xml.bz2")));
    await writeFile(join(dir, "bzip2-named.dat"), bz);
    await writeFile(join(dir, "truncated.xml.bz2"), bz.subarray(0, Math.floor(bz.byteLength / 2)));
  }
});

afterAll(() => rm(dir, { recursive: true, force: true }));

async function readAllText(path: string): Promise<{ text: string; raw: number }> {
  let raw = 0;
  const stream = await openExport(path, (n) => (raw += n));
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return { text: Buffer.concat(chunks).toString("utf8"), raw };
}

describe("openExport", () => {
  it.each([
    ["plain.xml", "none"],
    ["export.xml.gz", "gzip"],
    ["gzip-named-plain.xml", "gzip"],
    ["export.xml.br", "brotli"],
  ])("%s is %s and reads back whole", async (name, compression) => {
    const path = join(dir, name);
    expect(await detectCompression(path)).toBe(compression);
    const { text, raw } = await readAllText(path);
    expect(text === TEXT).toBe(true);
    expect(raw).toBeGreaterThan(0);
  });

  itNeeding(
    NO_BZIP2,
    "bzip2, by magic bytes whatever the name, reads back whole as an async iterable",
    {},
    async () => {
      for (const name of ["export.xml.bz2", "bzip2-named.dat"]) {
        const path = join(dir, name);
        expect(await detectCompression(path)).toBe("bzip2");
        const stream = await openExport(path);
        expect(typeof (stream as unknown as AsyncIterable<unknown>)[Symbol.asyncIterator]).toBe("function");
        expect((await readAllText(path)).text === TEXT).toBe(true);
      }
    },
  );

  it.each(["truncated.xml.gz", "garbage.xml.br"])("a corrupt %s is an error", async (name) => {
    await expect(readAllText(join(dir, name))).rejects.toThrow();
  });

  itNeeding(NO_BZIP2, "a truncated .bz2 is an error", {}, async () => {
    await expect(readAllText(join(dir, "truncated.xml.bz2"))).rejects.toThrow();
  });
});

/** How many of this process's file descriptors are open on `path` (Linux). */
function openDescriptorsOf(path: string): number {
  return readdirSync("/proc/self/fd").filter((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`) === path;
    } catch {
      return false;
    }
  }).length;
}

describe("openExport: stopping early", () => {
  it.each(["large.xml.gz", "large.xml.br"])(
    "destroying the %s stream closes the file, without an error",
    async (name) => {
      const stream = await openExport(join(dir, name));
      const uncaught: unknown[] = [];
      const onUncaught = (err: unknown) => uncaught.push(err);
      process.on("uncaughtException", onUncaught);
      try {
        for await (const chunk of stream) {
          expect((chunk as Buffer).byteLength).toBeGreaterThan(0);
          break; // destroys the stream
        }
        await new Promise((r) => setTimeout(r, 50));
        expect(stream.destroyed).toBe(true);
        expect(uncaught).toEqual([]);
        if (existsSync("/proc/self/fd")) expect(openDescriptorsOf(join(dir, name))).toBe(0);
      } finally {
        process.off("uncaughtException", onUncaught);
      }
    },
  );
});
