/**
 * What one more small page costs the archive: a page with one revision of
 * {@link ONE_REVISION_BYTES} bytes of wikitext, written after a whole wiki is
 * in, counted as the growth of everything the local Worker stores, read with
 * the Worker stopped before and after the write:
 * - every Durable Object's SQLite database, by class (Miniflare keeps each
 *   class's in a folder `<worker>-<Class>` of its state), each counted as its
 *   database's size (sqlite-files.ts: what `ctx.storage.sql.databaseSize`
 *   says, its write-ahead log included), not its files';
 * - every value in KV (Miniflare keeps each as a file of its namespace's
 *   `blobs/`).
 * Miniflare's own bookkeeping (its `metadata.sqlite` per class, its KV
 * namespaces' key databases) is not counted: production has no such files.
 *
 * The growth is split into the page's own database and blobs as the archive
 * reports them (`GET /api/pages/{key}/stats`: metadataBytes, blobBytes), the
 * PageDirectory's databases (every title has an entry there), and the rest
 * (other Durable Objects a write touches, e.g. purge queues).
 *
 * @example
 * const before = await storedState(persistDir);
 * await importHistory(client, key, [oneRevision(nextId)]);
 * const growth = stateGrowth(before, await storedState(persistDir)); // { totalBytes, byClass }
 */
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { generateDemoPage } from "../../demo/history-generator.ts";
import { sqliteDatabaseBytes } from "../../local/sqlite-files.ts";
import type { NewRevision } from "../../../page/types.ts";

export const ONE_REVISION_PAGE_TITLE = "Palimpsest bench one-revision page";
export const ONE_REVISION_BYTES = 1024;

/** The page's one revision: the start of a generated demo page's text (wikitext), cut to exactly 1,024 bytes. */
export function oneRevision(id: number): Omit<NewRevision, "parentId"> {
  const demo = generateDemoPage(ONE_REVISION_PAGE_TITLE, 1, 1, id).revisions[0]!;
  let text = demo.text;
  while (Buffer.byteLength(text) < ONE_REVISION_BYTES) text += `\n${demo.text}`;
  // Cut on a character boundary, then pad with spaces to the exact size.
  const cut = new TextDecoder().decode(Buffer.from(text).subarray(0, ONE_REVISION_BYTES)).replace(/\uFFFD+$/, "");
  text = cut + " ".repeat(ONE_REVISION_BYTES - Buffer.byteLength(cut));
  return {
    id,
    timestamp: "2026-01-01T00:00:00Z",
    contributor: demo.contributor,
    comment: "one revision of 1 KB",
    model: "wikitext",
    text,
  };
}

export interface StoredState {
  /** Database bytes of each Durable Object class's objects, summed, by class name (`PageDirectory`). */
  byClass: Map<string, number>;
  /** Bytes of every KV value. */
  kvBytes: number;
}

function filesIn(dir: string): string[] {
  try {
    return readdirSync(dir).map((name) => join(dir, name));
  } catch {
    return [];
  }
}

/** What the local Worker's state holds; read it with the Worker stopped. */
export async function storedState(persistDir: string): Promise<StoredState> {
  const databases: Array<{ className: string; file: string }> = [];
  for (const classDir of filesIn(join(persistDir, "v3", "do"))) {
    const className = classDir.slice(classDir.lastIndexOf("-") + 1);
    for (const file of filesIn(classDir))
      if (file.endsWith(".sqlite") && !file.endsWith("/metadata.sqlite")) databases.push({ className, file });
  }
  const sizes = await sqliteDatabaseBytes(databases.map((d) => d.file));
  const byClass = new Map<string, number>();
  for (const { className, file } of databases) byClass.set(className, (byClass.get(className) ?? 0) + sizes.get(file)!);
  let kvBytes = 0;
  for (const namespace of filesIn(join(persistDir, "v3", "kv")))
    for (const value of filesIn(join(namespace, "blobs"))) kvBytes += statSync(value).size;
  return { byClass, kvBytes };
}

/** What was added between two readings: in all, and per Durable Object class (KV's values under `kv`). */
export function stateGrowth(
  before: StoredState,
  after: StoredState,
): { totalBytes: number; byClass: Map<string, number> } {
  const byClass = new Map<string, number>();
  for (const name of new Set([...before.byClass.keys(), ...after.byClass.keys()]))
    byClass.set(name, (after.byClass.get(name) ?? 0) - (before.byClass.get(name) ?? 0));
  byClass.set("kv", after.kvBytes - before.kvBytes);
  return { totalBytes: [...byClass.values()].reduce((a, b) => a + b, 0), byClass };
}
