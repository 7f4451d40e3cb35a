/**
 * axe-core's WCAG 2.1 A/AA and best-practice rules, run in a Chromium page.
 * The pages' CSP admits no script of ours, so a page checked here must be
 * in a context that bypasses CSP (`bypassCSP: true`): axe is injected past it.
 *
 * @example
 * await expectAccessiblePage(demo.browser, `${demo.dev.url}/page/Vellum/history`, 200);
 */
import { createRequire } from "node:module";
import type { Browser, Page } from "playwright-core";
import { expect } from "vitest";

const AXE_SCRIPT = createRequire(import.meta.url).resolve("axe-core/axe.min.js");
const RULES = { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"] };

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: Array<{ target: string[] }>;
}
declare const axe: { run(options: object): Promise<{ violations: AxeViolation[]; passes: unknown[] }> };

export interface AxeScope {
  /**
   * False to leave the documents inside frames out: an archived document in
   * the viewer's frame is someone else's page, not ours to check; the frame itself is.
   */
  iframes?: false;
}

/** The page as it stands breaks none of the rules, and more than ten of them were checked and passed. */
export async function expectAccessible(page: Page, what?: string, scope: AxeScope = {}): Promise<void> {
  await page.addScriptTag({ path: AXE_SCRIPT });
  const result = await page.evaluate((options) => axe.run(options), { ...scope, runOnly: RULES });
  const summary = result.violations.map(
    (v) => `${v.id} (${v.impact}): ${v.help} at ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`,
  );
  expect(summary, what).toEqual([]);
  expect(result.passes.length, what).toBeGreaterThan(10);
}

/** Opens `url` in a fresh context past its CSP: it answers `status` in HTML and is accessible. */
export async function expectAccessiblePage(
  browser: Browser,
  url: string,
  status: number,
  scope: AxeScope = {},
): Promise<void> {
  const context = await browser.newContext({ bypassCSP: true });
  const page = await context.newPage();
  try {
    const res = await page.goto(url);
    expect(res?.status()).toBe(status);
    expect(res?.headers()["content-type"]).toMatch(/^text\/html/);
    await expectAccessible(page, url, scope);
  } finally {
    await context.close();
  }
}
