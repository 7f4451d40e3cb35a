/**
 * A child dated before its parent (three in the w3c-webdriver corpus
 * history) is stored as dated, but time travel answers
 * it only from its effective time, the latest timestamp up to it in the
 * page's chain: `?at=`, the TimeGate and `/web/` never answer it for a time
 * before its parent existed. The write answer warns the writer.
 */
import { describe, expect, it } from "vitest";
import type { NewRevision } from "../../../src/page/types.ts";
import { append, request } from "../support/archive.ts";

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
  const listed = await (
    await request(`/page/${key}/history`)
  ).json<{
    revisions: Array<{ id: number; timestamp: string }>;
  }>();
  expect(listed.revisions.find((r) => r.id === 3)!.timestamp).toBe(iso(T0 + DAY));
  // The memento itself still carries its own date.
  expect((await request(`/page/${key}/3`)).headers.get("memento-datetime")).toBe(new Date(T0 + DAY).toUTCString());
}

describe("a child dated before its parent", () => {
  it("is accepted with a warning naming it and both timestamps, and time travel answers it only from its parent's time", async () => {
    const key = "Child_before_parent_one_batch";
    const res = await append(key, history());
    expect(res.status).toBe(201);
    const body = await res.json<{ created: number[]; warnings: Array<Record<string, unknown>> }>();
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
    expect((await (await append(key, [r1!, r2!])).json<{ warnings: unknown[] }>()).warnings).toEqual([]);
    const second = await append(key, [r3!, r4!]);
    expect(second.status).toBe(201);
    const body = await second.json<{
      warnings: Array<{ revisionId: number; parentId: number; parentTimestamp: string }>;
    }>();
    expect(body.warnings.map((w) => [w.revisionId, w.parentId, w.parentTimestamp])).toEqual([
      [3, 2, iso(T0 + 2 * DAY)],
    ]);
    const again = await append(key, [r3!, r4!]);
    expect(again.status).toBe(200);
    expect((await again.json<{ warnings: unknown[] }>()).warnings).toEqual([]);
    await expectTruthfulTimeTravel(key);
  }, 30_000);
});
