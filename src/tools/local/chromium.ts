/**
 * The one Chromium the project's tools and browser tests drive: Debian's
 * (never a downloaded browser), with the flags that keep it headless, quiet
 * and offline. On `http://localhost` it sends `Available-Dictionary` and
 * decodes `dcb` (RFC 9842).
 *
 * @example
 * await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
 */
export const CHROMIUM = "/usr/bin/chromium";
export const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];
