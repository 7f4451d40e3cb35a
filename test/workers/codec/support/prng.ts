/**
 * A small seeded PRNG (mulberry32) so codec tests are deterministic and a
 * failure can be replayed from the seed it prints. No dependencies.
 *
 * @example
 * const rand = prng(42);
 * const n = rand.int(0, 300 * 1024);
 * const noise = rand.bytes(n);
 */
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
  let a = seed >>> 0;
  const next = (): number => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
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
