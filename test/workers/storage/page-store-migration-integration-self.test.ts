/**
 * A store written by the format-1 PageStore (test/fixtures/page-store/
 * v1-store.json: its SQLite rows and KV blobs, dumped from a store main wrote
 * before format 2: 40 revisions in three writes, one suppressed, one with
 * writer tags) is converted on first access and reads exactly as before.
 */
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { PageStore } from "../../../durable-objects/page-store.ts";
import { sha1Base36 } from "../../../src/lib/digests.ts";
import { listPage } from "../../../src/page/directory.ts";
import fixture from "../../fixtures/page-store/v1-store.json";
import { appendOk, linearHistory, request } from "../support/archive.ts";

type Cell = string | number | null | { b64: string };
interface Fixture {
  key: string;
  tables: Array<{ type: string; name: string; sql: string | null }>;
  rows: Record<string, Array<Record<string, Cell>>>;
  kv: Record<string, string>;
  revisions: Array<{ id: number; text: string; contributor: string; comment: string; tags?: string[] }>;
}
const v1 = fixture as unknown as Fixture;

const bytes = (b64: string) => Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
const cell = (v: Cell) => (v !== null && typeof v === "object" ? bytes(v.b64).buffer : v);

/** Puts the format-1 tables, rows and blobs in place of a fresh store's, then starts a PageStore on them as a restart would. */
async function restoreV1(key: string): Promise<void> {
  for (const [name, b64] of Object.entries(v1.kv)) await env.BLOBS.put(name, bytes(b64));
  // Listed, as the page's first write did.
  await listPage(env, key);
  const stub = env.PAGE_STORE.getByName(key);
  await runInDurableObject(stub, (_: PageStore, state) => {
    const sql = state.storage.sql;
    // Format 1 had no schema_version either: the numbered migrations (src/page-store/schema.ts) run over it from 0.
    for (const t of ["page", "revs", "meta", "kv", "blobs", "outbox", "schema_version"]) sql.exec(`DROP TABLE IF EXISTS ${t}`);
    for (const t of v1.tables) if (t.sql && t.type === "table" && t.name !== "sqlite_sequence") sql.exec(t.sql);
    for (const t of v1.tables) if (t.sql && t.type === "index") sql.exec(t.sql);
    for (const [table, rows] of Object.entries(v1.rows)) {
      for (const row of rows) {
        const cols = Object.keys(row);
        sql.exec(`INSERT INTO ${table} (${cols.join(", ")}) VALUES (${cols.map(() => "?").join(", ")})`, ...cols.map((c) => cell(row[c]!)));
      }
    }
  });
}

describe("a store written in format 1", () => {
  it("is converted on first access: every revision, its metadata, suppression, tags and version read as main wrote them, and it takes new writes", async () => {
    const key = v1.key;
    await restoreV1(key);
    const stub = env.PAGE_STORE.getByName(key);
    const converted = await runInDurableObject(stub, (_: PageStore, state) => {
      // What a restart does: a new instance over the same storage.
      const fresh = new PageStore(state, env);
      const tables = state.storage.sql.exec<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '_cf_%'").toArray().map((t) => t.name).sort();
      const history = fresh.history({}, 100);
      return { tables, history, stats: fresh.stats(), latest: fresh.locate({ kind: "latest" }), byContent: fresh.dictionaryFor((fresh.locate({ kind: "id", id: 1020 }) as { revision: { sha256: string } }).revision.sha256, 1021) };
    });
    // sqlite_sequence stays: format 1's outbox is kept as it was, AUTOINCREMENT and all.
    expect(converted.tables).toEqual(["blobs", "kv", "meta", "outbox", "page", "retired", "revs", "schema_version", "sqlite_sequence"]);
    const history = converted.history as { total: number; version: number; revisions: Array<{ id: number; contributor: string; comment: string; suppressed: boolean; tags: string[]; sha1?: string; parentId: number | null }> };
    expect(history.total).toBe(40);
    expect(history.version).toBe(v1.rows.counters![0]!.value);
    const wrote = new Map(v1.rows.revisions!.map((r) => [r.rev_id as number, r]));
    for (const rev of history.revisions) {
      const before = wrote.get(rev.id)!;
      expect(rev).toMatchObject({ contributor: before.contributor, comment: before.comment, parentId: before.parent_id, suppressed: before.suppressed === 1, tags: before.tags ? String(before.tags).split(",") : [] });
      // A suppressed revision is listed without its hashes (issue 26); every other keeps the SHA-1 format 1 stored.
      if (rev.suppressed) expect(rev).not.toHaveProperty("sha1");
      else expect(rev.sha1).toBe(before.sha1);
    }
    expect(history.revisions.find((r) => r.id === 1008)!.tags).toEqual(["bot", "import"]);
    expect(converted.stats).toMatchObject({ revisions: 40, rawBytes: v1.rows.revisions!.reduce((n, r) => n + (r.suppressed === 1 ? 0 : (r.bytes as number)), 0) });
    expect(converted.latest).toMatchObject({ ok: true, revision: { id: 1040 } });
    expect(converted.byContent).toBe(1020);

    // Over HTTP: every text, the suppressed one refused, and new writes on top.
    for (const rev of v1.revisions) {
      const res = await request(`/page/${key}/${rev.id}`);
      if (rev.id === 1010) {
        expect(res.status).toBe(410);
        continue;
      }
      expect(res.status, `revision ${rev.id}`).toBe(200);
      const body = new Uint8Array(await res.arrayBuffer());
      expect(await sha1Base36(body)).toBe(wroteSha1(rev.id));
    }
    const next = linearHistory(41, 1001).slice(40);
    await appendOk(key, next);
    expect(await (await request(`/page/${key}/1041`)).text()).toBe(next[0]!.text);
    const page = (await (await request(`/page/${key}/history?limit=2`)).json()) as { total: number; revisions: Array<{ id: number; parentId: number }> };
    expect(page.total).toBe(41);
    expect(page.revisions.map((r) => [r.id, r.parentId])).toEqual([
      [1041, 1040],
      [1040, 1039],
    ]);
  });
});

const wroteSha1 = (id: number) => v1.rows.revisions!.find((r) => r.rev_id === id)!.sha1 as string;
