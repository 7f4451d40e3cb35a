/**
 * The output cap every decoder takes as `maxOutputBytes`, checked in one
 * place: an integer from 0 to LIMITS.codec.maxOutputBytes, which is also the
 * default. Callers may lower the cap, never raise it.
 *
 * @example
 * const cap = resolveOutputCap(options.maxOutputBytes); // throws INVALID_ARGUMENT if out of range
 */
import { invalidArgument } from "./errors.ts";
import { LIMITS } from "../limits.ts";

export interface OutputCapOptions {
  /** Refuse to produce more than this many bytes. Default and ceiling: LIMITS.codec.maxOutputBytes. */
  maxOutputBytes?: number;
}

export function resolveOutputCap(maxOutputBytes: number | undefined): number {
  const cap = maxOutputBytes ?? LIMITS.codec.maxOutputBytes;
  if (!Number.isInteger(cap) || cap < 0 || cap > LIMITS.codec.maxOutputBytes) {
    throw invalidArgument(`maxOutputBytes must be an integer 0..${LIMITS.codec.maxOutputBytes} (codec.maxOutputBytes), got ${cap}`);
  }
  return cap;
}
