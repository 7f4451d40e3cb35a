/**
 * What an anonymous export can make the archive spend, and what keeps it
 * correct: every export answer has a strong ETag of the page's version, its
 * selection and its scope, so `If-None-Match` is answered without reading a
 * revision; a repeated anonymous export is a tier hit; a suppression purges
 * the cached answer at once; an answer too big for a tier entry streams; and
 * each client gets `export.anonymousPerMinute` anonymous exports a minute,
 * while another client and a backup token are not held back by it.
 */
import { createExecutionContext, env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { LIMITS } from "../../../src/limits.ts";
import { ServedHosts, keyOfUrl } from "../../../src/purge/canonical.ts";
import { exportKey } from "../../../src/tiers/cache-key.ts";
import { app } from "../../../workers/app.ts";
import { appendOk, linearHistory, request } from "../support/archive.ts";
import { TOKENS, bearer } from "../support/tokens.ts";

/** Each test its own client address, so the per-client limit of one never reaches another. */
const client = (n: number) => ({ "cf-connecting-ip": `192.0.2.${n}` });

const exportOf = (page: string, headers: Record<string, string>, query = "") =>
  request(`/page/${page}/export${query}`, { headers });

/**
 * A request whose PageStore calls are counted by method: the edge's own work. (What a tier's origin
 * render does happens in the tier's Durable Object, with its own env; `x-palimpsest-tier` says whether
 * one ran.)
 */
function counted(): { calls: Record<string, number>; fetch: (path: string, init?: RequestInit) => Promise<Response> } {
  const calls: Record<string, number> = {};
  // Each method called on a page's handle (the shard's `page(key)`) is counted.
  const countingProxy = <T extends object>(target: T): T =>
    new Proxy(target, {
      get(target, prop) {
        const methods = target as unknown as Record<string, (...a: unknown[]) => unknown>;
        if (typeof prop !== "string" || prop === "then") {
          const value = methods[prop as string];
          return typeof value === "function" ? value.bind(target) : value;
        }
        return (...args: unknown[]) => {
          calls[prop] = (calls[prop] ?? 0) + 1;
          return methods[prop]!(...args);
        };
      },
    });
  const stores = {
    getByName(name: string) {
      const stub = env.PAGE_STORE.getByName(name);
      return new Proxy(stub, {
        get(target, prop) {
          if (prop === "page") return (key: string) => countingProxy(target.page(key));
          return (target as unknown as Record<string | symbol, unknown>)[prop];
        },
      });
    },
  };
  const countingEnv = { ...env, PAGE_STORE: stores } as unknown as Env;
  return {
    calls,
    fetch: (path, init = {}) =>
      Promise.resolve(
        app.fetch(
          new Request(`http://archive.test${path}`, { redirect: "manual", ...init }),
          countingEnv,
          createExecutionContext(),
        ),
      ),
  };
}

const ETAG = /^"export-\d+-[0-9a-f]{32}"$/;

/** Answered by a tier, not made at the origin (this colo's own tier keeps it once the answer's background put is done). */
const TIERS = ["lower", "regional", "upper"];

describe("validators", () => {
  const page = "Export_validators";
  beforeAll(() => appendOk(page, linearHistory(4)));

  it("every export answer carries a strong ETag of the page's version, the selection and the scope", async () => {
    const anonymous = await exportOf(page, client(1));
    expect(anonymous.status).toBe(200);
    const tag = anonymous.headers.get("etag")!;
    expect(tag).toMatch(ETAG);
    const backup = await exportOf(page, { ...client(1), ...bearer(TOKENS.backup) });
    expect(backup.status).toBe(200);
    expect(backup.headers.get("etag")).toMatch(ETAG);
    expect(backup.headers.get("etag")).not.toBe(tag);
    expect(backup.headers.get("cache-control")).toBe("no-store");
    const paged = await exportOf(page, client(1), "?limit=2");
    expect(paged.headers.get("etag")).toMatch(ETAG);
    expect(paged.headers.get("etag")).not.toBe(tag);
    // The same selection spelled another way is the same answer.
    expect((await exportOf(page, client(1), "?dir=asc&limit=1000")).headers.get("etag")).toBe(tag);
    await Promise.all([anonymous.body?.cancel(), backup.body?.cancel(), paged.body?.cancel()]);

    // A write bumps the version: a new tag, and the old one no longer matches.
    await appendOk(page, linearHistory(5).slice(4));
    const after = await exportOf(page, { ...client(1), "if-none-match": tag });
    expect(after.status).toBe(200);
    expect(after.headers.get("etag")).toMatch(ETAG);
    expect(after.headers.get("etag")).not.toBe(tag);
    expect(after.headers.get("x-export-revisions")).toBe("5");
    await after.body?.cancel();
  });

  it("If-None-Match is answered 304 without reading a revision", async () => {
    const first = await exportOf(page, client(2));
    const tag = first.headers.get("etag")!;
    await first.body?.cancel();
    const edge = counted();
    const again = await edge.fetch(`/page/${page}/export`, { headers: { ...client(2), "if-none-match": tag } });
    expect(again.status).toBe(304);
    expect(again.headers.get("etag")).toBe(tag);
    // From this colo's tier: no origin render, and the edge asked no PageStore anything.
    expect(TIERS).toContain(again.headers.get("x-palimpsest-tier"));
    expect(edge.calls).toEqual({});

    // A backup's export streams from the origin: its 304 asks the PageStore for the version only.
    const backupHeaders = { ...client(2), ...bearer(TOKENS.backup) };
    const whole = counted();
    const backup = await whole.fetch(`/page/${page}/export`, { headers: backupHeaders });
    expect(backup.status, await backup.clone().text()).toBe(200);
    await backup.text();
    expect(whole.calls.exportRevisions).toBeGreaterThan(0);
    const conditional = counted();
    const notModified = await conditional.fetch(`/page/${page}/export`, {
      headers: { ...backupHeaders, "if-none-match": backup.headers.get("etag")! },
    });
    expect(notModified.status).toBe(304);
    expect(notModified.headers.get("etag")).toBe(backup.headers.get("etag"));
    expect(conditional.calls.exportRevisions ?? 0).toBe(0);
  });
});

describe("anonymous exports through the tiers", () => {
  const page = "Export_tiered";
  const secret = "== Revision 2 ==\nthe words to take back\n";
  beforeAll(() =>
    appendOk(
      page,
      linearHistory(3, 1, (i) => (i === 1 ? secret : `== Revision ${i + 1} ==\nBody ${i}\n`)),
    ),
  );

  it("a repeated export is served from a tier, byte for byte, under the key a purge by URL names", async () => {
    const first = await exportOf(page, client(3), "?limit=2");
    expect(first.status).toBe(200);
    const xml = await first.text();
    expect(first.headers.get("x-palimpsest-tier")).toBe("origin");
    const again = await exportOf(page, client(3), "?limit=2");
    expect(TIERS).toContain(again.headers.get("x-palimpsest-tier"));
    expect(await again.text()).toBe(xml);
    for (const res of [first, again]) {
      expect(res.headers.get("link")).toBe(
        `<http://archive.test/page/${page}/export?offset=a2&limit=2&dir=asc>; rel="next"`,
      );
      expect(res.headers.get("content-encoding")).toBeNull();
      expect(res.headers.get("vary")).toMatch(/Accept-Encoding/);
      expect(res.headers.get("content-security-policy")).toMatch(/^sandbox\b/);
    }
    // A Range of a kept answer is cut from it.
    const range = await request(`/page/${page}/export?limit=2`, { headers: { ...client(3), range: "bytes=0-9" } });
    expect(range.status).toBe(206);
    expect(await range.text()).toBe(xml.slice(0, 10));
    const served = new ServedHosts("archive.test");
    expect(keyOfUrl(`http://archive.test/page/${page}/export?limit=2`, served)).toEqual({
      ok: true,
      value: exportKey(page, null, "asc", 2).key,
    });
  });

  it("a suppression purges it: the next anonymous export hides the content at once", async () => {
    const before = await exportOf(page, client(4));
    expect(await before.text()).toContain("the words to take back");
    const cached = await exportOf(page, client(4));
    expect(TIERS).toContain(cached.headers.get("x-palimpsest-tier"));
    expect(await cached.text()).toContain("the words to take back");
    const suppressed = await request(`/api/pages/${page}/revisions/2/suppression`, {
      method: "PUT",
      headers: { ...bearer(TOKENS.write), "content-type": "application/json" },
      body: JSON.stringify({ suppressed: true, reason: "the words were not theirs to publish" }),
    });
    expect(suppressed.status, await suppressed.clone().text()).toBe(200);
    const after = await exportOf(page, client(4));
    expect(after.status).toBe(200);
    const xml = await after.text();
    expect(xml).not.toContain("the words to take back");
    expect(xml).toContain(`<text deleted="deleted" />`);
    expect(after.headers.get("etag")).not.toBe(before.headers.get("etag"));
  });
});

describe("an anonymous answer too big for a tier entry", () => {
  const page = "Export_past_tiers";
  const bytes = LIMITS.tiers.maxEntryBytes + 1024;
  beforeAll(
    () =>
      appendOk(
        page,
        linearHistory(1, 1, () => "x".repeat(bytes)),
      ),
    120_000,
  );

  it("streams, no-store, with its ETag, and answers If-None-Match with 304", async () => {
    const res = await exportOf(page, client(5));
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("no-store");
    const tag = res.headers.get("etag")!;
    expect(tag).toMatch(ETAG);
    const xml = await res.text();
    expect(xml).toContain(`<text bytes="${bytes}"`);
    expect(xml.endsWith("</mediawiki>\n")).toBe(true);
    const again = await exportOf(page, { ...client(5), "if-none-match": tag });
    expect(again.status).toBe(304);
  }, 60_000);
});

describe(`export.anonymousPerMinute (${LIMITS.export.anonymousPerMinute})`, () => {
  const page = "Export_limited";
  beforeAll(() => appendOk(page, linearHistory(2)));

  it("refuses a client's export past the limit with a 429 naming it; another client and a backup token go on", async () => {
    const allowance = LIMITS.export.anonymousPerMinute;
    // The binding counts in fixed one-minute windows: start the burst early in one.
    const intoWindow = Date.now() % 60_000;
    if (intoWindow > 40_000) await new Promise((r) => setTimeout(r, 60_500 - intoWindow));
    for (let i = 0; i < allowance; i++) {
      const res = await exportOf(page, client(6));
      expect(res.status, `export ${i + 1}`).toBe(200);
      await res.body?.cancel();
    }
    const refused = await exportOf(page, client(6));
    expect(refused.status).toBe(429);
    expect(refused.headers.get("content-type")).toBe("application/problem+json");
    const retryAfter = Number(refused.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    const problem = await refused.json<{ code: string; limit: { name: string; value: number } }>();
    expect(problem.code).toBe("export_rate_limited");
    expect(problem.limit).toEqual({ name: "export.anonymousPerMinute", value: allowance });

    const other = await exportOf(page, client(7));
    expect(other.status).toBe(200);
    await other.body?.cancel();
    const backup = await exportOf(page, { ...client(6), ...bearer(TOKENS.backup) });
    expect(backup.status).toBe(200);
    await backup.body?.cancel();
  }, 90_000);
});
