/**
 * The output cap every decoder takes as `maxOutputBytes`, checked in one
 * place: an integer from 0 to LIMITS.codec.maxOutputBytes, which is also the
 * default. Callers may lower the cap, never raise it.
 *
 * @example
 * const cap = resolveOutputCap(options.maxOutputBytes); // throws INVALID_ARGUMENT if out of range
 * const budget = new OutputBudget(cap, "brotli");
 * budget.spend(chunk.byteLength);                          // throws OUTPUT_LIMIT past the cap
 */
import { CodecError, invalidArgument } from "./errors.ts";
import { LIMITS } from "../limits.ts";

export interface OutputCapOptions {
  /** Refuse to produce more than this many bytes. Default and ceiling: LIMITS.codec.maxOutputBytes. */
  maxOutputBytes?: number;
}

export function resolveOutputCap(maxOutputBytes: number | undefined): number {
  const cap = maxOutputBytes ?? LIMITS.codec.maxOutputBytes;
  if (!Number.isInteger(cap) || cap < 0 || cap > LIMITS.codec.maxOutputBytes) {
    throw invalidArgument(
      `maxOutputBytes must be an integer 0..${LIMITS.codec.maxOutputBytes} (codec.maxOutputBytes), got ${cap}`,
    );
  }
  return cap;
}

/** A decoder's output so far, against its cap: the first byte past it is an OUTPUT_LIMIT naming the cap. */
export class OutputBudget {
  #spent = 0;

  constructor(
    readonly cap: number,
    readonly what: string,
  ) {}

  get spent(): number {
    return this.#spent;
  }

  spend(bytes: number): void {
    if (this.#spent + bytes > this.cap)
      throw new CodecError("OUTPUT_LIMIT", `${this.what} output exceeds the ${this.cap}-byte cap`);
    this.#spent += bytes;
  }
}
