/**
 * Parsed blobs kept in this isolate. Blobs are immutable and named by their
 * hash, so a cached copy can never be stale; keeping the page's anchors blob
 * parsed is what keeps a read's cost flat as a history grows (the blob is
 * fetched, hashed and parsed once, not on every read).
 */
import { Lru } from "../lib/lru.ts";
import { LIMITS } from "../limits.ts";
import { SingleFlight } from "../lib/single-flight.ts";
import { decodeBlob, type ParsedBlob } from "./blob-format.ts";
import type { BlobStore } from "./blob-store.ts";

const cache = new Lru<string, { blob: ParsedBlob; bytes: number }>(LIMITS.storage.blobCacheBytes, (e) => e.bytes);
/** Reads in flight, by key: concurrent reads of one blob share one fetch and parse. */
const reads = new SingleFlight<string, ParsedBlob>();

export const blobCacheStats = { hits: 0, fetches: 0 };

export async function parsedBlob(store: BlobStore, key: string): Promise<ParsedBlob> {
  const hit = cache.get(key);
  if (hit) {
    blobCacheStats.hits++;
    return hit.blob;
  }
  return reads.run(key, async () => {
    const bytes = await store.get(key);
    blobCacheStats.fetches++;
    const blob = decodeBlob(bytes);
    if (bytes.byteLength <= LIMITS.storage.blobCacheBytes / 4) cache.set(key, { blob, bytes: bytes.byteLength });
    return blob;
  });
}

/** Forgets every parsed blob (tests that must see KV's real state). */
export function clearBlobCache(): void {
  cache.clear();
}
