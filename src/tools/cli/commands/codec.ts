/**
 * `palimpsest codec compress|decompress`: stdin to stdout through the same
 * wasm codecs the Worker runs. brotli and gzip stream; the LZ4 formats and
 * dcb need the whole input.
 *
 * `--static-dict html|css|js` compresses with that content type's reduced
 * static dictionary, as the edge does for dynamic responses (br only, at
 * qualities 5-9, default 5); any brotli decoder reads the output.
 *
 * @example
 * npx palimpsest codec compress --codec lz4-frame < a.txt | lz4 -d > a2.txt
 * npx palimpsest codec compress --codec br --static-dict html < page.html | brotli -d
 */
import { readFileSync } from "node:fs";
import { errorMessage } from "../../../lib/errors.ts";
import { Command, Option } from "commander";
import "../../../codec/install-node.ts";
import {
  BrotliDecoder,
  BrotliDictionary,
  BrotliEncoder,
  REDUCED_DICTIONARY_QUALITIES,
  dcbCompress,
  dcbDecompress,
  gzipCompress,
  gzipDecompress,
  lz4Compress,
  lz4Decompress,
  lz4FrameCompress,
  lz4FrameDecompress,
} from "../../../codec/index.ts";
import { reducedDictionary, STATIC_DICT_TYPES, type StaticDictType } from "../../../codec/dict/static-dict.ts";
import { LIMITS } from "../../../limits.ts";
import { UsageError, parseIntOption, readAll, writeOut } from "../../local/output.ts";

const CODECS = ["br", "lz4", "lz4-frame", "gzip", "dcb"] as const;
type CodecName = (typeof CODECS)[number];

interface CodecFlags {
  codec: CodecName;
  quality?: number;
  lgwin?: number;
  largeWindow?: boolean;
  dict?: string;
  staticDict?: StaticDictType;
  maxOutput?: number;
}

const QUALITY_RANGE: Record<CodecName, [number, number, number]> = {
  // [min, max, default]; brotli's default matches the `brotli` tool's.
  br: [0, 11, 11],
  dcb: [0, 11, 11],
  lz4: [0, 12, 0],
  "lz4-frame": [0, 12, 0],
  gzip: [0, 9, 6],
};

/** The qualities at which the encoder searches a reduced static dictionary (it ignores one elsewhere). */
const STATIC_DICT_QUALITY = {
  min: REDUCED_DICTIONARY_QUALITIES.min,
  max: REDUCED_DICTIONARY_QUALITIES.max,
  fallback: LIMITS.wire.dynamicBrotliQuality,
};

function checkFlags(flags: CodecFlags): { quality: number; dict?: Uint8Array } {
  const [min, max, fallback] = QUALITY_RANGE[flags.codec];
  if (flags.staticDict !== undefined) {
    if (flags.codec !== "br") throw new UsageError(`--static-dict applies only to --codec br, not ${flags.codec}`);
    const q = flags.quality;
    if (q !== undefined && (q < STATIC_DICT_QUALITY.min || q > STATIC_DICT_QUALITY.max)) {
      throw new UsageError(
        `--static-dict needs --quality ${STATIC_DICT_QUALITY.min}..${STATIC_DICT_QUALITY.max} (brotli ignores a reduced dictionary elsewhere), got ${q}`,
      );
    }
  }
  const quality = flags.quality ?? (flags.staticDict !== undefined ? STATIC_DICT_QUALITY.fallback : fallback);
  if (quality < min || quality > max)
    throw new UsageError(`--quality for ${flags.codec} must be ${min}..${max}, got ${quality}`);
  const brotliFamily = flags.codec === "br" || flags.codec === "dcb";
  if (flags.lgwin !== undefined && !brotliFamily) throw new UsageError(`--lgwin applies only to br and dcb`);
  if (flags.largeWindow && flags.codec !== "br") throw new UsageError(`--large-window applies only to br`);
  if (flags.lgwin !== undefined && flags.lgwin > LIMITS.codec.brotliMaxLgwin && !flags.largeWindow) {
    throw new UsageError(`--lgwin above ${LIMITS.codec.brotliMaxLgwin} needs --large-window (not valid for HTTP)`);
  }
  if (flags.dict !== undefined && !brotliFamily) throw new UsageError(`--dict applies only to br and dcb`);
  if (flags.codec === "dcb" && flags.dict === undefined) throw new UsageError(`--codec dcb needs --dict FILE`);
  let dict: Uint8Array | undefined;
  if (flags.dict !== undefined) {
    try {
      dict = readFileSync(flags.dict);
    } catch (err) {
      throw new UsageError(`cannot read --dict ${flags.dict}: ${errorMessage(err)}`);
    }
  }
  return { quality, dict };
}

async function compress(flags: CodecFlags): Promise<void> {
  const { quality, dict } = checkFlags(flags);
  const dictionary = dict ? new BrotliDictionary(dict) : undefined;
  switch (flags.codec) {
    case "br": {
      const reduced = flags.staticDict === undefined ? undefined : reducedDictionary(flags.staticDict);
      const enc = new BrotliEncoder({
        quality,
        lgwin: flags.lgwin ?? 24,
        largeWindow: flags.largeWindow,
        dictionary,
        reducedDictionary: reduced,
      });
      for await (const chunk of process.stdin) for (const part of enc.push(chunk as Buffer)) await writeOut(part);
      for (const part of enc.finish()) await writeOut(part);
      return;
    }
    case "dcb":
      return writeOut(
        await dcbCompress(await readAll(process.stdin), dictionary!, { quality, lgwin: flags.lgwin ?? 24 }),
      );
    case "gzip":
      return writeOut(gzipCompress(await readAll(process.stdin), { level: quality }));
    case "lz4":
      return writeOut(lz4Compress(await readAll(process.stdin), { level: quality }));
    case "lz4-frame":
      return writeOut(lz4FrameCompress(await readAll(process.stdin), { level: quality }));
  }
}

async function decompress(flags: CodecFlags): Promise<void> {
  const { dict } = checkFlags(flags);
  const maxOutputBytes = flags.maxOutput ?? LIMITS.codec.maxOutputBytes;
  switch (flags.codec) {
    case "br": {
      const dec = new BrotliDecoder({ maxOutputBytes, dictionary: dict, largeWindow: flags.largeWindow });
      for await (const chunk of process.stdin) for (const part of dec.push(chunk as Buffer)) await writeOut(part);
      dec.finish();
      return;
    }
    case "dcb":
      return writeOut(await dcbDecompress(await readAll(process.stdin), dict!, { maxOutputBytes }));
    case "gzip":
      return writeOut(gzipDecompress(await readAll(process.stdin), { maxOutputBytes }));
    case "lz4":
      return writeOut(lz4Decompress(await readAll(process.stdin), { maxOutputBytes }));
    case "lz4-frame":
      return writeOut(lz4FrameDecompress(await readAll(process.stdin), { maxOutputBytes }));
  }
}

function withCodecOptions(cmd: Command): Command {
  return cmd
    .addOption(new Option("--codec <codec>", "codec").choices(CODECS).makeOptionMandatory())
    .option(
      "--quality <n>",
      "level: br/dcb 0-11 (11), lz4 0-12 (0 = fast, 1-12 = HC), gzip 0-9 (6)",
      parseIntOption("quality", 0, 12),
    )
    .option("--lgwin <n>", "brotli window, log2 (10-24; up to 30 with --large-window)", parseIntOption("lgwin", 10, 30))
    .option("--large-window", "brotli large-window streams (NOT valid for HTTP)")
    .option("--dict <file>", "raw prefix dictionary (br, dcb)");
}

export function registerCodecCommands(program: Command): void {
  const codec = program
    .command("codec")
    .description("compress or decompress stdin to stdout with the archive's codecs");
  withCodecOptions(codec.command("compress").description("compress stdin to stdout"))
    .addOption(
      new Option(
        "--static-dict <type>",
        "br only: search this content type's reduced static dictionary (quality 5-9, default 5)",
      ).choices(STATIC_DICT_TYPES),
    )
    .action((flags: CodecFlags) => compress(flags));
  withCodecOptions(codec.command("decompress").description("decompress stdin to stdout"))
    .option(
      "--max-output <bytes>",
      "refuse to decode more than this",
      parseIntOption("max-output", 0, LIMITS.codec.maxOutputBytes),
    )
    .action((flags: CodecFlags) => decompress(flags));
}
