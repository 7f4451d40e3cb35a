/**
 * The public pages end to end, as a new user tries them: `palimpsest dev`
 * (what `npm start` runs, demo pages seeded) in Debian Chromium through
 * playwright-core, with JavaScript off (the pages need none). Open `/`, type
 * the start of a demo page's title, open its history, page back through it,
 * open what one edit changed, then compare two revisions picked in the
 * history's form. Then every kind of page, an error page included, passes
 * axe-core's WCAG 2.1 A/AA and best-practice rules in the same browser. And
 * a browse page brotli-compressed with the reduced HTML dictionary, as the
 * edge sends it, renders in Chromium exactly as its identity body does.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import "../../../src/codec/install-node.ts";
import { brotliCompress } from "../../../src/codec/index.ts";
import { brotliForWire, brotliModeFor, wireLgwin } from "../../../src/representation/wire-encode.ts";
import { LIMITS } from "../../../src/limits.ts";
import { expectAccessiblePage } from "../support/axe.ts";
import { useDemoAndBrowser } from "../support/demo-browser.ts";

const demo = useDemoAndBrowser();

const headingOf = (page: Page) => page.getByRole("heading", { level: 1 }).innerText();

describe("browsing the demo archive without JavaScript", () => {
  it("searches a demo page, steps through its history and compares two revisions", async () => {
    const context = await demo.browser.newContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    try {
      await page.goto(`${demo.dev.url}/`);
      expect(await headingOf(page)).toBe("Palimpsest");
      await page.getByRole("main").getByLabel("Title starts with").fill("vel");
      await page.getByRole("main").getByRole("button", { name: "Search" }).click();
      await page.waitForURL(/\/search\?q=vel$/);
      expect(await headingOf(page)).toBe("Titles starting with “vel”");

      await page.getByRole("link", { name: "Vellum", exact: true }).click();
      await page.waitForURL(/\/page\/Vellum\/history$/);
      expect(await headingOf(page)).toBe("History of Vellum");
      // 120 revisions, 50 a page: newest first, every one linked.
      expect(await page.locator("tr[data-revision]").count()).toBe(50);
      await expect(page.getByRole("link", { name: "2000120", exact: true }).getAttribute("href")).resolves.toBe(
        "/page/Vellum/2000120",
      );
      await page.getByRole("link", { name: "Older revisions" }).first().click();
      await page.waitForURL(/older=/);
      await expect(page.getByRole("link", { name: "2000070", exact: true }).isVisible()).resolves.toBe(true);

      // What one edit changed.
      await page.getByRole("link", { name: "changes made by revision 2000070" }).click();
      await page.waitForURL(/\/page\/Vellum\/compare\/2000069\.\.\.2000070$/);
      expect(await headingOf(page)).toBe("Vellum: revision 2000069 compared with 2000070");
      const changed = await page.locator("tr.add, tr.del").count();
      expect(changed).toBeGreaterThan(0);

      // Any two, from the history's form.
      await page.goto(`${demo.dev.url}/page/Vellum/history`);
      await page.getByLabel("Compare from revision 2000100").check();
      await page.getByLabel("Compare to revision 2000120").check();
      await page.getByRole("button", { name: "Compare selected revisions" }).click();
      await page.waitForURL(/\/page\/Vellum\/compare\/2000100\.\.\.2000120$/);
      expect(await page.getByRole("heading", { level: 2 }).first().innerText()).toMatch(
        /^\d+ lines removed, \d+ added$/,
      );

      // The raw revision opens as text.
      const raw = await page.goto(`${demo.dev.url}/page/Vellum/2000120`);
      expect(raw?.status()).toBe(200);
      expect(await raw?.text()).toContain("'''Vellum''' is a page of the Palimpsest demo archive.");
    } finally {
      await context.close();
    }
  }, 60_000);
});

describe("accessibility", () => {
  const PAGES = [
    ["front page", "/", 200],
    ["search results", "/search?q=S", 200],
    ["search refused", "/search?q=", 400],
    ["history", "/page/Palimpsest_demo/history", 200],
    ["compare", "/page/Palimpsest_demo/compare/1000001...1000039", 200],
    ["error page", "/page/Nobody_wrote_this/history", 404],
  ] as const;

  it.each(PAGES)(
    "the %s passes axe-core's WCAG 2.1 AA and best-practice rules",
    async (_name, path, status) => {
      await expectAccessiblePage(demo.browser, `${demo.dev.url}${path}`, status);
    },
    30_000,
  );
});

describe("reduced static dictionary in Chromium", () => {
  /** Serves fixed bodies, as they are, from http://localhost (where Chromium asks for br). */
  async function serveBodies(
    bodies: Record<string, { body: Uint8Array; encoding?: string }>,
  ): Promise<{ url: string; server: Server; acceptEncodings: string[] }> {
    const acceptEncodings: string[] = [];
    const server = createServer((req, res) => {
      const hit = bodies[req.url ?? ""];
      if (!hit) return res.writeHead(404).end();
      acceptEncodings.push(String(req.headers["accept-encoding"] ?? ""));
      res.writeHead(200, {
        "content-type": "text/html; charset=utf-8",
        "content-length": String(hit.body.byteLength),
        ...(hit.encoding ? { "content-encoding": hit.encoding } : {}),
      });
      res.end(hit.body);
    });
    await new Promise<void>((resolve) => server.listen(0, "localhost", resolve));
    return { url: `http://localhost:${(server.address() as AddressInfo).port}`, server, acceptEncodings };
  }

  it("renders a browse page sent as br with the HTML table exactly as its identity body", async () => {
    // The page as the archive renders it; compressed here by the edge's own function
    // (palimpsest dev runs behind miniflare, which would re-encode br for Chromium's `gzip, deflate, br`).
    const res = await fetch(`${demo.dev.url}/page/Vellum/history`, {
      headers: { accept: "text/html", "accept-encoding": "identity" },
    });
    expect(res.status).toBe(200);
    const type = res.headers.get("content-type")!;
    const identity = new Uint8Array(await res.arrayBuffer());
    const br = brotliForWire(identity, LIMITS.wire.dynamicBrotliQuality, type);
    const stock = brotliCompress(identity, {
      quality: LIMITS.wire.dynamicBrotliQuality,
      lgwin: wireLgwin(identity.byteLength),
      mode: brotliModeFor(type),
    });
    expect(Buffer.from(br).equals(Buffer.from(stock)), "the page uses dictionary words the table holds").toBe(false);

    const served = await serveBodies({ "/identity": { body: identity }, "/br": { body: br, encoding: "br" } });
    const context = await demo.browser.newContext({ javaScriptEnabled: false });
    try {
      const page = await context.newPage();
      const render = async (path: string) => {
        const response = await page.goto(`${served.url}${path}`);
        expect(response?.status()).toBe(200);
        return {
          encoding: (await response!.allHeaders())["content-encoding"],
          html: await page.content(),
          text: await page.innerText("body"),
        };
      };
      const plain = await render("/identity");
      const coded = await render("/br");
      expect(served.acceptEncodings.at(-1)).toMatch(/\bbr\b/);
      expect(coded.encoding).toBe("br");
      expect(coded.text).toBe(plain.text);
      expect(coded.html).toBe(plain.html);
      expect(plain.text).toContain("History of Vellum");
    } finally {
      await context.close();
      await new Promise((resolve) => served.server.close(resolve));
    }
  }, 60_000);
});
