/**
 * `palimpsest import` names the revision the archive refuses when an export
 * sends a stored revision again with other metadata: the
 * real CLI against a real local Worker, as a user runs it.
 */
import { describe, expect, it } from "vitest";
import { exportXml, generateHistory } from "../../support/mediawiki-export.ts";
import { importHarnessForThisFile, newestFirst, oneLineReason, summaryOf } from "./support/import-cli-harness.ts";

const h = importHarnessForThisFile();

/** A history whose 3rd revision comes again as its 4th, same id and text, by someone else. */
function resentExport(title: string, firstId: number) {
  const revs = generateHistory(5, { firstId, seed: 5 });
  const again = { ...revs[2]!, contributor: { username: "Someone Else", userId: 99 } };
  return { xml: exportXml({ pages: [{ title, revisions: [...revs.slice(0, 3), again, revs[4]!] }] }), revs };
}

describe.concurrent("importing a revision the archive holds with other metadata", () => {
  it("stops with a 409 naming the page, the revision and each field with both values", async () => {
    const { xml, revs } = resentExport("Resent stop", 91_000);
    const reason = oneLineReason(
      await h.runImport(await h.writeExport("resent-stop", xml), ["--batch-revisions", "1"]),
    );
    const stored = revs[2]!.contributor;
    const storedName = "ip" in stored ? stored.ip : stored.username;
    expect(reason).toBe(
      `palimpsest: page Resent_stop: HTTP 409 revision ${revs[2]!.id} already exists with the same text but other metadata: ` +
        `parentId ${revs[1]!.id} stored, ${revs[2]!.id} sent; contributor "${storedName}" stored, "Someone Else" sent`,
    );
    expect(await h.historyIds("Resent stop")).toEqual(newestFirst(revs.slice(0, 3)));
  }, 60_000);

  it("--on-error=skip skips it, says which, and keeps the stored metadata", async () => {
    const { xml, revs } = resentExport("Resent skip", 92_000);
    const result = await h.runImport(await h.writeExport("resent-skip", xml), [
      "--batch-revisions",
      "1",
      "--on-error=skip",
    ]);
    expect(summaryOf(result)).toMatchObject({ pages: 1, revisions: 4, created: 4, already_stored: 0, skipped: 1 });
    expect(result.stderr).toMatch(
      new RegExp(`skipped page "Resent skip" revision ${revs[2]!.id}: .*other metadata: .*"Someone Else" sent`),
    );
    const listed = (await h.history("Resent skip"))!;
    expect(listed.map((r) => r.id)).toEqual([revs[4]!.id, revs[2]!.id, revs[1]!.id, revs[0]!.id]);
  }, 60_000);
});
