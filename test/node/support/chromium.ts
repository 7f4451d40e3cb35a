/**
 * The one way the browser tests start a browser: the project's Chromium and
 * flags (src/local/chromium.ts) driven by playwright-core.
 *
 * @example
 * const browser = await launchChromium();
 * const page = await browser.newPage();
 */
import { chromium, type Browser } from "playwright-core";
import { CHROMIUM, CHROMIUM_ARGS } from "../../../src/local/chromium.ts";

export { CHROMIUM, CHROMIUM_ARGS };

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
}
