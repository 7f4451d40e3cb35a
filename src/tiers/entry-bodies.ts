/**
 * An answer's bodies as one byte string for a tier to store: the identity
 * body, then each coded body ({@link Answer.encoded}), whose lengths travel
 * in the entry's metadata. One string, so a tier stores, LZ4-packs, evicts
 * and purges a revision and its br body together; an entry written before
 * coded bodies existed simply has none.
 *
 * @example
 * const { meta, bytes } = packBodies(answer);     // store both
 * const same = unpackBodies(meta, bytes);          // answer.encoded?.br restored
 */
import type { Answer } from "../origin/answer.ts";

/** The lengths of the coded bodies that follow the identity body. */
export interface CodedLengths {
  br?: number;
}

export type PackedMeta = Omit<Answer, "body" | "encoded"> & { coded?: CodedLengths };

export function packBodies(answer: Answer): { meta: PackedMeta; bytes: Uint8Array } {
  const { body, encoded, ...rest } = answer;
  const br = encoded?.br;
  if (!br) return { meta: rest, bytes: body };
  const bytes = new Uint8Array(body.byteLength + br.byteLength);
  bytes.set(body, 0);
  bytes.set(br, body.byteLength);
  return { meta: { ...rest, coded: { br: br.byteLength } }, bytes };
}

/** The answer again; the bodies are views into `bytes`, not copies. */
export function unpackBodies(meta: PackedMeta, bytes: Uint8Array): Answer {
  const { coded, ...rest } = meta;
  const brLength = coded?.br;
  if (brLength === undefined || brLength > bytes.byteLength) return { ...rest, body: bytes };
  const split = bytes.byteLength - brLength;
  return { ...rest, body: bytes.subarray(0, split), encoded: { br: bytes.subarray(split) } };
}

