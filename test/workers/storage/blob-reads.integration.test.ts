/**
 * "A read costs at most two blob reads", counted where it costs: the KV
 * binding. Each revision of a real shared history is located through its
 * PageStore and read with the origin's reader over a `BLOBS` wrapper that
 * counts every call reaching KV, after forgetting the isolate's parsed blobs,
 * so nothing is served from memory. The reader's own `stats.blobReads` is not
 * consulted.
 */
import { env } from "cloudflare:test";
import { describe, expect, inject, it } from "vitest";
import { pageStoreOf } from "../../../src/bindings.ts";
import { sha1Base36 } from "../../../src/lib/digests.ts";
import type { NewRevision } from "../../../src/page/types.ts";
import { clearBlobCache } from "../../../src/storage/blob-cache.ts";
import { BlobStore } from "../../../src/storage/blob-store.ts";
import { readContent } from "../../../src/storage/revision-reader.ts";
import { appendOk } from "../support/archive.ts";

/** `env.BLOBS`, with every read call (get, getWithMetadata, list) recorded by key. */
function countingKv(kv: KVNamespace): { kv: KVNamespace; calls: string[] } {
  const calls: string[] = [];
  const reads = new Set(["get", "getWithMetadata", "list"]);
  const wrapped = new Proxy(kv, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      if (typeof value !== "function") return value;
      if (!reads.has(String(prop))) return value.bind(target);
      return (...args: unknown[]) => {
        calls.push(`${String(prop)} ${typeof args[0] === "string" ? args[0] : JSON.stringify(args[0])}`);
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { kv: wrapped, calls };
}

describe("blob reads per revision read, counted at the KV binding", () => {
  const histories = inject("histories");

  for (const name of ["bip-0340", "bip-0341"]) {
    it.skipIf(!histories[name])(
      `reads every revision of ${name} with at most two KV reads, byte for byte`,
      async () => {
        const exported = histories[name]!;
        // A key of its own: the round-trip test imports the same history under its real title.
        const key = `Blob_reads_${name}`;
        const revisions: NewRevision[] = exported.map((r, i) => ({
          ...r,
          parentId: i === 0 ? null : exported[i - 1]!.id,
        }));
        for (let i = 0; i < revisions.length; i += 64) await appendOk(key, revisions.slice(i, i + 64));
        const store = pageStoreOf(env, key);

        const perRead: number[] = [];
        const records = new Set<string>();
        for (const rev of exported) {
          const found = await store.locate({ kind: "id", id: rev.id });
          if (!found.ok) throw new Error(`locate ${rev.id}: ${found.code} ${found.detail}`);
          const { location } = found;
          clearBlobCache();
          const counted = countingKv(env.BLOBS);
          const { bytes } = await readContent(new BlobStore(counted.kv), location);

          const where = `${name} revision ${rev.id} (record ${location.record})`;
          expect(new TextDecoder().decode(bytes), where).toBe(rev.text);
          expect(await sha1Base36(bytes), where).toBe(rev.sha1);
          // Exactly the blobs the location names, each once: the anchors blob and the record's blob.
          const named = [...new Set([location.anchorsBlob, location.blob])].map((k) => `get ${k}`).sort();
          expect([...counted.calls].sort(), where).toEqual(named);
          expect(counted.calls.length, where).toBeLessThanOrEqual(2);
          perRead.push(counted.calls.length);
          records.add(location.record[0]!);
        }

        expect(perRead).toHaveLength(exported.length);
        // The history exercises every kind of record: anchors, closed groups and the open group's tail.
        expect([...records].sort()).toEqual(["a", "g", "t"]);
        // Most reads need two blobs (a group or tail member and the anchors); anchors need one.
        expect(perRead.filter((n) => n === 2).length).toBeGreaterThan(exported.length / 2);
      },
    );
  }
});
