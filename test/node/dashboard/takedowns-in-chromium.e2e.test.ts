/**
 * Takedowns from the dashboard in a real browser: Debian Chromium driven by
 * playwright-core against `palimpsest dev` (what `npm start` runs), with
 * JavaScript off, as an operator does it. Log in with the printed token,
 * find a demo page with the Takedowns tab's title search, hide one of its
 * revisions' content with a reason, delete the page with a reason, and find
 * both in the takedown log with who and why; the public answers are 410.
 * Then the takedown views (a page's, a deleted page's with its log, the
 * log, a refused form) pass axe-core's WCAG 2.1 A/AA and best-practice rules.
 */
import { describe, expect, it } from "vitest";
import { expectAccessible } from "../support/axe.ts";
import { useDemoAndBrowser } from "../support/demo-browser.ts";

/** What the function run in the page uses of the DOM (the project's tsconfig types Workers, not the DOM). */
declare const document: { querySelector(s: string): { removeAttribute(name: string): void } | null };

const demo = useDemoAndBrowser();

/** Scriptorium's 12 demo revisions are 3000001 to 3000012. */
const REVISION = 3_000_005;

const status = async (path: string) => (await fetch(`${demo.dev.url}${path}`)).status;

describe("takedowns from the dashboard in Chromium, without JavaScript", () => {
  it(
    "hides a revision's content and deletes a page, each with a reason; both are in the takedown log",
    { timeout: 120_000 },
    () =>
      demo.asOperator({ javaScriptEnabled: false, stepTimeoutMs: 45_000 }, async (page) => {
        expect(await status(`/page/Scriptorium/${REVISION}`)).toBe(200);

        await page.getByRole("link", { name: "Takedowns", exact: true }).click();
        await page.waitForURL(`${demo.dev.url}/dashboard/takedowns`);
        await page.getByLabel("Page title").fill("Scriptorium");
        await Promise.all([
          page.waitForURL(`${demo.dev.url}/dashboard/pages/Scriptorium`),
          page.getByRole("button", { name: "Open page" }).click(),
        ]);
        expect(await page.getByRole("heading", { level: 1 }).innerText()).toBe("Page Scriptorium");
        expect(await page.locator("tr[data-revision]").count()).toBe(12);
        // The browser itself asks for the reason before sending: the field is required.
        expect(await page.getByLabel(`Reason for revision ${REVISION}`).getAttribute("required")).not.toBeNull();

        await page.getByLabel(`Hide content of revision ${REVISION}`).check();
        await page.getByLabel(`Reason for revision ${REVISION}`).fill("a reader's phone number");
        await Promise.all([
          page.waitForURL(/\/dashboard\/pages\/Scriptorium\?done=revision-3000005$/),
          page.getByRole("button", { name: `Apply to revision ${REVISION}` }).click(),
        ]);
        expect(await page.getByRole("status").innerText()).toContain(`Revision ${REVISION}'s visibility is changed`);
        expect(await page.locator(`tr[data-revision="${REVISION}"] td[data-field=content]`).innerText()).toBe("hidden");
        expect(await status(`/page/Scriptorium/${REVISION}`)).toBe(410);

        await page.getByLabel("Reason for deleting").fill("copyright complaint");
        await Promise.all([
          page.waitForURL(/\/dashboard\/pages\/Scriptorium\?done=deleted$/),
          page.getByRole("button", { name: "Delete page" }).click(),
        ]);
        expect(await page.locator("[data-field=state]").innerText()).toMatch(/^deleted/);
        expect(await page.getByRole("button", { name: "Restore page" }).isVisible()).toBe(true);
        expect(await status("/page/Scriptorium")).toBe(410);

        // The page's own log, then the Takedowns tab: who, what, why.
        const pageLog = await page.locator("table[aria-labelledby=page-log-heading] tbody tr").allInnerTexts();
        expect(pageLog).toHaveLength(2);
        expect(pageLog[0]).toMatch(/local-operator\s+Scriptorium\s+deleted the page\s+copyright complaint/);
        expect(pageLog[1]).toMatch(
          /local-operator\s+Scriptorium\s+revision 3000005: hid content\s+a reader's phone number/,
        );
        await page.getByRole("link", { name: "Takedowns", exact: true }).click();
        await page.waitForURL(`${demo.dev.url}/dashboard/takedowns`);
        const log = await page.locator("table[aria-labelledby=log-heading] tbody").innerText();
        expect(log).toContain("deleted the page");
        expect(log).toContain("revision 3000005: hid content");
        expect(log).toContain("copyright complaint");
        expect(log).toContain("a reader's phone number");
        expect(log).toContain("local-operator");
      }),
  );
});

describe("accessibility of the takedown views", () => {
  it(
    "a page's view, a deleted page's, the takedown log and a refused form pass axe-core's WCAG 2.1 AA and best-practice rules",
    { timeout: 120_000 },
    () =>
      // The dashboard's CSP admits only its own script; axe is injected past it.
      demo.asOperator({ bypassCSP: true, stepTimeoutMs: 45_000 }, async (page) => {
        const check = (what: string) => expectAccessible(page, what);
        for (const path of ["/dashboard/pages/Vellum", "/dashboard/pages/Scriptorium", "/dashboard/takedowns"]) {
          const res = await page.goto(`${demo.dev.url}${path}`);
          expect(res?.status(), path).toBe(200);
          await check(path);
        }
        // A reason sent empty (the browser's own check taken off, as a script could): refused, announced, checked too.
        await page.goto(`${demo.dev.url}/dashboard/pages/Vellum`);
        await page.evaluate(() => document.querySelector("#r2000120-reason")?.removeAttribute("required"));
        await page.getByLabel("Hide comment of revision 2000120").check();
        const [refused] = await Promise.all([
          page.waitForResponse((r) => r.request().method() === "POST"),
          page.getByRole("button", { name: "Apply to revision 2000120" }).click(),
        ]);
        expect(refused.status()).toBe(422);
        await page.waitForLoadState();
        expect(await page.getByRole("alert").innerText()).toContain("Give a reason");
        await check("a refused form");
      }),
  );
});
