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
import type { Browser } from "playwright-core";
import { afterAll, afterEach, beforeAll } from "vitest";
import { launchChromium } from "./chromium.ts";
import { startPalimpsestDev, type PalimpsestDev } from "./palimpsest-dev.ts";

export interface DemoAndBrowser {
  /** Set once beforeAll has run. */
  readonly dev: PalimpsestDev;
  readonly browser: Browser;
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

  return {
    get dev() {
      if (!started.dev) throw new Error("palimpsest dev is not running: use demo.dev inside a test");
      return started.dev;
    },
    get browser() {
      if (!started.browser) throw new Error("Chromium is not running: use demo.browser inside a test");
      return started.browser;
    },
  };
}
