/**
 * Immutable, content-addressed blobs in the `BLOBS` KV namespace. A key is
 * `blob/<owner>/<SHA-256 of the bytes>`: the hash makes a write idempotent and
 * lets a read prove it got what was asked for; the owner (the page: its
 * shard's Durable Object id and its `pg` there, {@link pageBlobOwner}) gives
 * every page its own key space, so collecting one page's blobs can never
 * take a blob another page still names, even one with the same bytes (see
 * durable-objects/page-store.md, "Collection"). Values over KV's size limit
 * are split into parts listed by a small manifest value.
 */
import { LIMITS } from "../limits.ts";
import { sha256Hex } from "../lib/digests.ts";

export const BLOB_PREFIX = "blob/";
const SPLIT_PREFIX = "split:";

export class BlobMissingError extends Error {
  override readonly name = "BlobMissingError";
}
export class BlobCorruptError extends Error {
  override readonly name = "BlobCorruptError";
}

/**
 * A page's key space: the first 16 hex digits of its shard's Durable Object id (64 bits: two shards
 * of one namespace never share them in practice) and its `pg` in base 36, e.g. `9f3c0a17d2b4e851-1b`.
 */
export function pageBlobOwner(shardId: string, pg: number): string {
  if (!/^[0-9a-f]{16}/.test(shardId)) throw new Error(`shard id ${JSON.stringify(shardId)} is not a hex id`);
  if (!Number.isSafeInteger(pg) || pg < 1) throw new Error(`pg ${pg} is not a page's`);
  return `${shardId.slice(0, 16)}-${pg.toString(36)}`;
}

/** The key `bytes` get in `owner`'s key space. */
export async function blobKeyOf(owner: string, bytes: Uint8Array): Promise<string> {
  if (!/^[0-9a-z-]{1,64}$/.test(owner))
    throw new Error(`blob owner ${JSON.stringify(owner)} is not a short lowercase id`);
  return `${BLOB_PREFIX}${owner}/${await sha256Hex(bytes)}`;
}

/** The SHA-256 a key names, or null if it is not a blob key. */
function hashOf(key: string): string | null {
  return /^blob\/(?:[0-9a-z-]{1,64}\/)?([0-9a-f]{64})$/.exec(key)?.[1] ?? null;
}

export class BlobStore {
  /** @param owner the key space `put` writes to; reads and deletes take whole keys. */
  constructor(
    private readonly kv: KVNamespace,
    private readonly owner?: string,
  ) {}

  /** The key `put` would store `bytes` under. */
  keyOf(bytes: Uint8Array): Promise<string> {
    if (this.owner === undefined) throw new Error("this BlobStore reads only: it was made without an owner");
    return blobKeyOf(this.owner, bytes);
  }

  /** Stores the bytes and returns their key. Parts go first, so the manifest never names a missing part. */
  async put(bytes: Uint8Array): Promise<string> {
    const key = await this.keyOf(bytes);
    const max = LIMITS.storage.kvMaxValueBytes;
    if (bytes.byteLength <= max) {
      await this.kv.put(key, bytes);
      return key;
    }
    const parts: string[] = [];
    for (let off = 0; off < bytes.byteLength; off += max) {
      const part = bytes.subarray(off, off + max);
      const partKey = `${key}.${parts.length}`;
      await this.kv.put(partKey, part);
      parts.push(partKey);
    }
    await this.kv.put(key, new TextEncoder().encode(SPLIT_PREFIX + JSON.stringify(parts)));
    return key;
  }

  /** Reads and verifies a blob; throws rather than return bytes that do not hash to the key. */
  async get(key: string): Promise<Uint8Array> {
    const value = await this.kv.get(key, { type: "arrayBuffer", cacheTtl: LIMITS.storage.kvCacheTtlSeconds });
    if (value === null) throw new BlobMissingError(`blob ${key} is missing from BLOBS`);
    let bytes = new Uint8Array(value);
    if (bytes.byteLength < 1024 && new TextDecoder().decode(bytes.subarray(0, SPLIT_PREFIX.length)) === SPLIT_PREFIX) {
      const parts = JSON.parse(new TextDecoder().decode(bytes.subarray(SPLIT_PREFIX.length))) as string[];
      const chunks = await Promise.all(parts.map((p) => this.kv.get(p, { type: "arrayBuffer" })));
      if (chunks.some((c) => c === null))
        throw new BlobMissingError(`a part of split blob ${key} is missing from BLOBS`);
      const total = chunks.reduce((n, c) => n + c!.byteLength, 0);
      bytes = new Uint8Array(total);
      let off = 0;
      for (const c of chunks) {
        bytes.set(new Uint8Array(c!), off);
        off += c!.byteLength;
      }
    }
    if ((await sha256Hex(bytes)) !== hashOf(key))
      throw new BlobCorruptError(`blob ${key} does not match its content hash`);
    return bytes;
  }

  async delete(key: string): Promise<void> {
    const value = await this.kv.get(key, { type: "arrayBuffer" });
    if (value !== null && value.byteLength < 1024) {
      const text = new TextDecoder().decode(value);
      if (text.startsWith(SPLIT_PREFIX))
        for (const p of JSON.parse(text.slice(SPLIT_PREFIX.length)) as string[]) await this.kv.delete(p);
    }
    await this.kv.delete(key);
  }
}
