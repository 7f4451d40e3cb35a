/**
 * The dashboard end to end in a real browser: Debian Chromium driven by
 * playwright-core against `palimpsest dev` (what `npm start` runs), as an
 * operator uses it. Log in with the printed token by keyboard alone, purge a
 * demo page's URL and then its tag from the one form, watch each purge's
 * tiers acknowledge live until complete, and read the page through a colo
 * whose lower tier held it: the first read after completion is refetched.
 * Every control has an accessible name and Tab reaches each in order with
 * a visible focus ring; without JavaScript, login and the form still work
 * and a pending purge's page refreshes itself until complete.
 *
 * The server runs with 1 s of simulated latency between regions
 * (`--var TOPOLOGY=…`, `interRegionLatencyMs`): at 0 a purge completes
 * before its page has loaded, and there is nothing to watch.
 */
import { join } from "node:path";
import type { BrowserContext, Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { unstable_readConfig } from "wrangler";
import { REPO_ROOT } from "../../../src/tools/local/local-worker.ts";
import { useDemoAndBrowser } from "../support/demo-browser.ts";

const LINK_LATENCY_MS = 1_000;
/** The colo whose lower tier the reads go through (region oc, far from the queue's enam). */
const COLO = "SYD";

/**
 * What the functions run in the page use of the DOM. The project's one
 * tsconfig types Workers, not the DOM, so this file names just these, in
 * its own scope.
 */
interface DomElement {
  outerHTML: string;
  tabIndex: number;
  disabled?: boolean;
  type?: string;
  name?: string;
  checked?: boolean;
  matches(selector: string): boolean;
  getClientRects(): { length: number };
}
declare const document: { activeElement: DomElement | null };
declare const window: { notReloaded?: boolean };
declare function getComputedStyle(element: DomElement): { outlineStyle: string; outlineWidth: string };

function topologyWithLatency(): string {
  const vars = unstable_readConfig({ config: join(REPO_ROOT, "wrangler.toml") }, { hideWarnings: true }).vars as Record<
    string,
    unknown
  >;
  return JSON.stringify({ ...(vars.TOPOLOGY as object), interRegionLatencyMs: LINK_LATENCY_MS });
}

const demo = useDemoAndBrowser({ args: () => ["--var", `TOPOLOGY=${topologyWithLatency()}`], tailLines: 60 });

/** Which tier answered a read of `path` at COLO. */
async function readAtColo(path: string): Promise<{ status: number; tier: string | null; body: string }> {
  const res = await fetch(`${demo.dev.url}${path}`, { headers: { "x-palimpsest-colo": COLO } });
  return { status: res.status, tier: res.headers.get("x-palimpsest-tier"), body: await res.text() };
}

/** Reads until COLO's lower tier answers, so a purge has something there to remove. */
async function cachedAtColo(path: string): Promise<string> {
  for (let i = 0; i < 5; i++) {
    const read = await readAtColo(path);
    expect(read.status).toBe(200);
    if (read.tier === "lower") return read.body;
  }
  throw new Error(`${path} never came from ${COLO}'s lower tier`);
}

/** The accessible name of every input, select and textarea on the page (hidden inputs have none to give). */
async function controlsWithoutNames(page: Page): Promise<string[]> {
  const missing: string[] = [];
  for (const control of await page.locator("input:not([type=hidden]), select, textarea").all()) {
    // e.g. `- textbox "API token"`, `- radio "URLs" [checked]`: a role, then the name in quotes.
    const snapshot = (await control.ariaSnapshot()).trim();
    if (!/^- \w+ ".+"/.test(snapshot)) missing.push(`${await control.evaluate((e) => e.outerHTML)} → ${snapshot}`);
  }
  return missing;
}

const FOCUSABLE = "a[href], button, input:not([type=hidden]), select, textarea, [tabindex]:not([tabindex='-1'])";

/**
 * Reloads the page, presses Tab through it from the top, and checks that
 * focus lands on every control in document order (a radio group once, at
 * its checked radio, as browsers do), each showing its focus ring. Returns
 * the controls reached, as their opening tags.
 */
async function expectTabOrder(page: Page): Promise<string[]> {
  await page.reload();
  const expected: Locator[] = [];
  const radioGroups = new Set<string>();
  for (const control of await page.locator(FOCUSABLE).all()) {
    const { usable, radio } = await control.evaluate((e: DomElement) => ({
      usable: !e.disabled && e.tabIndex >= 0 && e.getClientRects().length > 0,
      radio: e.type === "radio" ? (e.name ?? "") : null,
    }));
    if (!usable) continue;
    if (radio === null) expected.push(control);
    else if (!radioGroups.has(radio)) {
      radioGroups.add(radio);
      expected.push(page.locator(`input[type=radio][name="${radio}"]:checked`));
    }
  }
  const reached: string[] = [];
  for (const control of expected) {
    await page.keyboard.press("Tab");
    const focus = await control.evaluate((e: DomElement) => {
      const style = getComputedStyle(e);
      return {
        tag: /^<[^>]*>/.exec(e.outerHTML)![0],
        focused: e === document.activeElement,
        ring: e.matches(":focus-visible") && style.outlineStyle !== "none" && parseFloat(style.outlineWidth) >= 2,
      };
    });
    expect(focus.focused, `Tab ${reached.length + 1} reaches ${focus.tag}`).toBe(true);
    expect(focus.ring, `a visible focus ring on ${focus.tag}`).toBe(true);
    reached.push(focus.tag);
  }
  return reached;
}

/** The numbers in "12 of 67 tiers acknowledged". */
async function progressOf(page: Page): Promise<{ acknowledged: number; total: number }> {
  const text = (await page.locator("[data-field=progress]").textContent()) ?? "";
  const m = /(\d+) of (\d+)/.exec(text);
  if (!m) throw new Error(`no progress in "${text}"`);
  return { acknowledged: Number(m[1]), total: Number(m[2]) };
}

/**
 * On a purge's page with scripts on: the acknowledged count rises without a
 * reload until every tier has acknowledged, and the time to completion
 * appears. Returns each count the page showed, in order.
 */
async function watchLiveUntilComplete(page: Page): Promise<number[]> {
  await page.evaluate(() => (window.notReloaded = true));
  const first = await progressOf(page);
  expect(first.acknowledged, "the purge was still pending when its page loaded").toBeLessThan(first.total);
  const counts = [first.acknowledged];
  await expect
    .poll(
      async () => {
        const { acknowledged } = await progressOf(page);
        if (acknowledged !== counts.at(-1)) counts.push(acknowledged);
        return (await page.locator("[data-field=overall]").textContent()) ?? "";
      },
      // Purges complete in seconds; beside another heavy job, the delivery passes can take far longer.
      { timeout: 120_000, interval: 100 },
    )
    .toBe("complete");
  // The last update may have landed between reading the count and reading the state.
  const last = await progressOf(page);
  if (last.acknowledged !== counts.at(-1)) counts.push(last.acknowledged);
  expect(last).toEqual({ acknowledged: first.total, total: first.total });
  expect(counts.at(-1)).toBe(first.total);
  expect(counts, "tiers are only ever added").toEqual([...counts].sort((a, b) => a - b));
  expect(await page.evaluate(() => window.notReloaded), "updated in place, not reloaded").toBe(true);
  // Marked as the server marks a complete purge, not left in the pending colour.
  expect(await page.locator("[data-field=overall]").getAttribute("class")).toBe("ok");
  const states = await page.locator("tbody td[data-field=state]").allTextContents();
  expect(states).toHaveLength(first.total);
  expect(new Set(states)).toEqual(new Set(["acknowledged"]));
  await expect.poll(() => page.getByText("Time to completion").isVisible()).toBe(true);
  expect(await page.locator("[data-field=took]").textContent()).toMatch(/\d/);
  return counts;
}

describe("the dashboard in Chromium against palimpsest dev", () => {
  let context: BrowserContext;
  let page: Page;
  beforeAll(async () => {
    context = await demo.browser.newContext();
    // Shorter than a test's time, so a stuck step names itself.
    context.setDefaultTimeout(45_000);
    page = await context.newPage();
  });
  afterAll(() => context?.close());

  it(
    "sends /dashboard to the login, whose token field is labelled and reached by Tab; the printed token logs in by keyboard alone",
    { timeout: 30_000 },
    async () => {
      await page.goto(`${demo.dev.url}/dashboard`);
      expect(new URL(page.url()).pathname).toBe("/dashboard/login");
      expect(await controlsWithoutNames(page)).toEqual([]);
      const order = await expectTabOrder(page);
      expect(order.some((tag) => tag.includes('id="token"'))).toBe(true);

      await page.reload();
      const field = page.getByLabel("API token");
      for (let i = 0; i < 10 && !(await field.evaluate((e: DomElement) => e === document.activeElement)); i++)
        await page.keyboard.press("Tab");
      expect(await field.evaluate((e: DomElement) => e === document.activeElement)).toBe(true);
      await page.keyboard.type(demo.dev.token);
      await Promise.all([page.waitForURL(`${demo.dev.url}/dashboard`), page.keyboard.press("Enter")]);
      await expect.poll(() => page.getByRole("heading", { name: "Purge", level: 1 }).isVisible()).toBe(true);
    },
  );

  it("labels every purge form control and Tab reaches each in order", { timeout: 30_000 }, async () => {
    expect(await controlsWithoutNames(page)).toEqual([]);
    for (const label of [
      "URLs",
      "Cache tags",
      "URL prefixes",
      "Hosts",
      "Everything",
      "Items, one per line",
      "Soft purge",
    ]) {
      expect(await page.getByLabel(label, { exact: true }).count(), label).toBe(1);
    }
    expect(await page.locator("#items-hint").textContent()).toMatch(
      /^For example URLs: \S+; cache tags: \S+; URL prefixes: \S+; hosts: \S+\. /,
    );
    const order = await expectTabOrder(page);
    for (const control of ['name="kind" value="files"', 'id="items"', 'id="soft"', 'type="submit"'])
      expect(
        order.some((tag) => tag.includes(control)),
        control,
      ).toBe(true);
  });

  it(
    "purges a URL by keyboard, shows every tier acknowledging live, and the page is refetched",
    { timeout: 240_000 },
    async () => {
      const before = await cachedAtColo("/page/Vellum");
      // Keyboard only: Tab to the items (URLs is the checked kind), type, Tab to the button, Enter.
      await page.goto(`${demo.dev.url}/dashboard`);
      const items = page.getByLabel("Items, one per line");
      for (let i = 0; i < 20 && !(await items.evaluate((e: DomElement) => e === document.activeElement)); i++)
        await page.keyboard.press("Tab");
      await page.keyboard.type(`${demo.dev.url}/page/Vellum`);
      await page.keyboard.press("Tab"); // Soft purge, left off
      await page.keyboard.press("Tab");
      expect(
        await page.getByRole("button", { name: "Purge" }).evaluate((e: DomElement) => e === document.activeElement),
      ).toBe(true);
      await Promise.all([page.waitForURL(/\/dashboard\/purges\/[^/]+$/), page.keyboard.press("Enter")]);

      expect(await page.locator("dl").textContent()).toContain(`purge of 1 URL`);
      expect(await controlsWithoutNames(page)).toEqual([]);
      console.info(
        `URL purge, tiers acknowledged as the page showed them: ${(await watchLiveUntilComplete(page)).join(" → ")}`,
      );
      await expectTabOrder(page);

      const after = await readAtColo("/page/Vellum");
      expect(after.status).toBe(200);
      expect(after.tier).not.toBe("lower");
      expect(after.body).toBe(before);
    },
  );

  it(
    "purges a cache tag from the form and watches it complete; the page is refetched",
    { timeout: 240_000 },
    async () => {
      await cachedAtColo("/page/Vellum");
      await page.goto(`${demo.dev.url}/dashboard`);
      await page.getByLabel("Cache tags", { exact: true }).check();
      await page.getByLabel("Items, one per line").fill("page:Vellum");
      await Promise.all([
        page.waitForURL(/\/dashboard\/purges\/[^/]+$/),
        page.getByRole("button", { name: "Purge" }).click(),
      ]);

      expect(await page.locator("dl").textContent()).toContain("purge of tags page:Vellum");
      console.info(
        `tag purge, tiers acknowledged as the page showed them: ${(await watchLiveUntilComplete(page)).join(" → ")}`,
      );

      const after = await readAtColo("/page/Vellum");
      expect(after.status).toBe(200);
      expect(after.tier).not.toBe("lower");
      // The audit log lists both purges, by the operator the token names.
      await page.goto(`${demo.dev.url}/dashboard/purges`);
      const log = (await page.locator("main").textContent()) ?? "";
      expect(log).toContain("page:Vellum");
      expect(log).toContain(`${demo.dev.url}/page/Vellum`);
      expect(log).toContain("local-operator");
    },
  );
});

describe("the dashboard without JavaScript", () => {
  it("logs in, purges from the form, and the purge's page refreshes itself until complete", { timeout: 240_000 }, () =>
    demo.asOperator({ javaScriptEnabled: false, stepTimeoutMs: 45_000 }, async (page) => {
      await cachedAtColo("/page/Scriptorium");
      await page.getByLabel("Items, one per line").fill(`${demo.dev.url}/page/Scriptorium`);
      await Promise.all([
        page.waitForURL(/\/dashboard\/purges\/[^/]+$/),
        page.getByRole("button", { name: "Purge" }).click(),
      ]);
      const purgeUrl = page.url();
      const first = await progressOf(page);
      expect(first.acknowledged, "the purge was still pending when its page loaded").toBeLessThan(first.total);

      let loads = 0;
      page.on("load", () => loads++);
      await expect
        .poll(async () => (await page.locator("[data-field=overall]").textContent()) ?? "", {
          timeout: 30_000,
          interval: 200,
        })
        .toBe("complete");
      expect(loads, "reloads by the <noscript> refresh").toBeGreaterThan(0);
      expect(page.url()).toBe(purgeUrl);
      const { acknowledged, total } = await progressOf(page);
      expect(acknowledged).toBe(total);
      expect(await page.getByText("Time to completion").isVisible()).toBe(true);
      expect((await readAtColo("/page/Scriptorium")).tier).not.toBe("lower");

      // Complete: no more refreshes.
      const settled = loads;
      await page.waitForTimeout(2_500);
      expect(loads).toBe(settled);
    }),
  );
});
