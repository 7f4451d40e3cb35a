import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { LIMITS } from "../../../src/limits.ts";
import { BlobCorruptError, BlobMissingError, BlobStore } from "../../../src/storage/blob-store.ts";

describe("blob store", () => {
  const store = new BlobStore(env.BLOBS, "unit-test-owner");

  it("splits a value over KV's size limit into parts and reads it back whole", async () => {
    const size = LIMITS.storage.kvMaxValueBytes + 1234;
    const bytes = new Uint8Array(size);
    for (let i = 0; i < size; i += 4096) bytes[i] = (i / 4096) & 0xff;
    const key = await store.put(bytes);
    expect(await env.BLOBS.get(`${key}.1`, "arrayBuffer")).not.toBeNull();
    const back = await store.get(key);
    expect(back.byteLength).toBe(size);
    expect(back[size - 1234 - ((size - 1234) % 4096)]).toBe(bytes[size - 1234 - ((size - 1234) % 4096)]);
    await store.delete(key);
    expect(await env.BLOBS.get(`${key}.0`, "arrayBuffer")).toBeNull();
  });

  it("is content-addressed: the same bytes give the same key, and tampering is detected", async () => {
    const a = await store.put(new TextEncoder().encode("same"));
    expect(await store.put(new TextEncoder().encode("same"))).toBe(a);
    await env.BLOBS.put(a, "other");
    await expect(store.get(a)).rejects.toBeInstanceOf(BlobCorruptError);
    await expect(store.get(`blob/unit-test-owner/${"0".repeat(64)}`)).rejects.toBeInstanceOf(BlobMissingError);
  });

  it("keeps owners apart: the same bytes get a key in each owner's space", async () => {
    const bytes = new TextEncoder().encode("shared by two pages");
    const a = await store.put(bytes);
    const b = await new BlobStore(env.BLOBS, "other-owner").put(bytes);
    expect(a).not.toBe(b);
    expect(a.slice(-64)).toBe(b.slice(-64));
    await store.delete(a);
    expect(await new BlobStore(env.BLOBS).get(b)).toEqual(bytes);
  });
});
