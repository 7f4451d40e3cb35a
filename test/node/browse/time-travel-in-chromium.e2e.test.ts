/**
 * Time travel as a person uses it, in Debian Chromium
 * through playwright-core against `palimpsest dev` (what `npm start` runs):
 * a page whose history spans 2017 to 2021 is written through the write API,
 * then, with JavaScript on and off alike, a reader opens its history, asks
 * for the page as of 2019 with the date form, steps to the next edit and
 * compares it with the previous one; the year links lead to each year's
 * first edit. An HTML revision shows in the viewer's sandboxed frame with
 * its script dead. The viewer and the history pass axe-core's WCAG 2.1 AA
 * and best-practice rules.
 */
import type { Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import type { NewRevision } from "../../../src/page/types.ts";
import { ArchiveClient } from "../../../src/tools/local/archive-client.ts";
import { expectAccessiblePage } from "../support/axe.ts";
import { useDemoAndBrowser } from "../support/demo-browser.ts";

const demo = useDemoAndBrowser();

const PAGE = "Time_travel_walk";
const HTML_PAGE = "Time_travel_html";

/** Seven edits from 2017 to 2021: at the start of 2019, revision 3 (November 2018) is current. */
const DATES = [
  "2017-03-01T09:00:00Z",
  "2018-06-01T09:00:00Z",
  "2018-11-20T09:00:00Z",
  "2019-04-10T09:00:00Z",
  "2019-09-30T09:00:00Z",
  "2020-02-02T09:00:00Z",
  "2021-05-05T09:00:00Z",
];

const revisions: NewRevision[] = DATES.map((timestamp, i) => ({
  id: i + 1,
  parentId: i === 0 ? null : i,
  timestamp,
  contributor: ["Aldhelm", "Brigid", "Cuthbert"][i % 3]!,
  comment: `edit of ${timestamp.slice(0, 7)}`,
  model: "wikitext",
  text: `'''Time travel''' as of ${timestamp.slice(0, 10)}.\n\n${DATES.slice(0, i + 1)
    .map((d) => `* ${d.slice(0, 4)}`)
    .join("\n")}\n`,
}));

beforeAll(async () => {
  const client = new ArchiveClient({ url: demo.dev.url, token: demo.dev.token, attempts: 1 });
  await client.append(PAGE, revisions);
  await client.append(HTML_PAGE, [
    {
      id: 1,
      parentId: null,
      timestamp: "2019-02-02T00:00:00Z",
      contributor: "Aldhelm",
      comment: "an HTML page with a script",
      model: "html",
      text: `<!doctype html><html lang="en"><title>archived</title><p id="words">Archived words.</p><script>document.getElementById("words").textContent = "SCRIPT RAN"; parent.document.title = "owned";</script></html>`,
    },
  ]);
});

const headingOf = (page: Page) => page.getByRole("heading", { level: 1 }).innerText();

describe("a reader travels through a page's history", () => {
  it.each([
    ["without JavaScript", false],
    ["with JavaScript", true],
  ])(
    "%s: opens the history, jumps to 2019, steps to the next edit and compares it with the previous",
    async (_name, javaScriptEnabled) => {
      const context = await demo.browser.newContext({ javaScriptEnabled });
      const page = await context.newPage();
      try {
        await page.goto(`${demo.dev.url}/page/${PAGE}/history`);
        expect(await headingOf(page)).toBe("History of Time travel walk");

        // The page as of 2019: the revision current on 1 January 2019.
        const jump = page.getByRole("group", { name: "The page as of a date" });
        await jump.getByLabel("Year").fill("2019");
        await jump.getByRole("button", { name: "Show" }).click();
        await page.waitForURL(new RegExp(`/view/${PAGE}/3\\?asof=20190101000000$`));
        expect(await headingOf(page)).toBe("Time travel walk: revision 3");
        await expect(page.getByRole("status").first().innerText()).resolves.toMatch(
          /You asked for the page as of 2019-01-01 00:00:00 UTC\. This is the revision current then/,
        );
        await expect(page.locator("dl.facts time").first().getAttribute("datetime")).resolves.toBe(
          "2018-11-20T09:00:00Z",
        );
        await expect(page.locator("pre.archived").innerText()).resolves.toContain("as of 2018-11-20");

        // The next edit.
        await page.getByRole("link", { name: /^Next edit: revision 4/ }).click();
        await page.waitForURL(new RegExp(`/view/${PAGE}/4$`));
        expect(await headingOf(page)).toBe("Time travel walk: revision 4");
        await expect(page.locator("pre.archived").innerText()).resolves.toContain("as of 2019-04-10");
        await expect(page.getByRole("link", { name: /^\/web\/20190410090000\// }).isVisible()).resolves.toBe(true);

        // What that edit changed.
        await page.getByRole("link", { name: "Compare with the previous edit" }).click();
        await page.waitForURL(new RegExp(`/page/${PAGE}/compare/3\\.\\.\\.4$`));
        expect(await headingOf(page)).toBe("Time travel walk: revision 3 compared with 4");
        await expect(page.locator("tr.add").first().innerText()).resolves.toContain("2019");

        // Back in the history, the years link to their first edits; the viewer's own form goes on from there.
        await page.goto(`${demo.dev.url}/page/${PAGE}/history`);
        await page.getByRole("navigation", { name: "Years with edits" }).getByRole("link", { name: /^2020/ }).click();
        await page.waitForURL(new RegExp(`/view/${PAGE}/6$`));
        const form = page.getByRole("group", { name: "The page as of a date" });
        await form.getByLabel("Year").fill("2019");
        await form.getByLabel("Month").selectOption({ label: "October" });
        await form.getByRole("button", { name: "Show" }).click();
        await page.waitForURL(new RegExp(`/view/${PAGE}/5\\?asof=20191001000000$`));
        await page.getByRole("link", { name: /^Previous edit: revision 4/ }).click();
        await page.waitForURL(new RegExp(`/view/${PAGE}/4$`));
      } finally {
        await context.close();
      }
    },
    60_000,
  );

  it("shows an HTML revision in a sandboxed frame where its script never runs", async () => {
    const context = await demo.browser.newContext({ javaScriptEnabled: true });
    const page = await context.newPage();
    try {
      const res = await page.goto(`${demo.dev.url}/view/${HTML_PAGE}/1`);
      expect(res?.status()).toBe(200);
      expect(res?.headers()["content-security-policy"]).toMatch(/frame-src 'self'/);
      const frame = page.frameLocator("iframe.archived");
      await expect(frame.locator("#words").innerText()).resolves.toBe("Archived words.");
      expect(await page.title()).toBe("Time travel html: revision 1 · Palimpsest");
    } finally {
      await context.close();
    }
  }, 60_000);
});

describe("accessibility of the time-travel pages", () => {
  const PAGES = [
    ["viewer", `/view/${PAGE}/3?asof=20190101000000`, 200],
    ["viewer of an HTML revision", `/view/${HTML_PAGE}/1`, 200],
    ["history with its date jump", `/page/${PAGE}/history`, 200],
    ["refused date", `/view/${PAGE}?year=2019&month=2&day=30`, 400],
  ] as const;

  it.each(PAGES)(
    "the %s passes axe-core's WCAG 2.1 AA and best-practice rules",
    async (_name, path, status) => {
      // The archived document inside the frame is someone else's page, not ours to check; the frame itself is.
      await expectAccessiblePage(demo.browser, `${demo.dev.url}${path}`, status, { iframes: false });
    },
    30_000,
  );
});
