/**
 * Takedowns from the dashboard, as a browser without JavaScript sends them:
 * the title search opens a page's view; its forms hide a revision's fields
 * and delete or restore the page, each with the reason it requires, and the
 * public answers change (410 for a suppressed revision and for a deleted
 * page, which leaves /api/pages; a restore brings it back). Each takedown is
 * in GET /api/takedowns and on the page's view and the takedown log with
 * who, when, what and why. An empty reason, a missing or forged CSRF token,
 * a form from another site and a session without the write scope change
 * nothing.
 */
import { describe, expect, it } from "vitest";
import { formatTime } from "../../../src/ui/format.ts";
import { REASON_REQUIRED } from "../../../src/dashboard/takedown-form.ts";
import type { TakedownPageBody } from "../../../src/wire.ts";
import { appendOk, linearHistory, request } from "../support/archive.ts";
import { bearer, TOKENS } from "../support/tokens.ts";
import { crossSitePost, forgedCsrfFields, get, login, post, type Signed } from "./support/dashboard.ts";

const escaped = (s: string) => s.replaceAll("'", "&#39;").replaceAll('"', "&quot;");

async function takedownsOf(key: string): Promise<TakedownPageBody["entries"]> {
  const res = await request(`/api/takedowns?page=${key}`, { headers: bearer(TOKENS.operator) });
  expect(res.status).toBe(200);
  return (await res.json<TakedownPageBody>()).entries;
}

async function listed(key: string): Promise<boolean> {
  const res = await request(`/api/pages?after=${encodeURIComponent(key.slice(0, -1))}&limit=5`);
  expect(res.status).toBe(200);
  return (await res.json<{ pages: Array<{ key: string }> }>()).pages.some((p) => p.key === key);
}

/** The page's view, as the operator reads it. */
async function view(key: string, s: Signed, query = ""): Promise<string> {
  const res = await get(`/dashboard/pages/${key}${query}`, s);
  expect(res.status).toBe(200);
  return res.text();
}

const unchanged = { was_content: "0", was_comment: "0", was_contributor: "0" };

/** Revision `id` and the page's latest are still served, and the page has no takedown. */
async function expectUntouched(key: string, id: number): Promise<void> {
  expect((await request(`/page/${key}/${id}`)).status).toBe(200);
  expect((await request(`/page/${key}`)).status).toBe(200);
  expect(await takedownsOf(key)).toEqual([]);
}

describe("takedowns from the dashboard", () => {
  it("the title search opens the page's view, with a form per revision and the deletion form", async () => {
    await appendOk("Takedown_form_view", linearHistory(3, 100));
    const s = await login();
    const found = await get("/dashboard/pages?title=Takedown%20form%20view", s);
    expect(found.status).toBe(303);
    expect(found.headers.get("location")).toBe("/dashboard/pages/Takedown_form_view");
    const html = await view("Takedown_form_view", s);
    for (const id of [100, 101, 102])
      expect(html).toContain(`action="/dashboard/pages/Takedown_form_view/revisions/${id}"`);
    expect(html).toContain('action="/dashboard/pages/Takedown_form_view/deletion"');
    expect(html).toContain("No takedowns yet.");
    // The search box is on the takedowns tab, which the nav names.
    const tab = await (await get("/dashboard/takedowns", s)).text();
    expect(tab).toContain('<form method="get" action="/dashboard/pages" role="search"');
    expect(tab).toContain('href="/dashboard/takedowns" aria-current="page"');
    expect((await get("/dashboard/pages/Never_written_page", s)).status).toBe(404);
  });

  it("hides a revision's content and comment with a reason: the revision answers 410, the log says who, when, what, why", async () => {
    await appendOk("Takedown_form_hide", linearHistory(3, 200));
    const s = await login();
    expect((await request("/page/Takedown_form_hide/201")).status).toBe(200);
    const started = Date.now();
    const res = await post(
      "/dashboard/pages/Takedown_form_hide/revisions/201",
      { csrf: s.csrf, ...unchanged, content: "1", comment: "1", reason: "a home address" },
      { cookie: s.cookie },
    );
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/dashboard/pages/Takedown_form_hide?done=revision-201");

    expect((await request("/page/Takedown_form_hide/201")).status).toBe(410);
    const history = await (
      await request("/page/Takedown_form_hide/history")
    ).json<{
      revisions: Array<{ id: number; comment: string; suppressed: boolean }>;
    }>();
    expect(history.revisions.find((r) => r.id === 201)).toMatchObject({ comment: "", suppressed: true });

    const [entry] = await takedownsOf("Takedown_form_hide");
    expect(entry).toMatchObject({
      by: "test-operator",
      page: "Takedown form hide",
      action: { kind: "revision", revision: 201, hide: ["content", "comment"], show: [] },
      reason: "a home address",
    });
    expect(entry!.at).toBeGreaterThanOrEqual(started);

    const html = await view("Takedown_form_hide", s, "?done=revision-201");
    expect(html).toMatch(/<p class="notice" role="status">Revision 201&#39;s visibility is changed/);
    const row = html.slice(html.indexOf(`data-takedown="${entry!.id}"`));
    expect(row).toContain(formatTime(entry!.at));
    expect(row).toContain("<bdi>test-operator</bdi>");
    expect(row).toContain("revision 201: hid content, comment");
    expect(row).toContain("<bdi>a home address</bdi>");
    // The revision's row shows what is hidden and ticks its boxes; it never shows the hidden comment.
    const revRow = html.slice(html.indexOf('<tr data-revision="201"'), html.indexOf('<tr data-revision="200"'));
    expect(revRow).toContain('<td data-field="content"><em>hidden</em></td>');
    expect(revRow).toContain('<td data-field="comment"><em>hidden</em></td>');
    expect(revRow).not.toContain("edit 1");
    expect(revRow).toMatch(/name="was_content" value="1"/);
    expect(revRow).toMatch(/id="r201-content" name="content" value="1" checked/);

    // Shown again: the box unticked, from the state the page showed.
    const shown = await post(
      "/dashboard/pages/Takedown_form_hide/revisions/201",
      {
        csrf: s.csrf,
        was_content: "1",
        was_comment: "1",
        was_contributor: "0",
        content: "1",
        reason: "comment is fine",
      },
      { cookie: s.cookie },
    );
    expect(shown.status).toBe(303);
    expect((await takedownsOf("Takedown_form_hide"))[0]).toMatchObject({
      action: { kind: "revision", revision: 201, hide: [], show: ["comment"] },
      reason: "comment is fine",
    });
    expect((await request("/page/Takedown_form_hide/201")).status).toBe(410);
  });

  it("deletes the page with a reason (410, gone from /api/pages), then restores it; both are logged", async () => {
    await appendOk("Takedown_form_delete", linearHistory(2, 300));
    const s = await login();
    expect(await listed("Takedown_form_delete")).toBe(true);
    const deleted = await post(
      "/dashboard/pages/Takedown_form_delete/deletion",
      { csrf: s.csrf, deleted: "1", reason: "copyright complaint" },
      { cookie: s.cookie },
    );
    expect(deleted.status).toBe(303);
    expect(deleted.headers.get("location")).toBe("/dashboard/pages/Takedown_form_delete?done=deleted");
    expect((await request("/page/Takedown_form_delete")).status).toBe(410);
    expect(await listed("Takedown_form_delete")).toBe(false);

    // A deleted page's view still lists its revisions, and offers the restore.
    const html = await view("Takedown_form_delete", s, "?done=deleted");
    expect(html).toContain("deleted: the public gets 410");
    expect(html).toContain('<input type="hidden" name="deleted" value="0"/>');
    expect(html).toContain('<tr data-revision="301"');
    expect(html).toContain("Restore page");

    const restored = await post(
      "/dashboard/pages/Takedown_form_delete/deletion",
      { csrf: s.csrf, deleted: "0", reason: "complaint withdrawn" },
      { cookie: s.cookie },
    );
    expect(restored.status).toBe(303);
    expect((await request("/page/Takedown_form_delete")).status).toBe(200);
    expect(await listed("Takedown_form_delete")).toBe(true);
    const entries = await takedownsOf("Takedown_form_delete");
    expect(entries.map((e) => [e.by, e.action, e.reason])).toEqual([
      ["test-operator", { kind: "page", deleted: false }, "complaint withdrawn"],
      ["test-operator", { kind: "page", deleted: true }, "copyright complaint"],
    ]);
    const log = await (await get("/dashboard/takedowns?page=Takedown_form_delete", s)).text();
    expect(log).toContain("restored the page");
    expect(log).toContain("deleted the page");
    expect(log).toContain("<bdi>copyright complaint</bdi>");
  });

  it("refuses an empty or blank reason, or no change, with the form again and a clear message; nothing changes", async () => {
    await appendOk("Takedown_form_reason", linearHistory(2, 400));
    const s = await login();
    for (const reason of ["", "   "]) {
      const res = await post(
        "/dashboard/pages/Takedown_form_reason/revisions/401",
        { csrf: s.csrf, ...unchanged, content: "1", reason },
        { cookie: s.cookie },
      );
      expect(res.status).toBe(422);
      const html = await res.text();
      expect(html).toContain('<div id="takedown-errors" class="alert" role="alert">');
      expect(html).toContain(`Revision 401: ${escaped(REASON_REQUIRED)}`);
      expect(html).toMatch(
        /id="r401-reason" name="reason" required="" value="[^"]*" aria-invalid="true" aria-describedby="takedown-errors"/,
      );
      // The box comes back as sent.
      expect(html).toMatch(/id="r401-content" name="content" value="1" checked/);

      const deletion = await post(
        "/dashboard/pages/Takedown_form_reason/deletion",
        { csrf: s.csrf, deleted: "1", reason },
        { cookie: s.cookie },
      );
      expect(deletion.status).toBe(422);
      const deletionHtml = await deletion.text();
      expect(deletionHtml).toContain(escaped(REASON_REQUIRED));
      expect(deletionHtml).toContain('aria-describedby="deletion-hint takedown-errors"');
    }
    const nothing = await post(
      "/dashboard/pages/Takedown_form_reason/revisions/401",
      { csrf: s.csrf, ...unchanged, reason: "why not" },
      { cookie: s.cookie },
    );
    expect(nothing.status).toBe(422);
    expect(await nothing.text()).toContain("Nothing to change");
    await expectUntouched("Takedown_form_reason", 401);
  });

  it("refuses a missing or forged CSRF token, a form from another site, and a session without the write scope", async () => {
    await appendOk("Takedown_form_csrf", linearHistory(2, 500));
    const s = await login();
    for (const fields of await forgedCsrfFields()) {
      const hide = await post(
        "/dashboard/pages/Takedown_form_csrf/revisions/501",
        { ...fields, ...unchanged, content: "1", reason: "forged" },
        { cookie: s.cookie },
      );
      expect(hide.status).toBe(403);
      expect(await hide.text()).toContain("CSRF token is missing or not this session");
      const del = await post(
        "/dashboard/pages/Takedown_form_csrf/deletion",
        { ...fields, deleted: "1", reason: "forged" },
        { cookie: s.cookie },
      );
      expect(del.status).toBe(403);
    }
    const crossSite = await crossSitePost(
      "/dashboard/pages/Takedown_form_csrf/deletion",
      { csrf: s.csrf, deleted: "1", reason: "cross-site" },
      s,
    );
    expect(crossSite.status).toBe(403);

    // A purge-only session reads the log but has no forms, and its posts are refused.
    const purger = await login(TOKENS.purge);
    const html = await view("Takedown_form_csrf", purger);
    expect(html).toContain("does not carry the write scope");
    expect(html).not.toContain('action="/dashboard/pages/Takedown_form_csrf/deletion"');
    const refused = await post(
      "/dashboard/pages/Takedown_form_csrf/deletion",
      { csrf: purger.csrf, deleted: "1", reason: "no scope" },
      { cookie: purger.cookie },
    );
    expect(refused.status).toBe(403);
    expect(await refused.text()).toContain("does not carry the write scope");

    await expectUntouched("Takedown_form_csrf", 501);
  });
});
