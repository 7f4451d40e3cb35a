/**
 * The takedown log: every hide or show of a revision's fields and every page
 * deletion or restore through the write API is recorded (who, when, what,
 * why, its purges) and listed by GET /api/takedowns, newest first, by
 * cursor, filterable by page, for the purge scope only. Its table is made
 * with the first takedown, never by a purge or a read; it keeps at most its
 * bound, the oldest dropped; and a takedown whose record fails still
 * happened, the failure logged.
 */
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import { coloOf } from "../../../src/config/colo.ts";
import { pageRef } from "../../../src/page/page-ref.ts";
import type { TakedownEntry } from "../../../src/purge/takedown-log.ts";
import { TakedownStore } from "../../../src/purge/takedown-store.ts";
import type { TakedownPageBody } from "../../../src/wire.ts";
import { setRevisionHidden } from "../../../src/writes/page-writes.ts";
import { appendOk, linearHistory, request } from "../support/archive.ts";
import { bearer, TOKENS } from "../support/tokens.ts";
import { expectProblemCode } from "../support/problems.ts";

const json = { "content-type": "application/json" };

const hide = (key: string, id: number, body: object, token: string = TOKENS.operator) =>
  request(`/api/pages/${key}/revisions/${id}/suppression`, {
    method: "PUT",
    headers: { ...bearer(token), ...json },
    body: JSON.stringify(body),
  });

const deletion = (key: string, body: object, token: string = TOKENS.operator) =>
  request(`/api/pages/${key}/deletion`, {
    method: "PUT",
    headers: { ...bearer(token), ...json },
    body: JSON.stringify(body),
  });

async function takedowns(query = "", token: string = TOKENS.operator): Promise<TakedownPageBody> {
  const res = await request(`/api/takedowns${query}`, { headers: bearer(token) });
  expect(res.status, await res.clone().text()).toBe(200);
  return res.json();
}

const tables = (stub: DurableObjectStub) =>
  runInDurableObject(stub, (_o, state: DurableObjectState) =>
    state.storage.sql
      .exec<{ name: string }>("SELECT name FROM sqlite_master WHERE type IN ('table', 'index') ORDER BY name")
      .toArray()
      .map((r) => r.name),
  );

describe("the takedown log", () => {
  it("records a hide, a show, a deletion and a restore through the write API: who, when, what, why, its purges", async () => {
    await appendOk("Takedown_log_page", linearHistory(3, 500));
    const started = Date.now();
    expect(
      (await hide("Takedown_log_page", 501, { suppressed: true, comment: true, reason: "a phone number" })).status,
    ).toBe(200);
    expect(
      (await hide("Takedown_log_page", 501, { comment: false, reason: "the comment was fine" }, TOKENS.write)).status,
    ).toBe(200);
    const deleted = await deletion("Takedown_log_page", { deleted: true, reason: "copyright complaint" });
    expect(deleted.status).toBe(200);
    const { purges } = await deleted.json<{ purges: string[] }>();
    expect((await deletion("Takedown_log_page", { deleted: false, reason: "complaint withdrawn" })).status).toBe(200);

    const { entries } = await takedowns("?page=Takedown_log_page");
    expect(entries.map(({ id: _id, at: _at, purges: _p, ...rest }) => rest)).toEqual([
      {
        by: "test-operator",
        page: "Takedown log page",
        action: { kind: "page", deleted: false },
        reason: "complaint withdrawn",
      },
      {
        by: "test-operator",
        page: "Takedown log page",
        action: { kind: "page", deleted: true },
        reason: "copyright complaint",
      },
      {
        by: "test-writer",
        page: "Takedown log page",
        action: { kind: "revision", revision: 501, hide: [], show: ["comment"] },
        reason: "the comment was fine",
      },
      {
        by: "test-operator",
        page: "Takedown log page",
        action: { kind: "revision", revision: 501, hide: ["content", "comment"], show: [] },
        reason: "a phone number",
      },
    ]);
    expect(entries[1]!.purges).toEqual(purges);
    for (const e of entries) {
      expect(e.at).toBeGreaterThanOrEqual(started);
      expect(e.at).toBeLessThanOrEqual(Date.now());
    }
    expect(entries.map((e) => Number(e.id))).toEqual(entries.map((e) => Number(e.id)).sort((a, b) => b - a));
  });

  it("records nothing for a takedown the store refused", async () => {
    await appendOk("Takedown_refused", linearHistory(1, 600));
    expect((await hide("Takedown_refused", 999, { suppressed: true, reason: "no such revision" })).status).toBe(404);
    expect((await takedowns("?page=Takedown_refused")).entries).toEqual([]);
  });

  it("pages newest first by cursor, keeps one page's entries whatever the title's spelling, and links the next page", async () => {
    await appendOk("Takedown_pages", linearHistory(60, 700));
    await appendOk("Takedown_other", linearHistory(1, 800));
    for (let id = 700; id < 760; id++)
      expect((await hide("Takedown_pages", id, { contributor: true, reason: `reason ${id}` })).status).toBe(200);
    expect((await hide("Takedown_other", 800, { contributor: true, reason: "elsewhere" })).status).toBe(200);

    const res = await request("/api/takedowns?page=Takedown%20pages", { headers: bearer(TOKENS.purge) });
    const first = await res.json<TakedownPageBody>();
    expect(first.entries).toHaveLength(50);
    expect(first.entries[0]!.action).toMatchObject({ revision: 759 });
    expect(first.entries.every((e) => e.page === "Takedown pages")).toBe(true);
    expect(first.links.next).toBe(`http://archive.test/api/takedowns?page=Takedown+pages&before=${first.next}`);
    expect(res.headers.get("link")).toBe(`<${first.links.next}>; rel="next"`);
    const second = await takedowns(`?page=Takedown_pages&before=${first.next}`);
    expect(second.entries.map((e) => (e.action as { revision: number }).revision)).toEqual(
      Array.from({ length: 10 }, (_, i) => 709 - i),
    );
    expect(second.next).toBeNull();
    // Unfiltered, the other page's entry is the newest.
    expect((await takedowns()).entries[0]).toMatchObject({ page: "Takedown other", reason: "elsewhere" });
  });

  it("is the purge scope's: a write-only token is 403, none is 401; a bad cursor or title is 400", async () => {
    expect((await request("/api/takedowns", { headers: bearer(TOKENS.write) })).status).toBe(403);
    expect((await request("/api/takedowns")).status).toBe(401);
    const cursor = await request("/api/takedowns?before=abc", { headers: bearer(TOKENS.purge) });
    await expectProblemCode(cursor, 400, "invalid_cursor");
    const title = await request("/api/takedowns?page=%3Cbad%3E", { headers: bearer(TOKENS.purge) });
    expect(title.status).toBe(400);
  });

  it("makes its table and index with the first takedown: not for a purge, not for a read", async () => {
    const stub = env.PURGE_AUDIT.get(env.PURGE_AUDIT.idFromName("takedown-lazy-test"));
    expect(await stub.listTakedowns(null, null, 10)).toEqual({ entries: [], next: null });
    await stub.record({
      id: "enam-q0:1",
      by: "ops",
      kind: "tags",
      soft: false,
      items: ["t"],
      keys: 1,
      dropped: 0,
      createdAt: 1,
    });
    expect(await tables(stub)).not.toContain("takedowns");
    await stub.listTakedowns("Vellum", null, 10);
    expect(await tables(stub)).not.toContain("takedowns");
    const id = await stub.recordTakedown({
      at: 5,
      by: "ops",
      page: "Vellum",
      action: { kind: "page", deleted: true },
      reason: "why",
      purges: [],
    });
    expect(await tables(stub)).toEqual(expect.arrayContaining(["takedowns", "takedowns_page"]));
    expect((await stub.listTakedowns("Vellum", null, 10)).entries).toEqual([
      { id, at: 5, by: "ops", page: "Vellum", action: { kind: "page", deleted: true }, reason: "why", purges: [] },
    ]);
  });

  it("keeps at most its bound, the oldest dropped", async () => {
    const stub = env.PURGE_AUDIT.get(env.PURGE_AUDIT.idFromName("takedown-bound-test"));
    const reasons = await runInDurableObject(stub, (_o, state: DurableObjectState) => {
      const store = new TakedownStore(state.storage, 3);
      for (let i = 1; i <= 5; i++)
        store.record({
          at: i,
          by: "ops",
          page: i % 2 ? "Odd" : "Even",
          action: { kind: "page", deleted: true },
          reason: `r${i}`,
          purges: [],
        });
      const count = state.storage.sql.exec<{ n: number }>("SELECT count(*) AS n FROM takedowns").one().n;
      const all = store.list(null, null, 10).entries.map((e: TakedownEntry) => e.reason);
      const odd = store.list("Odd", null, 10).entries.map((e: TakedownEntry) => e.reason);
      return { count, all, odd };
    });
    expect(reasons).toEqual({ count: 3, all: ["r5", "r4", "r3"], odd: ["r5", "r3"] });
  });

  it("a takedown whose record fails still happens, and the failure is logged with who, what and why", async () => {
    await appendOk("Takedown_unrecorded", linearHistory(2, 900));
    const broken = {
      ...env,
      PURGE_AUDIT: {
        idFromName: env.PURGE_AUDIT.idFromName.bind(env.PURGE_AUDIT),
        get: () => ({
          recordTakedown: () => Promise.reject(new Error("audit unreachable")),
        }),
      },
    } as unknown as Env;
    const errors = vi.spyOn(console, "error").mockImplementation(() => undefined);
    try {
      const colo = coloOf(new Request("http://archive.test/"), env);
      await setRevisionHidden(
        broken,
        colo,
        pageRef("Takedown unrecorded"),
        901,
        { content: true },
        { by: "ops", reason: "urgent" },
      );
      expect(errors).toHaveBeenCalledWith(
        expect.stringContaining("TAKEDOWN NOT RECORDED"),
        expect.objectContaining({
          by: "ops",
          reason: "urgent",
          page: "Takedown unrecorded",
          error: expect.stringContaining("audit unreachable"),
        }),
      );
    } finally {
      errors.mockRestore();
    }
    expect((await request("/page/Takedown_unrecorded/901")).status).toBe(410);
    expect((await takedowns("?page=Takedown_unrecorded")).entries).toEqual([]);
  });
});
