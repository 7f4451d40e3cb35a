import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { listAudit } from "../../../src/purge/audit.ts";
import { TOKENS } from "../support/tokens.ts";
import { crossSitePost, forgedCsrfFields, get, login, ORIGIN, post } from "./support/dashboard.ts";

const auditIds = async () => (await listAudit(env, { limit: 50 })).entries.map((e) => e.id);

describe("the dashboard's purge form", () => {
  it("purges with its CSRF token and redirects to the purge's page, which the audit log lists", async () => {
    const s = await login();
    const res = await post(
      "/dashboard/purges",
      { csrf: s.csrf, kind: "tags", items: "page:Form_purge\n\nns:0", soft: "1" },
      { cookie: s.cookie },
    );
    expect(res.status).toBe(303);
    const location = res.headers.get("location")!;
    expect(location).toMatch(/^\/dashboard\/purges\/[a-z]+-q\d+%3A\d+$/);
    const id = decodeURIComponent(location.split("/").pop()!);
    const [entry] = (await listAudit(env, { limit: 50 })).entries.filter((e) => e.id === id);
    expect(entry).toMatchObject({ by: "test-operator", kind: "tags", soft: true, items: ["page:Form_purge", "ns:0"] });
    const list = await (await get("/dashboard/purges", s)).text();
    expect(list).toContain(`href="/dashboard/purges/${encodeURIComponent(id)}"`);
  });

  it("refuses a form without its CSRF token, or with another session's, with 403, and purges nothing", async () => {
    const s = await login();
    const before = await auditIds();
    for (const fields of await forgedCsrfFields()) {
      const res = await post(
        "/dashboard/purges",
        { ...fields, kind: "tags", items: "page:Never_purged" },
        { cookie: s.cookie },
      );
      expect(res.status).toBe(403);
      const html = await res.text();
      expect(html).toContain("CSRF token is missing or not this session");
      expect(html).toContain('role="alert"');
    }
    expect(await auditIds()).toEqual(before);
  });

  it("refuses a form body over the purge request limit with 413, and purges nothing", async () => {
    const s = await login();
    const before = await auditIds();
    // Past purge.maxRequestBytes (1.5 MiB) before any item is looked at.
    const items = `${ORIGIN}/page/${"A".repeat(2 * 1024 * 1024)}`;
    const res = await post("/dashboard/purges", { csrf: s.csrf, kind: "files", items }, { cookie: s.cookie });
    expect(res.status).toBe(413);
    expect(await res.text()).toContain("the request body is larger than");
    expect(await auditIds()).toEqual(before);
  });

  it("refuses a form posted from another site (Hono's origin check), even with the token", async () => {
    const s = await login();
    const before = await auditIds();
    const res = await crossSitePost("/dashboard/purges", { csrf: s.csrf, kind: "everything" }, s);
    expect(res.status).toBe(403);
    expect(await res.text()).toContain("not sent from the dashboard");
    expect(await auditIds()).toEqual(before);
  });

  it("re-renders a refused purge with each item's error, by line, announced and tied to the field", async () => {
    const s = await login();
    const items = `${ORIGIN}/page/Fine\nhttps://elsewhere.example/page/Not_ours\n\n${ORIGIN}/page/%00bad`;
    const res = await post("/dashboard/purges", { csrf: s.csrf, kind: "files", items }, { cookie: s.cookie });
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    const html = await res.text();
    expect(html).toMatch(/<div id="purge-errors" class="alert" role="alert">/);
    expect(html).toContain('aria-describedby="items-hint purge-errors"');
    expect(html).toContain('aria-invalid="true"');
    expect(html).toMatch(/Line 2: <code>https:\/\/elsewhere.example\/page\/Not_ours<\/code>/);
    expect(html).not.toMatch(/Line 1:/);
    // The form comes back as typed.
    expect(html).toContain("https://elsewhere.example/page/Not_ours\n");
    expect(html).toMatch(/value="files" checked/);
  });

  it("shows the form only to a session with the purge scope, and refuses a purge from one without", async () => {
    const s = await login(TOKENS.write);
    const home = await (await get("/dashboard", s)).text();
    expect(home).not.toContain('action="/dashboard/purges"');
    expect(home).toContain("does not carry the purge scope");
    const res = await post("/dashboard/purges", { csrf: s.csrf, kind: "everything" }, { cookie: s.cookie });
    expect(res.status).toBe(403);
  });
});
