/**
 * The archive never shows more than the wiki shows. What MediaWiki's
 * revision deletion hides (a revision's content, comment or contributor)
 * leaves every public answer here and stays in a backup; a page deleted as
 * MediaWiki deletes answers 410 and leaves the listings, and comes back
 * whole when restored; a revision whose text was hidden before the archive
 * first read it is stored without it, keeping its id, parent and time, and
 * a later copy of the text fills it in.
 */
import { describe, expect, it } from "vitest";
import type { NewRevision } from "../../../src/page/types.ts";
import { appendOk, linearHistory, request } from "../support/archive.ts";
import { bearer, TOKENS } from "../support/tokens.ts";
import { expectProblemCode } from "../support/problems.ts";

const json = (token: string, method: string, body: unknown) => ({
  method,
  headers: { ...bearer(token), "content-type": "application/json" },
  body: JSON.stringify(body),
});

const hide = (key: string, id: number, body: Record<string, unknown>) =>
  request(`/api/pages/${key}/revisions/${id}/suppression`, json(TOKENS.write, "PUT", body));

const deletion = (key: string, deleted: boolean, reason = "mirrors the wiki's deletion") =>
  request(`/api/pages/${key}/deletion`, json(TOKENS.write, "PUT", { deleted, reason }));

interface Entry {
  id: number;
  parentId: number | null;
  contributor: string;
  comment: string;
  suppressed: boolean;
  commentHidden?: boolean;
  contributorHidden?: boolean;
  textMissing?: boolean;
}

async function historyOf(key: string): Promise<Entry[]> {
  const res = await request(`/page/${key}/history`);
  expect(res.status).toBe(200);
  return (await res.json<{ revisions: Entry[] }>()).revisions;
}

const exportOf = async (key: string, token?: string) => {
  const res = await request(`/page/${key}/export`, token ? { headers: bearer(token) } : {});
  expect(res.status).toBe(200);
  return res.text();
};

describe("a hidden comment or contributor", () => {
  const key = "Hiding_fields";
  const revs = (): NewRevision[] =>
    linearHistory(3).map((r, i) => ({ ...r, contributor: `Secret person ${i}`, comment: `secret summary ${i}` }));

  it("leaves the history, the viewer and the public export, stays in a backup, and shows again", async () => {
    await appendOk(key, revs());
    expect((await hide(key, 2, { comment: true, contributor: true, reason: "outing" })).status).toBe(200);
    const entry = (await historyOf(key)).find((e) => e.id === 2)!;
    expect(entry).toMatchObject({ comment: "", contributor: "", commentHidden: true, contributorHidden: true });
    expect(entry.suppressed).toBe(false);
    expect((await request(`/page/${key}/2`)).status).toBe(200);

    const html = await (await request(`/view/${key}/2`)).text();
    expect(html).not.toContain("Secret person 1");
    expect(html).not.toContain("secret summary 1");
    const historyHtml = await (await request(`/page/${key}/history`, { headers: { accept: "text/html" } })).text();
    expect(historyHtml).not.toContain("Secret person 1");
    expect(historyHtml).not.toContain("secret summary 1");
    expect(historyHtml).toContain("(username removed)");
    expect(historyHtml).toContain("(edit summary removed)");
    expect(html).toContain("(username removed)");

    const publicXml = await exportOf(key);
    expect(publicXml).not.toContain("Secret person 1");
    expect(publicXml).not.toContain("secret summary 1");
    expect(publicXml).toContain('<contributor deleted="deleted" />');
    expect(publicXml).toContain('<comment deleted="deleted" />');
    const backup = await exportOf(key, TOKENS.backup);
    expect(backup).toContain('<comment deleted="deleted">secret summary 1</comment>');
    expect(backup).toMatch(/<contributor deleted="deleted">\s*<username>Secret person 1<\/username>/);

    expect((await hide(key, 2, { comment: false, contributor: false, reason: "shown again on the wiki" })).status).toBe(
      200,
    );
    expect((await historyOf(key)).find((e) => e.id === 2)).toMatchObject({
      comment: "secret summary 1",
      contributor: "Secret person 1",
    });
  });

  it("a takedown without a reason is refused and changes nothing", async () => {
    const res = await hide(key, 3, { comment: true });
    expect(res.status).toBe(422);
    expect((await historyOf(key)).find((e) => e.id === 3)!.comment).toBe("secret summary 2");
  });

  it("is stored hidden when it arrives hidden, and a re-send from a reader who cannot see it is the same revision", async () => {
    const k = "Hiding_on_arrival";
    const [first] = linearHistory(1);
    await appendOk(k, [{ ...first!, comment: "", contributor: "", hidden: { comment: true, contributor: true } }]);
    expect((await historyOf(k))[0]).toMatchObject({ commentHidden: true, contributorHidden: true, comment: "" });
    // The wiki shows them again: the follower sends the revision with them, which fills them in.
    const filled = await request(`/api/pages/${k}/revisions`, {
      ...json(TOKENS.write, "POST", { revisions: [{ ...first!, comment: "shown", contributor: "Shown person" }] }),
    });
    expect(await filled.json()).toMatchObject({ filled: [1] });
    expect((await historyOf(k))[0]).toMatchObject({ comment: "shown", contributor: "Shown person" });
  });
});

describe("a revision whose text was hidden before the archive read it", () => {
  const key = "Hidden_before_read";
  const [a, b, c] = linearHistory(3, 500);

  it("is stored without its text, so its child's parent exists here as on the wiki", async () => {
    await appendOk(key, [a!, { ...b!, text: "", textMissing: true, hidden: { content: true } }, c!]);
    const history = await historyOf(key);
    expect(history.map((e) => [e.id, e.parentId])).toEqual([
      [502, 501],
      [501, 500],
      [500, null],
    ]);
    expect(history.find((e) => e.id === 501)).toMatchObject({ suppressed: true, textMissing: true });
    expect((await request(`/page/${key}/501`)).status).toBe(410);
    expect((await request(`/page/${key}/502`)).status).toBe(200);
    // Nothing to show, even to a backup: there is no text.
    const backup = await exportOf(key, TOKENS.backup);
    expect(backup).toMatch(/<id>501<\/id>[\s\S]*?<text deleted="deleted" \/>\s*<sha1\/>\s*<\/revision>/);
  });

  it("cannot be shown again by a flag (there is nothing to show), and a copy of its text fills it in", async () => {
    const refused = await hide(key, 501, { suppressed: false, reason: "shown again" });
    await expectProblemCode(refused, 409, "text_never_held");
    await appendOk(key, [b!]);
    expect(await (await request(`/page/${key}/501`)).text()).toBe(b!.text);
    expect((await historyOf(key)).find((e) => e.id === 501)).toMatchObject({ suppressed: false });
  });

  it("refuses textMissing with a text", async () => {
    const res = await request(`/api/pages/Hidden_before_read_bad/revisions`, {
      ...json(TOKENS.write, "POST", { revisions: [{ ...a!, textMissing: true, hidden: { content: true } }] }),
    });
    expect(res.status).toBe(422);
  });
});

describe("a page deleted as MediaWiki deletes", () => {
  const key = "Deleted_and_restored";

  it("answers 410 everywhere public, leaves the listings and search, and a backup still holds it", async () => {
    await appendOk(key, linearHistory(3, 700));
    const before = await (await request(`/page/${key}/701`)).text();
    expect((await deletion(key, true)).status).toBe(200);
    for (const path of [
      `/page/${key}`,
      `/page/${key}/701`,
      `/page/${key}/history`,
      `/timemap/link/${key}`,
      `/page/${key}/export`,
      `/view/${key}/701`,
    ])
      expect([path, (await request(path)).status]).toEqual([path, 410]);
    const listed = await (await request(`/api/pages?limit=500`)).json<{ pages: Array<{ key: string }> }>();
    expect(listed.pages.map((p) => p.key)).not.toContain(key);
    const search = await (await request(`/search?q=Deleted_and`, { headers: { accept: "text/html" } })).text();
    expect(search).not.toContain("Deleted and restored");
    const backupList = await (
      await request(`/api/pages?limit=500`, { headers: bearer(TOKENS.backup) })
    ).json<{
      pages: Array<{ key: string; deleted: boolean }>;
    }>();
    expect(backupList.pages.find((p) => p.key === key)).toMatchObject({ deleted: true });
    const backup = await exportOf(key, TOKENS.backup);
    expect(backup).toContain("<palimpsest:deleted />");
    expect(backup).toContain("<id>702</id>");

    expect((await deletion(key, false, "undeleted on the wiki")).status).toBe(200);
    expect(await (await request(`/page/${key}/701`)).text()).toBe(before);
    expect((await historyOf(key)).length).toBe(3);
    const relisted = await (await request(`/api/pages?limit=500`)).json<{ pages: Array<{ key: string }> }>();
    expect(relisted.pages.map((p) => p.key)).toContain(key);
  });

  it("a page deleted for good leaves the listings too", async () => {
    const gone = "Deleted_for_good";
    await appendOk(gone, linearHistory(1, 800));
    const unexplained = await request(`/api/pages/${gone}`, { method: "DELETE", headers: bearer(TOKENS.write) });
    expect(unexplained.status).toBe(422);
    expect((await request(`/page/${gone}`)).status).toBe(200);
    const res = await request(`/api/pages/${gone}?reason=a%20test%20deletion`, {
      method: "DELETE",
      headers: bearer(TOKENS.write),
    });
    expect(res.status).toBe(200);
    const log = await (
      await request(`/api/takedowns?page=${gone}`, { headers: bearer(TOKENS.operator) })
    ).json<{
      entries: Array<{ by: string; reason: string; action: { kind: string; forGood?: boolean } }>;
    }>();
    expect(log.entries[0]).toMatchObject({
      by: "test-writer",
      reason: "a test deletion",
      action: { kind: "page", forGood: true },
    });
    const listed = await (await request(`/api/pages?limit=500`)).json<{ pages: Array<{ key: string }> }>();
    expect(listed.pages.map((p) => p.key)).not.toContain(gone);
  });
});
