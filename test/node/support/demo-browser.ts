/**
 * The browser tests' one fixture: `palimpsest dev` (what `npm start` runs)
 * with its demo pages ready, and a Chromium beside it, started once for the
 * test file and stopped after it. A failing test prints the server's last
 * lines, so what it said meanwhile (reloads, errors, slow requests) is in
 * the report.
 *
 * @example
 * const demo = useDemoAndBrowser();
 * it("opens the front page", async () => {
 *   const page = await demo.browser.newPage();
 *   await page.goto(`${demo.dev.url}/`);
 * });
 */
import type { Browser, BrowserContext, BrowserContextOptions, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, expect } from "vitest";
import { launchChromium } from "./chromium.ts";
import { startPalimpsestDev, type PalimpsestDev } from "./palimpsest-dev.ts";

export interface DemoAndBrowser {
  /** Set once beforeAll has run. */
  readonly dev: PalimpsestDev;
  readonly browser: Browser;
  /**
   * Runs `fn` in a fresh browser context made with `options`, closed after it
   * whatever happens; its steps time out after `stepTimeoutMs` (shorter than a
   * test's time, so a stuck step names itself).
   */
  inContext<T>(
    options: BrowserContextOptions & { stepTimeoutMs?: number },
    fn: (context: BrowserContext) => Promise<T>,
  ): Promise<T>;
  /**
   * {@link inContext}, with `fn` given a page of the context logged in to the
   * dashboard through its form, with the token `palimpsest dev` printed.
   */
  asOperator<T>(
    options: BrowserContextOptions & { stepTimeoutMs?: number },
    fn: (page: Page) => Promise<T>,
  ): Promise<T>;
}

/** Registers the hooks; `args` are `palimpsest dev`'s, worked out when the server starts. */
export function useDemoAndBrowser(options: { args?: () => string[]; tailLines?: number } = {}): DemoAndBrowser {
  const started: { dev?: PalimpsestDev; browser?: Browser } = {};
  beforeAll(async () => {
    started.dev = await startPalimpsestDev(options.args?.() ?? [], { ready: /demo pages ready/ });
    started.browser = await launchChromium();
  }, 300_000);

  afterEach(({ task }) => {
    if (task.result?.state === "fail" && started.dev)
      console.error(`palimpsest dev, last lines:\n${started.dev.tail(options.tailLines ?? 40)}`);
  });

  afterAll(async () => {
    await started.browser?.close().catch(() => undefined);
    await started.dev?.stop();
  }, 30_000);

  const demo: DemoAndBrowser = {
    get dev() {
      if (!started.dev) throw new Error("palimpsest dev is not running: use demo.dev inside a test");
      return started.dev;
    },
    get browser() {
      if (!started.browser) throw new Error("Chromium is not running: use demo.browser inside a test");
      return started.browser;
    },
    async inContext({ stepTimeoutMs, ...options }, fn) {
      const context = await demo.browser.newContext(options);
      if (stepTimeoutMs !== undefined) context.setDefaultTimeout(stepTimeoutMs);
      try {
        return await fn(context);
      } finally {
        await context.close();
      }
    },
    asOperator(options, fn) {
      return demo.inContext(options, async (context) => {
        const page = await context.newPage();
        await page.goto(`${demo.dev.url}/dashboard`);
        expect(new URL(page.url()).pathname).toBe("/dashboard/login");
        await page.getByLabel("API token").fill(demo.dev.token);
        await Promise.all([page.waitForURL(`${demo.dev.url}/dashboard`), page.getByLabel("API token").press("Enter")]);
        return fn(page);
      });
    },
  };
  return demo;
}
