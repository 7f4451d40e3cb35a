/**
 * Compression Dictionary Transport (RFC 9842) in a real browser: Debian's
 * Chromium against `palimpsest dev` (what `npm start` runs) on
 * `http://localhost`, as a reader steps through a demo page's history.
 * Revision N says `Use-As-Dictionary`; navigating to N+1, Chromium offers N
 * as `Available-Dictionary`, the archive answers `Content-Encoding: dcb`,
 * and what Chromium renders is the identity body, byte for byte.
 */
import type { Page, Response as PageResponse } from "playwright-core";
import { describe, expect, it } from "vitest";
import { useDemoAndBrowser } from "../support/demo-browser.ts";

/** What the function run in the page reads; the project's tsconfig types Workers, not the DOM. */
declare const document: {
  body: { innerText: string };
  querySelector(selector: string): { textContent: string | null } | null;
};

const PAGE = "Vellum";

const demo = useDemoAndBrowser();

async function oldestRevisions(count: number): Promise<number[]> {
  const res = await fetch(`${demo.dev.url}/page/${PAGE}/history?limit=500`, {
    headers: { accept: "application/json" },
  });
  expect(res.status).toBe(200);
  const { revisions } = await res.json<{ revisions: Array<{ id: number }> }>();
  return revisions
    .map((r) => r.id)
    .reverse()
    .slice(0, count);
}

/** The headers of one document fetched by the page. */
interface DocumentExchange {
  url: string;
  request: Record<string, string>;
  response: Record<string, string>;
}

/** Runs `steps` on a page in a fresh browser context, logging every document exchange in order; closes the context after. */
async function withDocumentLog(steps: (page: Page, seen: DocumentExchange[]) => Promise<void>): Promise<void> {
  const context = await demo.browser.newContext();
  try {
    const page = await context.newPage();
    const seen: DocumentExchange[] = [];
    page.on("response", async (r: PageResponse) => {
      if (r.request().resourceType() !== "document") return;
      seen.push({ url: r.url(), request: await r.request().allHeaders(), response: await r.allHeaders() });
    });
    await steps(page, seen);
  } finally {
    await context.close();
  }
}

/**
 * The logged exchange of the last document at `url`: the log is written from a response listener that awaits
 * the headers, which on a loaded machine can finish after `page.goto` returns, so it is waited for (5 s at most).
 */
async function exchangeFor(seen: DocumentExchange[], url: string): Promise<DocumentExchange> {
  for (const until = Date.now() + 5_000; ;) {
    const found = [...seen].reverse().find((e) => e.url === url);
    if (found || Date.now() > until) {
      expect(found, `no document exchange logged for ${url}`).toBeDefined();
      return found!;
    }
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe("dcb in Chromium", () => {
  it("navigating from revision N to N+1 comes as a dcb delta against N, and renders the identity body", async () => {
    const [first, second, third] = await oldestRevisions(3);
    await withDocumentLog(async (page, seen) => {
      const open = async (id: number) => {
        const res = await page.goto(`${demo.dev.url}/page/${PAGE}/${id}`);
        expect(res?.status()).toBe(200);
        const identity = await (
          await fetch(`${demo.dev.url}/page/${PAGE}/${id}`, { headers: { "accept-encoding": "identity" } })
        ).text();
        // A text/plain document is one <pre> holding the text as sent.
        expect(await page.evaluate(() => document.querySelector("pre")?.textContent ?? null)).toBe(identity);
        return exchangeFor(seen, `${demo.dev.url}/page/${PAGE}/${id}`);
      };

      const n = await open(first!);
      expect(n.response["use-as-dictionary"]).toMatch(/match="[^"]*\{\/\*\}\?"/);
      // br or gzip: miniflare, like Cloudflare's front line, may re-encode a br body to the client's first listed coding.
      expect(["br", "gzip"]).toContain(n.response["content-encoding"]);

      for (const id of [second!, third!]) {
        const next = await open(id);
        expect(next.request["available-dictionary"], "Chromium offers the revision before as a dictionary").toMatch(
          /^:[A-Za-z0-9+/]{43}=:$/,
        );
        expect(next.request["accept-encoding"]).toContain("dcb");
        expect(next.response["content-encoding"]).toBe("dcb");
        expect(next.response.vary?.toLowerCase()).toContain("available-dictionary");
      }
    });
  }, 60_000);

  it("reading revision N, then the page's latest, the latest comes as a dcb delta against N", async () => {
    const ids = await oldestRevisions(500);
    const latestId = ids.at(-1)!;
    // One of the latest's nearest predecessors: a dictionary a reader stepping through the history would hold.
    const held = ids.at(-2)!;
    await withDocumentLog(async (page, seen) => {
      expect((await page.goto(`${demo.dev.url}/page/${PAGE}/${held}`))?.status()).toBe(200);
      // Read it, as a reader does: Chromium stores a dictionary once its response is whole, and a navigation
      // sent the instant the page loaded (on a loaded CI machine) could go out before that.
      const heldText = await (
        await fetch(`${demo.dev.url}/page/${PAGE}/${held}`, { headers: { "accept-encoding": "identity" } })
      ).text();
      expect(await page.evaluate(() => document.querySelector("pre")?.textContent ?? null)).toBe(heldText);
      await page.waitForTimeout(500);
      const res = await page.goto(`${demo.dev.url}/page/${PAGE}`);
      expect(res?.status()).toBe(200);
      const latest = await exchangeFor(seen, `${demo.dev.url}/page/${PAGE}`);
      expect(latest.request["available-dictionary"], "Chromium offers revision N for the latest's URL").toMatch(
        /^:[A-Za-z0-9+/]{43}=:$/,
      );
      expect(latest.response["content-encoding"]).toBe("dcb");
      const identity = await (
        await fetch(`${demo.dev.url}/page/${PAGE}/${latestId}`, { headers: { "accept-encoding": "identity" } })
      ).text();
      expect(await page.evaluate(() => document.querySelector("pre")?.textContent ?? null)).toBe(identity);
    });
  }, 60_000);
});
