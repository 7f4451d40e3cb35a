/**
 * The one way the browser tests start a browser: the project's Chromium and
 * flags (src/tools/local/chromium.ts) driven by playwright-core.
 *
 * @example
 * const browser = await launchChromium();
 * const page = await browser.newPage();
 */
import { chromium, type Browser } from "playwright-core";
import { CHROMIUM, CHROMIUM_ARGS } from "../../../src/tools/local/chromium.ts";
import { fileMissing } from "./requirements.ts";

export { CHROMIUM, CHROMIUM_ARGS };

/** Null when Debian's Chromium is installed; else why not (for describeNeeding, test/node/support/requirements.ts). */
export const NO_CHROMIUM = fileMissing(CHROMIUM, "Chromium (Debian's chromium package)");

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
}
