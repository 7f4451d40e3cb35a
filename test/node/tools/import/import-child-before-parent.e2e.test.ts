/**
 * `palimpsest import` of a history with children dated before their parents
 * (as the w3c-webdriver corpus history has three), the real CLI against a
 * real local Worker: every revision is stored, each such child is named on
 * stderr with both timestamps, the import succeeds and counts them, and the
 * archive's TimeGate never answers a child for a time before its parent.
 */
import { describe, expect, it } from "vitest";
import { exportXml, generateHistory } from "../../support/mediawiki-export.ts";
import { importHarnessForThisFile, summaryOf } from "./support/import-cli-harness.ts";

const h = importHarnessForThisFile();

const iso = (ms: number) => new Date(ms).toISOString().replace(".000Z", "Z");

describe("palimpsest import of children dated before their parents", () => {
  it("stores them, warns on stderr naming each with both timestamps, exits 0, and the TimeGate answers each only from its parent's time", async () => {
    const title = "Child before parent";
    const revs = generateHistory(12, { firstId: 70_000, seed: 12 });
    // Revision 70005 a day before its parent 70004; 70009 three days before 70008 (across a batch edge with --batch-revisions 8).
    const early = new Map([
      [70_004, 86_400_000],
      [70_008, 3 * 86_400_000],
    ]);
    revs.forEach((r, i) => {
      const shift = early.get(r.id - 1);
      if (shift) r.timestamp = iso(Date.parse(revs[i - 1]!.timestamp) - shift);
    });
    const file = await h.writeExport("child-before-parent", exportXml({ pages: [{ title, revisions: revs }] }));

    const result = await h.runImport(file, ["--batch-revisions", "8"]);
    expect(result.code).toBe(0);
    expect(summaryOf(result)).toMatchObject({ pages: 1, revisions: 12, created: 12, skipped: 0, warnings: 2 });
    const byId = new Map(revs.map((r) => [r.id, r]));
    expect(result.stderr.trimEnd().split("\n")).toEqual(
      [70_005, 70_009].map(
        (id) =>
          `palimpsest: warning: page "${title}" revision ${id}: revision ${id} (${byId.get(id)!.timestamp}) is dated before its parent ${id - 1} (${byId.get(id - 1)!.timestamp}); ` +
          `it keeps its timestamp, and time travel (?at=, Accept-Datetime, /web/) answers it from ${byId.get(id - 1)!.timestamp}`,
      ),
    );
    expect((await h.history(title))!.map((r) => r.id)).toEqual(revs.map((r) => r.id).reverse());

    // Just after 70009's own date, before its parent's: the TimeGate answers the last revision that existed then.
    const gate = async (ms: number) => {
      const res = await fetch(`${h.archive.url}/page/Child_before_parent`, {
        redirect: "manual",
        headers: { "accept-datetime": new Date(ms).toUTCString() },
      });
      expect(res.status).toBe(302);
      return Number(new URL(res.headers.get("location")!).pathname.split("/").at(-1));
    };
    // Each revision exists from the latest date among it and those before it.
    let running = -Infinity;
    const exists = revs.map((r) => ({ id: r.id, from: (running = Math.max(running, Date.parse(r.timestamp))) }));
    const at = Date.parse(byId.get(70_009)!.timestamp) + 1000;
    const expected = exists.filter((r) => r.from <= at).at(-1)!.id;
    expect(expected).toBeLessThan(70_008);
    expect(await gate(at)).toBe(expected);
    expect(await gate(Date.parse(byId.get(70_008)!.timestamp))).toBe(70_009);
  }, 90_000);
});
