import { describe, expect, it } from "vitest";
import { request } from "../support/archive.ts";
import { bearer, TOKENS } from "../support/tokens.ts";
import { API_ACCEPTS, browse, htmlOf, requestAccepting, textOf } from "./support/browse-pages.ts";

describe("errors in a browser", () => {
  it("are a readable page with the problem's status, title, detail, code and request id", async () => {
    const res = await browse("/no/such/route", { "x-request-id": "browse-err-1" });
    const html = await htmlOf(res, 404);
    const text = textOf(html);
    expect(html).toContain('<html lang="en">');
    expect(text).toContain("404 Not Found");
    expect(text).toContain("No route for GET /no/such/route");
    expect(text).toContain("not_found");
    expect(text).toContain("browse-err-1");
    expect(res.headers.get("vary")).toMatch(/\bAccept\b/);
    expect(res.headers.get("content-security-policy")).toContain("default-src 'none'");
  });

  it("keep the status and headers of what went wrong: a page nobody wrote, a limit, a missing token", async () => {
    const missing = await htmlOf(await browse("/page/Err_nobody_wrote"), 404);
    expect(textOf(missing)).toContain("page_not_found");
    const bad = await htmlOf(await browse("/page/Err_x/history?limit=0"), 400);
    expect(textOf(bad)).toContain("history.maxPageSize = 500");
    const unauth = await browse("/api/purges");
    expect(unauth.status).toBe(401);
    expect(unauth.headers.get("www-authenticate")).toBeTruthy();
    expect(textOf(await htmlOf(unauth, 401))).toContain("unauthenticated");
  });

  it("stay problem JSON for API clients", async () => {
    for (const accept of [...API_ACCEPTS, "application/problem+json"]) {
      const res = await requestAccepting("/no/such/route", accept);
      expect(res.status, accept).toBe(404);
      expect(res.headers.get("content-type"), accept).toBe("application/problem+json");
      expect((await res.json<{ code: string }>()).code, accept).toBe("not_found");
      expect(res.headers.get("vary"), accept).toMatch(/\bAccept\b/);
    }
    const res = await request("/api/purges", { headers: { ...bearer(TOKENS.write), accept: "application/json" } });
    expect(res.headers.get("content-type")).toBe("application/problem+json");
    await res.body?.cancel();
  });
});
