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

/** The codings an entry may hold, in the order their bodies follow the identity body. */
const CODINGS = ["br", "dcb"] as const;

/** The lengths of the coded bodies that follow the identity body. */
export type CodedLengths = Partial<Record<(typeof CODINGS)[number], number>>;

export type PackedMeta = Omit<Answer, "body" | "encoded"> & { coded?: CodedLengths };

export function packBodies(answer: Answer): { meta: PackedMeta; bytes: Uint8Array } {
  const { body, encoded, ...rest } = answer;
  const parts = CODINGS.flatMap((coding) => (encoded?.[coding] ? [[coding, encoded[coding]] as const] : []));
  if (parts.length === 0) return { meta: rest, bytes: body };
  const bytes = new Uint8Array(body.byteLength + parts.reduce((n, [, b]) => n + b.byteLength, 0));
  bytes.set(body, 0);
  let offset = body.byteLength;
  const coded: CodedLengths = {};
  for (const [coding, b] of parts) {
    bytes.set(b, offset);
    offset += b.byteLength;
    coded[coding] = b.byteLength;
  }
  return { meta: { ...rest, coded }, bytes };
}

/** The answer again; the bodies are views into `bytes`, not copies. */
export function unpackBodies(meta: PackedMeta, bytes: Uint8Array): Answer {
  const { coded, ...rest } = meta;
  const total = CODINGS.reduce((n, coding) => n + (coded?.[coding] ?? 0), 0);
  if (!coded || total > bytes.byteLength) return { ...rest, body: bytes };
  let offset = bytes.byteLength - total;
  const encoded: NonNullable<Answer["encoded"]> = {};
  for (const coding of CODINGS) {
    const length = coded[coding];
    if (length === undefined) continue;
    encoded[coding] = bytes.subarray(offset, offset + length);
    offset += length;
  }
  return { ...rest, body: bytes.subarray(0, bytes.byteLength - total), encoded };
}
