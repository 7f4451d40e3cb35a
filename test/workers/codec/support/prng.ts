/**
 * The project's seeded PRNG (`src/lib/mulberry32.ts`) with the draws the
 * codec tests need, so they are deterministic and a failure can be replayed
 * from the seed it prints.
 *
 * @example
 * const rand = prng(42);
 * const n = rand.int(0, 300 * 1024);
 * const noise = rand.bytes(n);
 */
import { mulberry32 } from "../../../../src/lib/mulberry32.ts";

export interface Prng {
  readonly seed: number;
  /** Uniform in [0, 1). */
  next(): number;
  /** Uniform integer in [min, max], both ends included. */
  int(min: number, max: number): number;
  pick<T>(items: readonly T[]): T;
  bytes(length: number): Uint8Array;
}

export function prng(seed: number): Prng {
  const next = mulberry32(seed);
  return {
    seed,
    next,
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    pick: (items) => items[Math.floor(next() * items.length)]!,
    bytes(length) {
      const out = new Uint8Array(length);
      for (let i = 0; i < length; i += 4) {
        const word = (next() * 4294967296) >>> 0;
        out[i] = word;
        if (i + 1 < length) out[i + 1] = word >>> 8;
        if (i + 2 < length) out[i + 2] = word >>> 16;
        if (i + 3 < length) out[i + 3] = word >>> 24;
      }
      return out;
    },
  };
}
