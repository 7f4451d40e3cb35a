/**
 * `bench dashboard`: Lighthouse's performance and accessibility scores for
 * every operator page, in Debian Chromium, against the project's own Worker
 * running locally (src/tools/local/local-worker.ts) with the demo pages and one
 * completed purge, so no page is empty. Lighthouse runs with its default
 * profile: a mid-range phone on a throttled (simulated slow 4G) link.
 *
 * The same run audits the public front page `/` the same way, as the
 * baseline: each operator page's `vs_front_page` is its score over the
 * front page's.
 *
 * Rows (`--json`: one object per line):
 *
 * | row | fields |
 * |---|---|
 * | `page` | `page`, `path`, `performance` and `accessibility` (0–100), `fcp_ms`, `lcp_ms`, `tbt_ms`, `cls`, `transfer_bytes`, `failed_audits` (accessibility audits that did not pass), `cpu_slowdown` (the CPU multiplier Lighthouse simulated), `vs_front_page` (performance and accessibility ratios; null for the front page itself) |
 * | `target` | per operator page and category: `want` (>= 95), `got`, `met` |
 *
 * Performance is a timing: Lighthouse simulates a slow phone from the CPU
 * time it observes, so a loaded machine scores lower. It is a benchmark
 * figure to compare within a run, not something a test can hold to.
 *
 * @example
 * await benchDashboard({ chromePath: "/usr/bin/chromium", log: console.error }, (row) => console.log(JSON.stringify(row)));
 */
import * as chromeLauncher from "chrome-launcher";
import lighthouse from "lighthouse";
import { seedDemo } from "../../local/seed-demo.ts";
import { ArchiveClient } from "../../local/archive-client.ts";
import { CHROMIUM_ARGS } from "../../local/chromium.ts";
import { startLocalWorker } from "../../local/local-worker.ts";
import { round } from "../harness/index.ts";

export interface DashboardBenchOptions {
  chromePath: string;
  log: (msg: string) => void;
  /** Lighthouse's simulated CPU slowdown; default its own (4, a mid-range phone). */
  cpuSlowdown?: number;
}

export interface PageRow {
  row: "page";
  page: string;
  path: string;
  performance: number;
  accessibility: number;
  fcp_ms: number;
  lcp_ms: number;
  tbt_ms: number;
  cls: number;
  transfer_bytes: number;
  failed_audits: string[];
  cpu_slowdown: number;
  vs_front_page: { performance: number; accessibility: number } | null;
}

export interface TargetRow {
  row: "target";
  page: string;
  category: "performance" | "accessibility";
  want: ">= 95";
  got: number;
  met: boolean;
}

export type DashboardBenchRow = PageRow | TargetRow;

const TARGET = 95;
/** Runs of Lighthouse on one page when it fails to record the page at all. */
const LIGHTHOUSE_ATTEMPTS = 3;

/** Logs in as an operator through the login endpoint the form posts to, and returns the session cookie. */
async function sessionCookie(url: string, token: string): Promise<string> {
  const res = await fetch(`${url}/dashboard/login`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", origin: url },
    body: new URLSearchParams({ token }),
  });
  const cookie = res.headers.get("set-cookie");
  if (res.status !== 303 || !cookie) throw new Error(`dashboard login answered ${res.status} without a session cookie`);
  return cookie.split(";", 1)[0]!;
}

type Lhr = NonNullable<Awaited<ReturnType<typeof lighthouse>>>["lhr"];

function pageRow(page: string, path: string, lhr: Lhr): Omit<PageRow, "vs_front_page"> {
  const score = (id: string) => Math.round((lhr.categories[id]?.score ?? 0) * 100);
  const metric = (id: string) => round(lhr.audits[id]?.numericValue ?? Number.NaN, 1);
  const failed = (lhr.categories.accessibility?.auditRefs ?? [])
    .filter((ref) => ref.weight > 0 && lhr.audits[ref.id]?.score !== null && (lhr.audits[ref.id]?.score ?? 1) < 1)
    .map((ref) => ref.id);
  return {
    row: "page",
    page,
    path,
    performance: score("performance"),
    accessibility: score("accessibility"),
    fcp_ms: metric("first-contentful-paint"),
    lcp_ms: metric("largest-contentful-paint"),
    tbt_ms: metric("total-blocking-time"),
    cls: round(lhr.audits["cumulative-layout-shift"]?.numericValue ?? Number.NaN, 3),
    transfer_bytes: lhr.audits["total-byte-weight"]?.numericValue ?? 0,
    failed_audits: failed,
    cpu_slowdown: lhr.configSettings.throttling.cpuSlowdownMultiplier,
  };
}

export async function benchDashboard(o: DashboardBenchOptions, onRow: (row: DashboardBenchRow) => void): Promise<void> {
  const worker = await startLocalWorker({ vars: { ENVIRONMENT: "development" } });
  try {
    const seeded = await seedDemo(worker.url, worker.token);
    const client = new ArchiveClient({ url: worker.url, token: worker.token });
    const receipt = await client.purge({ files: [`${worker.url}/page/${seeded[0]}`] });
    const status = await client.purgeStatus(receipt.id, { waitSeconds: 30 });
    if (status?.state !== "complete") throw new Error(`purge ${receipt.id} did not complete within 30 s`);
    const cookie = await sessionCookie(worker.url, worker.token);
    o.log(`bench dashboard: ${seeded.length} demo pages, purge ${receipt.id} complete; Lighthouse in ${o.chromePath}`);

    const pages: Array<[page: string, path: string, signedIn: boolean]> = [
      ["front page (baseline)", "/", false],
      ["login", "/dashboard/login", false],
      ["purge form", "/dashboard", true],
      ["purge progress", `/dashboard/purges/${encodeURIComponent(receipt.id)}`, true],
      ["audit log", "/dashboard/purges", true],
      ["tier health", "/dashboard/health", true],
      ["storage", "/dashboard/storage", true],
    ];
    const chrome = await chromeLauncher.launch({ chromePath: o.chromePath, chromeFlags: CHROMIUM_ARGS });
    try {
      let front: Omit<PageRow, "vs_front_page"> | undefined;
      for (const [page, path, signedIn] of pages) {
        const audit = () =>
          lighthouse(`${worker.url}${path}`, {
            port: chrome.port,
            output: "json",
            logLevel: "error",
            onlyCategories: ["performance", "accessibility"],
            ...(o.cpuSlowdown === undefined ? {} : { throttling: { cpuSlowdownMultiplier: o.cpuSlowdown } }),
            ...(signedIn ? { extraHeaders: { cookie } } : {}),
          });
        let result = await audit();
        // Lighthouse sometimes fails to record a page load's trace (NO_NAVSTART and the like) and asks to be run
        // again; that says nothing of the page, so it gets a few more runs. Scores are never retried.
        for (let attempt = 1; result?.lhr.runtimeError && attempt < LIGHTHOUSE_ATTEMPTS; attempt++) {
          o.log(`bench dashboard: ${path}: Lighthouse failed (${result.lhr.runtimeError.code}); running it again`);
          result = await audit();
        }
        if (!result) throw new Error(`Lighthouse returned nothing for ${path}`);
        if (result.lhr.runtimeError)
          throw new Error(`Lighthouse on ${path}, ${LIGHTHOUSE_ATTEMPTS} times: ${result.lhr.runtimeError.message}`);
        // A lapsed session would score the login page under another page's name.
        const landed = new URL(result.lhr.finalDisplayedUrl);
        if (`${landed.pathname}${landed.search}` !== path)
          throw new Error(`Lighthouse asked for ${path} and landed on ${landed.pathname}`);
        const row = pageRow(page, path, result.lhr);
        front ??= row;
        const vs =
          row === front
            ? null
            : {
                performance: round(row.performance / front.performance, 3),
                accessibility: round(row.accessibility / front.accessibility, 3),
              };
        onRow({ ...row, vs_front_page: vs });
        o.log(`bench dashboard: ${path}: performance ${row.performance}, accessibility ${row.accessibility}`);
        if (row === front) continue;
        for (const category of ["performance", "accessibility"] as const) {
          onRow({ row: "target", page, category, want: ">= 95", got: row[category], met: row[category] >= TARGET });
        }
      }
    } finally {
      chrome.kill();
    }
  } finally {
    await worker.stop();
  }
}
