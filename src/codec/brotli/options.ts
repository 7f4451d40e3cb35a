/**
 * brotli encoder settings, validated once. Defaults are the wire settings for
 * dynamic responses: mid quality, 4 MiB window.
 */
import { invalidArgument } from "../errors.ts";
import { LIMITS } from "../../limits.ts";
import type { DictionaryInput } from "./dictionary.ts";
import type { ReducedDictionary } from "./reduced-dictionary.ts";

export type BrotliMode = "generic" | "text" | "font";

export interface BrotliCompressOptions {
  /** 0 (fastest) to 11 (smallest). Default 5. */
  quality?: number;
  /** log2 of the window, 10 to 24. Default 22. */
  lgwin?: number;
  /**
   * Large-window brotli (lgwin up to 30). NOT FOR HTTP: browsers and the
   * `br` content coding reject it. Only for storage read back by us.
   */
  largeWindow?: boolean;
  /** Expected input size; lets the encoder size its tables. */
  sizeHint?: number;
  /** Tunes the encoder's literal modelling. Default "generic". */
  mode?: BrotliMode;
  /** Raw prefix dictionary the stream may refer back into. */
  dictionary?: DictionaryInput;
  /**
   * A prepared reduced static dictionary (see reduced-dictionary.ts) the
   * encoder searches at qualities 5-9 where LZ77 finds nothing good;
   * ignored at other qualities. Output stays standard brotli.
   */
  reducedDictionary?: ReducedDictionary;
}

export interface ResolvedBrotliOptions {
  quality: number;
  lgwin: number;
  largeWindow: boolean;
  sizeHint: number;
  mode: number;
}

export const BROTLI_DEFAULTS = { quality: 5, lgwin: 22 } as const;
const MODES: Record<BrotliMode, number> = { generic: 0, text: 1, font: 2 };

export function resolveBrotliOptions(options: BrotliCompressOptions): ResolvedBrotliOptions {
  const quality = options.quality ?? BROTLI_DEFAULTS.quality;
  const largeWindow = options.largeWindow ?? false;
  const lgwin = options.lgwin ?? BROTLI_DEFAULTS.lgwin;
  const maxLgwin = largeWindow ? LIMITS.codec.brotliMaxLargeLgwin : LIMITS.codec.brotliMaxLgwin;
  if (!Number.isInteger(quality) || quality < 0 || quality > 11) {
    throw invalidArgument(`brotli quality must be an integer 0..11, got ${quality}`);
  }
  if (!Number.isInteger(lgwin) || lgwin < 10 || lgwin > maxLgwin) {
    throw invalidArgument(
      `brotli lgwin must be an integer 10..${maxLgwin}${largeWindow ? "" : " (set largeWindow for up to 30, not for HTTP)"}, got ${lgwin}`,
    );
  }
  const sizeHint = options.sizeHint ?? 0;
  if (!Number.isInteger(sizeHint) || sizeHint < 0)
    throw invalidArgument(`brotli sizeHint must be a non-negative integer, got ${sizeHint}`);
  const mode = MODES[options.mode ?? "generic"];
  if (mode === undefined)
    throw invalidArgument(`brotli mode must be generic, text or font, got ${String(options.mode)}`);
  // The encoder clamps the hint to 2^30; so do we, to keep it in an i32.
  return { quality, lgwin, largeWindow, sizeHint: Math.min(sizeHint, 1 << 30), mode };
}
