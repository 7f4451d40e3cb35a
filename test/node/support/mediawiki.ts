/**
 * A real MediaWiki for the Node tests (issue 28): Debian 12's MediaWiki 1.39
 * (`/usr/share/mediawiki`), installed afresh into a temporary folder on
 * SQLite, served by PHP's built-in server on a free port, edited through its
 * own Action API and maintenance scripts, and removed at the end. Tests check
 * the archive against what this wiki says, never against our idea of it.
 *
 * Where the wiki lives. Debian's package is read-only code with its
 * `LocalSettings.php` a symlink to `/var/lib/mediawiki/LocalSettings.php`; the
 * tests must not touch that (or each other's wikis). MediaWiki 1.39 lets every
 * entry point load its settings from elsewhere without copying the code:
 * - `install.php --confpath DIR` writes LocalSettings.php into DIR, and
 *   `--dbpath DIR/data` puts the SQLite files there;
 * - the web entry points read the `MW_CONFIG_FILE` environment variable
 *   (includes/BootstrapHelperFunctions.php, wfDetectLocalSettingsFile), which
 *   `php -S` passes on from its own environment;
 * - every maintenance script takes `--conf DIR/LocalSettings.php`
 *   (maintenance/includes/MaintenanceRunner.php).
 * Uploads and caches are pointed into DIR too, so nothing is written under
 * /usr/share or /var/lib. No symlink farm and no router script are needed.
 *
 * @example
 * const wiki = await startMediaWiki();
 * try {
 *   const admin = await wiki.admin();
 *   await admin.edit({ title: "Sandbox", text: "hello", summary: "first" });
 *   const xml = await wiki.dump(); // dumpBackup.php --full
 * } finally {
 *   await wiki.stop();
 * }
 */
import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { appendFile, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll } from "vitest";
import { freePort } from "../../../src/tools/local/local-worker.ts";
import { commandMissing, fileMissing, firstMissing } from "./requirements.ts";

/** Debian's MediaWiki ($IP). */
export const MEDIAWIKI_HOME = "/usr/share/mediawiki";

/** Null when PHP and Debian's MediaWiki with the extensions it needs are installed; else what is missing. */
export const NO_MEDIAWIKI = firstMissing(
  commandMissing("php", ["--version"]) && "`php` is not installed (Debian: php-cli)",
  fileMissing(`${MEDIAWIKI_HOME}/maintenance/install.php`, "MediaWiki 1.39 (Debian: mediawiki)"),
  commandMissing("php", [
    "-r",
    "foreach (['pdo_sqlite', 'intl', 'mbstring', 'xml'] as $e) if (!extension_loaded($e)) exit(1);",
  ]) && "PHP lacks pdo_sqlite, intl, mbstring or xml (Debian: php-sqlite3 php-intl php-mbstring php-xml)",
);

/** A revision as the wiki's API states it (prop=revisions), with the SHA-1 in MediaWiki's base-36 form. */
export interface WikiRevision {
  revid: number;
  /** 0 for a page's first revision, as the API says. */
  parentid: number;
  timestamp: string;
  /** Null when the user is hidden (revision deletion). */
  user: string | null;
  anon: boolean;
  comment: string | null;
  minor: boolean;
  /** Base 36, 31 digits, as dumps write it; null when the text is hidden. */
  sha1: string | null;
  /** Null when hidden from the caller. */
  text: string | null;
  texthidden: boolean;
  userhidden: boolean;
  commenthidden: boolean;
}

type Params = Record<string, string | number | boolean | undefined>;

/** One API client with its own cookies: logged in as the admin, or anonymous (edits by IP). */
export class WikiSession {
  readonly #cookies = new Map<string, string>();
  readonly #tokens = new Map<string, string>();

  constructor(readonly apiUrl: string) {}

  async get<T = Record<string, unknown>>(params: Params): Promise<T> {
    const url = new URL(this.apiUrl);
    for (const [k, v] of Object.entries(formParams(params))) url.searchParams.set(k, v);
    return this.#send<T>(url, { method: "GET" });
  }

  async post<T = Record<string, unknown>>(params: Params): Promise<T> {
    return this.#send<T>(new URL(this.apiUrl), { method: "POST", body: new URLSearchParams(formParams(params)) });
  }

  async #send<T>(url: URL, init: RequestInit): Promise<T> {
    const res = await fetch(url, {
      ...init,
      headers: { cookie: [...this.#cookies].map(([k, v]) => `${k}=${v}`).join("; "), "user-agent": USER_AGENT },
    });
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(";");
      const at = pair!.indexOf("=");
      const [name, value] = [pair!.slice(0, at).trim(), pair!.slice(at + 1).trim()];
      if (value === "deleted" || /max-age=0|expires=Thu, 01 Jan 1970/i.test(line)) this.#cookies.delete(name);
      else this.#cookies.set(name, value);
    }
    const body = await res.text();
    if (!res.ok) throw new Error(`${init.method} ${url.search} answered ${res.status}: ${body.slice(0, 500)}`);
    let json: { error?: { code: string; info: string } } & Record<string, unknown>;
    try {
      json = JSON.parse(body);
    } catch {
      throw new Error(`${init.method} ${url.search} answered no JSON: ${body.slice(0, 500)}`);
    }
    if (json.error) throw new Error(`MediaWiki API error ${json.error.code}: ${json.error.info}`);
    return json as T;
  }

  async token(type: "csrf" | "login" = "csrf"): Promise<string> {
    const known = this.#tokens.get(type);
    if (known) return known;
    const res = await this.get<{ query: { tokens: Record<string, string> } }>({
      action: "query",
      meta: "tokens",
      type,
    });
    const token = res.query.tokens[`${type}token`]!;
    if (type === "csrf") this.#tokens.set(type, token);
    return token;
  }

  async login(username: string, password: string): Promise<void> {
    const res = await this.post<{ clientlogin: { status: string; message?: string } }>({
      action: "clientlogin",
      username,
      password,
      loginreturnurl: "http://127.0.0.1/",
      logintoken: await this.token("login"),
    });
    if (res.clientlogin.status !== "PASS")
      throw new Error(`login as ${username}: ${res.clientlogin.status} ${res.clientlogin.message ?? ""}`);
    this.#tokens.clear();
  }

  /** Saves a new revision; its id. `summary`, `minor` as in the edit form. */
  async edit(edit: { title: string; text: string; summary?: string; minor?: boolean }): Promise<number> {
    const res = await this.post<{ edit: { result: string; newrevid?: number; nochange?: boolean } }>({
      action: "edit",
      title: edit.title,
      text: edit.text,
      summary: edit.summary ?? "",
      minor: edit.minor || undefined,
      notminor: edit.minor ? undefined : true,
      token: await this.token(),
    });
    if (res.edit.result !== "Success" || res.edit.newrevid === undefined)
      throw new Error(`edit of ${edit.title} did not save a revision: ${JSON.stringify(res.edit)}`);
    return res.edit.newrevid;
  }

  async move(from: string, to: string, reason = "", options: { noredirect?: boolean } = {}): Promise<void> {
    await this.post({
      action: "move",
      from,
      to,
      reason,
      noredirect: options.noredirect || undefined,
      token: await this.token(),
    });
  }

  async delete(title: string, reason = ""): Promise<void> {
    await this.post({ action: "delete", title, reason, token: await this.token() });
  }

  async undelete(title: string, reason = ""): Promise<void> {
    await this.post({ action: "undelete", title, reason, token: await this.token() });
  }

  /** Revision deletion: hides (or shows) the content, the comment and/or the user of revisions. */
  async revisionDelete(
    ids: number[],
    change: { hide?: Array<"content" | "comment" | "user">; show?: Array<"content" | "comment" | "user"> },
    reason = "",
  ): Promise<void> {
    await this.post({
      action: "revisiondelete",
      type: "revision",
      ids: ids.join("|"),
      hide: change.hide?.join("|"),
      show: change.show?.join("|"),
      reason,
      token: await this.token(),
    });
  }

  /** Every revision of a page, oldest first, as the API states it (content of the main slot included). */
  async revisions(title: string): Promise<WikiRevision[]> {
    const out: WikiRevision[] = [];
    let cont: Record<string, string> = {};
    for (;;) {
      const res = await this.get<ApiRevisionsAnswer>({
        action: "query",
        prop: "revisions",
        titles: title,
        rvprop: "ids|timestamp|user|comment|sha1|content|flags",
        rvslots: "main",
        rvlimit: "max",
        rvdir: "newer",
        ...cont,
      });
      const page = res.query.pages[0]!;
      if (page.missing) throw new Error(`the wiki has no page ${title}`);
      for (const r of page.revisions ?? []) out.push(wikiRevision(r));
      if (!res.continue) return out;
      cont = res.continue;
    }
  }
}

interface ApiRevision {
  revid: number;
  parentid: number;
  timestamp: string;
  user?: string;
  anon?: boolean;
  comment?: string;
  minor?: boolean;
  sha1?: string;
  sha1hidden?: boolean;
  texthidden?: boolean;
  userhidden?: boolean;
  commenthidden?: boolean;
  slots?: { main?: { content?: string; texthidden?: boolean } };
}

interface ApiRevisionsAnswer {
  continue?: Record<string, string>;
  query: { pages: Array<{ title: string; missing?: boolean; revisions?: ApiRevision[] }> };
}

function wikiRevision(r: ApiRevision): WikiRevision {
  const texthidden = Boolean(r.texthidden || r.slots?.main?.texthidden || r.sha1hidden);
  return {
    revid: r.revid,
    parentid: r.parentid,
    timestamp: r.timestamp,
    user: r.userhidden ? null : (r.user ?? null),
    anon: Boolean(r.anon),
    comment: r.commenthidden ? null : (r.comment ?? ""),
    minor: Boolean(r.minor),
    sha1: r.sha1 && !r.sha1hidden ? base36Sha1(r.sha1) : null,
    text: r.slots?.main?.content ?? null,
    texthidden,
    userhidden: Boolean(r.userhidden),
    commenthidden: Boolean(r.commenthidden),
  };
}

/** The API's hex SHA-1 as MediaWiki's dumps (and the archive) write it: base 36, 31 digits. */
export function base36Sha1(hex: string): string {
  return BigInt(`0x${hex}`).toString(36).padStart(31, "0");
}

function formParams(params: Params): Record<string, string> {
  const out: Record<string, string> = { format: "json", formatversion: "2" };
  for (const [k, v] of Object.entries(params)) {
    if (v === undefined || v === false) continue;
    out[k] = v === true ? "1" : String(v);
  }
  return out;
}

const USER_AGENT = "palimpsest-tests/0.1 (test/node/support/mediawiki.ts; a throwaway local wiki)";

export interface MediaWiki {
  /** The temporary folder: LocalSettings.php, data/ (SQLite), images/, cache/. */
  dir: string;
  /** `http://127.0.0.1:PORT` */
  url: string;
  /** `http://127.0.0.1:PORT/api.php` */
  apiUrl: string;
  adminName: string;
  /** How long install.php and the first answer of the server took. */
  setupMs: number;
  /** A session logged in as the admin install.php created (one per wiki, made on first use). */
  admin(): Promise<WikiSession>;
  /** A session with no login: its edits are by IP. */
  anonymous(): WikiSession;
  /** Runs `php maintenance/<script>.php --conf … args`, with `input` on stdin; its stdout. */
  maintenance(
    script: string,
    args?: string[],
    options?: { input?: string | Buffer; timeoutMs?: number; onPeakRss?: (bytes: number) => void },
  ): Promise<Buffer>;
  /** `dumpBackup.php --full` into `file` (every revision of every page, schema 0.11). */
  dump(file: string): Promise<void>;
  /** Stops the server and removes the folder. */
  stop(): Promise<void>;
}

/** install.php on a quiet machine takes seconds; CI machines are slower. */
const INSTALL_TIMEOUT_MS = 180_000;
const SERVER_READY_TIMEOUT_MS = 30_000;

/** Settings added to what install.php writes: everything under the temporary folder, and errors in full. */
function extraSettings(dir: string): string {
  const php = (s: string) => `'${s.replace(/\\/g, "\\\\").replace(/'/g, "\\'")}'`;
  return [
    "",
    "# test/node/support/mediawiki.ts: a throwaway wiki; nothing is written outside its folder.",
    `$wgUploadDirectory = ${php(join(dir, "images"))};`,
    `$wgCacheDirectory = ${php(join(dir, "cache"))};`,
    "$wgShowExceptionDetails = true;",
    // Revision deletion by the admin, as Wikipedia's sysops have it (1.39 gives it only to the 'suppress' group),
    // and suppression (oversight) too, so the tests can hide content from admins as well.
    "$wgGroupPermissions['sysop']['deleterevision'] = true;",
    "$wgGroupPermissions['sysop']['suppressrevision'] = true;",
    "$wgGroupPermissions['sysop']['viewsuppressed'] = true;",
    // The tests edit faster than a person; the anonymous edits would otherwise hit $wgRateLimits.
    "$wgRateLimits = [];",
    // Jobs run from the maintenance scripts' and the API's requests, as on a small wiki.
    "$wgJobRunRate = 1;",
    "",
  ].join("\n");
}

function run(
  command: string,
  args: string[],
  options: {
    env?: NodeJS.ProcessEnv;
    input?: string | Buffer;
    timeoutMs: number;
    /** Called as it exits with its peak resident set (VmHWM, read every 50 ms while it runs). */
    onPeakRss?: (bytes: number) => void;
  },
): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env: options.env ?? process.env, stdio: ["pipe", "pipe", "pipe"] });
    let peak = 0;
    const sampler = options.onPeakRss
      ? setInterval(() => {
          peak = Math.max(peak, peakRssOf(child.pid!));
        }, 50)
      : undefined;
    child.on("exit", () => {
      clearInterval(sampler);
      if (options.onPeakRss) options.onPeakRss(peak);
    });
    const out: Buffer[] = [];
    let err = "";
    child.stdout.on("data", (d: Buffer) => out.push(d));
    child.stderr.setEncoding("utf8").on("data", (d: string) => (err = (err + d).slice(-4000)));
    const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs);
    child.on("error", (e) => (clearTimeout(timer), reject(e)));
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      if (code === 0) return resolve(Buffer.concat(out));
      const stdout = Buffer.concat(out).toString("utf8").slice(-2000);
      reject(new Error(`${command} ${args.join(" ")} exited ${code ?? signal}: ${err}${stdout}`));
    });
    child.stdin.on("error", () => undefined); // a script that reads no input may exit before taking it
    child.stdin.end(options.input ?? "");
  });
}

/** A running process's peak resident set in bytes (Linux: VmHWM in /proc), 0 once it is gone. */
export function peakRssOf(pid: number): number {
  try {
    const kb = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
    return kb ? Number(kb) * 1024 : 0;
  } catch {
    return 0;
  }
}

async function waitForApi(url: string, server: ChildProcess, log: () => string): Promise<void> {
  const until = Date.now() + SERVER_READY_TIMEOUT_MS;
  for (;;) {
    if (server.exitCode !== null) throw new Error(`php -S exited ${server.exitCode}: ${log()}`);
    const ok = await fetch(`${url}?action=query&meta=siteinfo&format=json`).then(
      async (res) => (await res.arrayBuffer(), res.ok),
      () => false,
    );
    if (ok) return;
    if (Date.now() > until) throw new Error(`the wiki at ${url} did not answer within 30 s: ${log()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export async function startMediaWiki(): Promise<MediaWiki> {
  const started = Date.now();
  const dir = await mkdtemp(join(tmpdir(), "palimpsest-mediawiki-"));
  const conf = join(dir, "LocalSettings.php");
  let server: ChildProcess | undefined;
  try {
    await Promise.all(["data", "images", "cache"].map((d) => mkdir(join(dir, d))));
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const adminName = "Palimpsest admin";
    const password = `pw-${randomBytes(18).toString("base64url")}`;
    // prettier-ignore
    await run("php", [
      join(MEDIAWIKI_HOME, "maintenance/install.php"),
      "--dbtype", "sqlite", "--dbpath", join(dir, "data"), "--dbname", "wiki",
      "--confpath", dir, "--server", url, "--scriptpath", "", "--lang", "en",
      "--pass", password, "Palimpsest test wiki", adminName,
    ], { timeoutMs: INSTALL_TIMEOUT_MS });
    await appendFile(conf, extraSettings(dir));
    let log = "";
    // PHP_CLI_SERVER_WORKERS: a few requests at once, as the follower's bounded concurrency sends them.
    // Its own process group: the workers PHP forks are stopped with it (stopServer).
    server = spawn("php", ["-S", `127.0.0.1:${port}`, "-t", MEDIAWIKI_HOME], {
      env: { ...process.env, MW_CONFIG_FILE: conf, PHP_CLI_SERVER_WORKERS: "4" },
      stdio: ["ignore", "ignore", "pipe"],
      detached: true,
    });
    server.stderr!.setEncoding("utf8").on("data", (d: string) => (log = (log + d).slice(-4000)));
    const running = server;
    // A test run killed midway (a timeout, Ctrl-C) does not leave the server running: it is detached.
    const killOnExit = () => killGroup(running);
    process.once("exit", killOnExit);
    await waitForApi(`${url}/api.php`, running, () => log);
    const setupMs = Date.now() - started;
    let admin: Promise<WikiSession> | undefined;
    const maintenance: MediaWiki["maintenance"] = (script, args = [], options = {}) =>
      run("php", [join(MEDIAWIKI_HOME, `maintenance/${script}.php`), "--conf", conf, ...args], {
        input: options.input,
        timeoutMs: options.timeoutMs ?? INSTALL_TIMEOUT_MS,
        onPeakRss: options.onPeakRss,
      });
    return {
      dir,
      url,
      apiUrl: `${url}/api.php`,
      adminName,
      setupMs,
      admin() {
        admin ??= (async () => {
          const session = new WikiSession(`${url}/api.php`);
          await session.login(adminName, password);
          return session;
        })();
        return admin;
      },
      anonymous: () => new WikiSession(`${url}/api.php`),
      maintenance,
      async dump(file) {
        await writeFile(file, await maintenance("dumpBackup", ["--full", "--quiet"]));
      },
      async stop() {
        process.off("exit", killOnExit);
        await stopServer(running);
        await rm(dir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    if (server) await stopServer(server);
    await rm(dir, { recursive: true, force: true });
    throw new Error(`setting up MediaWiki failed: ${(err as Error).message}`, { cause: err });
  }
}

function stopServer(server: ChildProcess): Promise<void> {
  if (server.exitCode !== null || server.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    server.once("exit", () => resolve());
    killGroup(server);
  });
}

/** Stops the group of the server this harness started (by its pid): the server and the workers it forked. */
function killGroup(server: ChildProcess): void {
  try {
    process.kill(-server.pid!, "SIGTERM");
  } catch {
    server.kill("SIGTERM");
  }
}

/**
 * One wiki for the calling test file, installed before its first test and
 * removed after its last (an install takes seconds). Use it only inside tests.
 */
export function mediaWikiForThisFile(): MediaWiki {
  let started: MediaWiki | undefined;
  beforeAll(async () => {
    started = await startMediaWiki();
  }, INSTALL_TIMEOUT_MS + SERVER_READY_TIMEOUT_MS);
  afterAll(async () => {
    await started?.stop();
  });
  return new Proxy({} as MediaWiki, {
    get(_, key) {
      if (!started) throw new Error("the wiki is used outside a test: it starts in beforeAll");
      return started[key as keyof MediaWiki];
    },
  });
}
