/**
 * Compression Dictionary Transport (RFC 9842) in a real browser: Debian's
 * Chromium against `palimpsest dev` (what `npm start` runs) on
 * `http://localhost`, as a reader steps through a demo page's history.
 * Revision N says `Use-As-Dictionary`; navigating to N+1, Chromium offers N
 * as `Available-Dictionary`, the archive answers `Content-Encoding: dcb`,
 * and what Chromium renders is the identity body, byte for byte.
 */
import type { Browser, Response as PageResponse } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium } from "../support/chromium.ts";
import { startPalimpsestDev, type PalimpsestDev } from "../support/palimpsest-dev.ts";

/** What the function run in the page reads; the project's tsconfig types Workers, not the DOM. */
declare const document: { body: { innerText: string }; querySelector(selector: string): { textContent: string | null } | null };

const PAGE = "Vellum";

let dev: PalimpsestDev;
let browser: Browser;

beforeAll(async () => {
  dev = await startPalimpsestDev([], { ready: /demo pages ready/ });
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close().catch(() => undefined);
  await dev?.stop();
}, 30_000);

async function oldestRevisions(count: number): Promise<number[]> {
  const res = await fetch(`${dev.url}/page/${PAGE}/history?limit=500`, { headers: { accept: "application/json" } });
  expect(res.status).toBe(200);
  const { revisions } = (await res.json()) as { revisions: Array<{ id: number }> };
  return revisions
    .map((r) => r.id)
    .reverse()
    .slice(0, count);
}

describe("dcb in Chromium", () => {
  it("navigating from revision N to N+1 comes as a dcb delta against N, and renders the identity body", async () => {
    const [first, second, third] = await oldestRevisions(3);
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      const seen: Array<{ url: string; request: Record<string, string>; response: Record<string, string> }> = [];
      page.on("response", async (r: PageResponse) => {
        if (r.request().resourceType() !== "document") return;
        seen.push({ url: r.url(), request: await r.request().allHeaders(), response: await r.allHeaders() });
      });
      const open = async (id: number) => {
        const res = await page.goto(`${dev.url}/page/${PAGE}/${id}`);
        expect(res?.status()).toBe(200);
        const identity = await (await fetch(`${dev.url}/page/${PAGE}/${id}`, { headers: { "accept-encoding": "identity" } })).text();
        // A text/plain document is one <pre> holding the text as sent.
        expect(await page.evaluate(() => document.querySelector("pre")?.textContent ?? null)).toBe(identity);
        return seen.at(-1)!;
      };

      const n = await open(first!);
      expect(n.response["use-as-dictionary"]).toMatch(/match="[^"]*\{\/\*\}\?"/);
      // br or gzip: miniflare, like Cloudflare's front line, may re-encode a br body to the client's first listed coding.
      expect(["br", "gzip"]).toContain(n.response["content-encoding"]);

      for (const id of [second!, third!]) {
        const next = await open(id);
        expect(next.request["available-dictionary"], "Chromium offers the revision before as a dictionary").toMatch(/^:[A-Za-z0-9+/]{43}=:$/);
        expect(next.request["accept-encoding"]).toContain("dcb");
        expect(next.response["content-encoding"]).toBe("dcb");
        expect(next.response.vary?.toLowerCase()).toContain("available-dictionary");
      }
    } finally {
      await context.close();
    }
  }, 60_000);

  it("reading revision N, then the page's latest, the latest comes as a dcb delta against N", async () => {
    const ids = await oldestRevisions(500);
    const latestId = ids.at(-1)!;
    // One of the latest's nearest predecessors: a dictionary a reader stepping through the history would hold.
    const held = ids.at(-2)!;
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      const seen: Array<{ url: string; request: Record<string, string>; response: Record<string, string> }> = [];
      page.on("response", async (r: PageResponse) => {
        if (r.request().resourceType() !== "document") return;
        seen.push({ url: r.url(), request: await r.request().allHeaders(), response: await r.allHeaders() });
      });
      expect((await page.goto(`${dev.url}/page/${PAGE}/${held}`))?.status()).toBe(200);
      const res = await page.goto(`${dev.url}/page/${PAGE}`);
      expect(res?.status()).toBe(200);
      const latest = seen.at(-1)!;
      expect(latest.url).toBe(`${dev.url}/page/${PAGE}`);
      expect(latest.request["available-dictionary"], "Chromium offers revision N for the latest's URL").toMatch(/^:[A-Za-z0-9+/]{43}=:$/);
      expect(latest.response["content-encoding"]).toBe("dcb");
      const identity = await (await fetch(`${dev.url}/page/${PAGE}/${latestId}`, { headers: { "accept-encoding": "identity" } })).text();
      expect(await page.evaluate(() => document.querySelector("pre")?.textContent ?? null)).toBe(identity);
    } finally {
      await context.close();
    }
  }, 60_000);
});
