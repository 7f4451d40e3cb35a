/**
 * The one way the browser tests start a browser: Debian's Chromium driven by
 * playwright-core (never a downloaded browser), with the flags that keep it
 * quiet and offline. On `http://localhost` this Chromium sends
 * `Available-Dictionary` and decodes `dcb` (RFC 9842).
 *
 * @example
 * const browser = await launchChromium();
 * const page = await browser.newPage();
 */
import { chromium, type Browser } from "playwright-core";

export const CHROMIUM = "/usr/bin/chromium";
export const CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"];

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
}
