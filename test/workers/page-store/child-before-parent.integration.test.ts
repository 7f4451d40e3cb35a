/**
 * A child dated before its parent (issue 25 item 15; three in the
 * w3c-webdriver corpus history) is stored as dated, but time travel answers
 * it only from its effective time, the latest timestamp up to it in the
 * page's chain: `?at=`, the TimeGate and `/web/` never answer it for a time
 * before its parent existed. The write answer warns the writer. A store
 * written before effective times existed (format 2) gets them on its first
 * start.
 */
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { PageStore } from "../../../durable-objects/page-store.ts";
import type { NewRevision } from "../../../src/page/types.ts";
import { append, appendOk, request } from "../support/archive.ts";

const DAY = 86_400_000;
const iso = (ms: number) => new Date(ms).toISOString().replace(".000Z", "Z");
const T0 = Date.UTC(2020, 0, 1);

/** Revision 1 on day 0, 2 on day 2, 3 on day 1 (before its parent 2), 4 on day 3. */
function history(): NewRevision[] {
  const days = [0, 2, 1, 3];
  return days.map((day, i) => ({
    id: i + 1,
    parentId: i === 0 ? null : i,
    timestamp: iso(T0 + day * DAY),
    contributor: "Editor",
    comment: `edit ${i + 1}`,
    model: "wikitext" as const,
    text: `text of revision ${i + 1}\n`,
  }));
}

/** Which revision `?at=` answers at `ms`, by its text. */
async function atTime(key: string, ms: number): Promise<string> {
  const res = await request(`/page/${key}?at=${iso(ms)}`);
  expect(res.status, `?at=${iso(ms)}`).toBe(200);
  return res.text();
}

/** Where the TimeGate (Accept-Datetime) and /web/ send a reader at `ms`: the revision id. */
async function timegate(key: string, ms: number): Promise<{ acceptDatetime: string; web: string }> {
  const gate = await request(`/page/${key}`, { headers: { "accept-datetime": new Date(ms).toUTCString() } });
  expect(gate.status).toBe(302);
  const web = await request(`/web/${iso(ms).replace(/[-:TZ]/g, "")}/${key}`);
  expect(web.status).toBe(302);
  const id = (res: Response) => new URL(res.headers.get("location")!).pathname.split("/").at(-1)!;
  return { acceptDatetime: id(gate), web: id(web) };
}

const text = (id: number) => `text of revision ${id}\n`;

/** What every test checks: between 3's date and 2's, revision 1 is current; from 2's date on, 3; and the history keeps 3's own date. */
async function expectTruthfulTimeTravel(key: string): Promise<void> {
  expect(await atTime(key, T0 + 1.5 * DAY)).toBe(text(1));
  expect(await timegate(key, T0 + 1.5 * DAY)).toEqual({ acceptDatetime: "1", web: "1" });
  // At 3's own time, exactly: 3 did not exist yet.
  expect(await atTime(key, T0 + 1 * DAY)).toBe(text(1));
  // From its parent's time on, 3 is current (it came after 2 in the chain).
  expect(await atTime(key, T0 + 2 * DAY)).toBe(text(3));
  expect(await atTime(key, T0 + 2.5 * DAY)).toBe(text(3));
  expect(await timegate(key, T0 + 2.5 * DAY)).toEqual({ acceptDatetime: "3", web: "3" });
  expect(await atTime(key, T0 + 3 * DAY)).toBe(text(4));
  const listed = (await (await request(`/page/${key}/history`)).json()) as {
    revisions: Array<{ id: number; timestamp: string }>;
  };
  expect(listed.revisions.find((r) => r.id === 3)!.timestamp).toBe(iso(T0 + DAY));
  // The memento itself still carries its own date.
  expect((await request(`/page/${key}/3`)).headers.get("memento-datetime")).toBe(new Date(T0 + DAY).toUTCString());
}

describe("a child dated before its parent", () => {
  it("is accepted with a warning naming it and both timestamps, and time travel answers it only from its parent's time", async () => {
    const key = "Child_before_parent_one_batch";
    const res = await append(key, history());
    expect(res.status).toBe(201);
    const body = (await res.json()) as { created: number[]; warnings: Array<Record<string, unknown>> };
    expect(body.created).toEqual([1, 2, 3, 4]);
    expect(body.warnings).toEqual([
      {
        code: "dated_before_parent",
        revisionId: 3,
        timestamp: iso(T0 + DAY),
        parentId: 2,
        parentTimestamp: iso(T0 + 2 * DAY),
        effectiveTimestamp: iso(T0 + 2 * DAY),
        detail: expect.stringMatching(
          /revision 3 \(2020-01-02T00:00:00Z\) is dated before its parent 2 \(2020-01-03T00:00:00Z\)/,
        ),
      },
    ]);
    await expectTruthfulTimeTravel(key);
  }, 30_000);

  it("is warned about when its parent was stored by an earlier write, and not when it is re-sent", async () => {
    const key = "Child_before_parent_two_writes";
    const [r1, r2, r3, r4] = history();
    expect(((await (await append(key, [r1!, r2!])).json()) as { warnings: unknown[] }).warnings).toEqual([]);
    const second = await append(key, [r3!, r4!]);
    expect(second.status).toBe(201);
    const body = (await second.json()) as {
      warnings: Array<{ revisionId: number; parentId: number; parentTimestamp: string }>;
    };
    expect(body.warnings.map((w) => [w.revisionId, w.parentId, w.parentTimestamp])).toEqual([
      [3, 2, iso(T0 + 2 * DAY)],
    ]);
    const again = await append(key, [r3!, r4!]);
    expect(again.status).toBe(200);
    expect(((await again.json()) as { warnings: unknown[] }).warnings).toEqual([]);
    await expectTruthfulTimeTravel(key);
  }, 30_000);

  it("in a store written before effective times (format 2) is found on its first start, the other revisions kept as they were", async () => {
    const key = "Child_before_parent_format_2";
    await appendOk(key, history());
    const stub = env.PAGE_STORE.getByName(key);
    const converted = await runInDurableObject(stub, (_: PageStore, state) => {
      const sql = state.storage.sql;
      // Format 2 as main wrote it: revs without eff_ts, no revs_by_effective, at migration 2.
      sql.exec("DROP INDEX revs_by_effective");
      sql.exec(
        "CREATE TABLE revs_v2 (seq INTEGER PRIMARY KEY, rev_id INTEGER NOT NULL, ts INTEGER NOT NULL, u INTEGER NOT NULL, h INTEGER NOT NULL, suppressed INTEGER NOT NULL DEFAULT 0)",
      );
      sql.exec("INSERT INTO revs_v2 SELECT seq, rev_id, ts, u, h, suppressed FROM revs");
      sql.exec("DROP TABLE revs");
      sql.exec("ALTER TABLE revs_v2 RENAME TO revs");
      sql.exec("CREATE UNIQUE INDEX revs_by_id ON revs (rev_id)");
      sql.exec("CREATE INDEX revs_by_time ON revs (ts, seq)");
      sql.exec("CREATE INDEX revs_by_content ON revs (h)");
      sql.exec("UPDATE schema_version SET version = 2");
      const columns = () =>
        sql
          .exec<{ name: string }>("SELECT name FROM pragma_table_info('revs')")
          .toArray()
          .map((c) => c.name);
      const before = columns();
      // What a restart does: a new instance over the same storage.
      new PageStore(state, env);
      return {
        before,
        after: columns(),
        effective: sql
          .exec<{ rev_id: number; eff_ts: number }>("SELECT rev_id, eff_ts FROM revs ORDER BY seq")
          .toArray()
          .map((r) => [r.rev_id, r.eff_ts]),
        indexed: sql.exec("SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = 'revs_by_effective'").toArray()
          .length,
      };
    });
    expect(converted.before).not.toContain("eff_ts");
    expect(converted.after).toContain("eff_ts");
    const day = (n: number) => (T0 + n * DAY) / 1000;
    expect(converted.effective).toEqual([
      [1, day(0)],
      [2, day(2)],
      [3, day(2)],
      [4, day(3)],
    ]);
    expect(converted.indexed).toBe(1);
    await expectTruthfulTimeTravel(key);
    // It takes new writes on top, with their effective times.
    await appendOk(key, [{ ...history()[3]!, id: 5, parentId: 4, timestamp: iso(T0 + 2.75 * DAY), text: text(5) }]);
    expect(await atTime(key, T0 + 2.8 * DAY)).toBe(text(3));
    expect(await atTime(key, T0 + 3.5 * DAY)).toBe(text(5));
  }, 30_000);
});
