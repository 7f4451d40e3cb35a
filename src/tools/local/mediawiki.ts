/**
 * A throwaway MediaWiki on this machine: Debian 12's MediaWiki 1.39
 * (`/usr/share/mediawiki`), installed afresh into a temporary folder on
 * SQLite, served by PHP's built-in server on a free port, and removed at the
 * end. The Node tests check the archive against it (test/node/support/mediawiki.ts
 * adds their API sessions) and `bench store` measures it beside the archive.
 *
 * Where the wiki lives. Debian's package is read-only code with its
 * `LocalSettings.php` a symlink to `/var/lib/mediawiki/LocalSettings.php`;
 * nothing here may touch that (or another wiki). MediaWiki 1.39 lets every
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
 * How it is served: `php -S` with PHP_CLI_SERVER_WORKERS=4, and PHP's CLI
 * defaults, so OPcache and APCu are off (`opcache.enable_cli`,
 * `apc.enable_cli`): every request compiles MediaWiki's code afresh and no
 * object cache outlives a request.
 *
 * @example
 * const wiki = await startLocalMediaWiki({ settings: ["$wgCompressRevisions = true;"] });
 * try {
 *   await wiki.maintenance("importDump", ["pages.xml"]);
 *   const [{ n }] = await wiki.query<{ n: number }>("SELECT COUNT(*) AS n FROM revision");
 * } finally {
 *   await wiki.stop();
 * }
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { errorMessage } from "../../lib/errors.ts";
import { randomBytes } from "node:crypto";
import { readFileSync, statSync } from "node:fs";
import { appendFile, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "./local-worker.ts";
import { sqliteQuery } from "./sqlite-files.ts";

/** Debian's MediaWiki ($IP). */
export const MEDIAWIKI_HOME = "/usr/share/mediawiki";

/** Null when PHP and Debian's MediaWiki with the extensions it needs are installed; else what is missing. */
export function mediaWikiMissing(): string | null {
  const runs = (args: string[]) => spawnSync("php", args, { stdio: "ignore" }).status === 0;
  if (!runs(["--version"])) return "`php` is not installed (Debian: php-cli)";
  try {
    statSync(`${MEDIAWIKI_HOME}/maintenance/install.php`);
  } catch {
    return `MediaWiki 1.39 (Debian: mediawiki) not found at ${MEDIAWIKI_HOME}/maintenance/install.php`;
  }
  if (!runs(["-r", "foreach (['pdo_sqlite', 'intl', 'mbstring', 'xml'] as $e) if (!extension_loaded($e)) exit(1);"]))
    return "PHP lacks pdo_sqlite, intl, mbstring or xml (Debian: php-sqlite3 php-intl php-mbstring php-xml)";
  return null;
}

export interface MediaWikiOptions {
  /** More LocalSettings.php lines, after what install.php writes and the folder's own (e.g. `$wgCompressRevisions = true;`). */
  settings?: readonly string[];
}

export interface LocalMediaWiki {
  /** The temporary folder: LocalSettings.php, data/ (SQLite), images/, cache/. */
  dir: string;
  /** `http://127.0.0.1:PORT` */
  url: string;
  /** `http://127.0.0.1:PORT/api.php` */
  apiUrl: string;
  adminName: string;
  adminPassword: string;
  /** The wiki's own SQLite database, where its pages, revisions and texts are (`data/wiki.sqlite`). */
  databaseFile: string;
  /** How long install.php and the first answer of the server took. */
  setupMs: number;
  /** Runs `php maintenance/<script>.php --conf … args`, with `input` on stdin; its stdout. Rejects unless it exits 0. */
  maintenance(
    script: string,
    args?: string[],
    options?: { input?: string | Buffer; timeoutMs?: number; onPeakRss?: (bytes: number) => void },
  ): Promise<Buffer>;
  /** `dumpBackup.php --full` into `file` (every revision of every page, schema 0.11). */
  dump(file: string): Promise<void>;
  /** Rows of one read-only SQL statement on the wiki's database (sqlite-files.ts). */
  query<Row = Record<string, unknown>>(sql: string): Promise<Row[]>;
  /** The database's bytes on disk: `data/wiki.sqlite` with its `-wal` and `-journal` files, if any. */
  databaseBytes(): number;
  /** Stops PHP's server and starts a new one on the same port: nothing a request left in PHP's memory survives. */
  restartServer(): Promise<void>;
  /** Stops the server and removes the folder. */
  stop(): Promise<void>;
}

/** install.php on a quiet machine takes a second; CI machines are slower. */
export const INSTALL_TIMEOUT_MS = 180_000;
export const SERVER_READY_TIMEOUT_MS = 30_000;
/** Tries to serve on the wiki's port again when restarting finds it taken. */
const RESTART_ATTEMPTS = 6;

const php = (s: string) => `'${s.replace(/\\/g, "\\\\").replace(/'/g, "\\'")}'`;

/** Settings added to what install.php writes: everything under the temporary folder, and errors in full. */
function extraSettings(dir: string, settings: readonly string[]): string {
  return [
    "",
    "# src/tools/local/mediawiki.ts: a throwaway wiki; nothing is written outside its folder.",
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
    ...settings,
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

/** PHP's built-in server on `port`, serving MediaWiki with the settings in `conf`, answering its API. */
async function serve(port: number, conf: string): Promise<{ server: ChildProcess; stop: () => Promise<void> }> {
  let log = "";
  // PHP_CLI_SERVER_WORKERS: a few requests at once, as the follower's bounded concurrency sends them.
  // Its own process group: the workers PHP forks are stopped with it (stopServer).
  const server = spawn("php", ["-S", `127.0.0.1:${port}`, "-t", MEDIAWIKI_HOME], {
    env: { ...process.env, MW_CONFIG_FILE: conf, PHP_CLI_SERVER_WORKERS: "4" },
    stdio: ["ignore", "ignore", "pipe"],
    detached: true,
  });
  server.stderr.setEncoding("utf8").on("data", (d: string) => (log = (log + d).slice(-4000)));
  // A run killed midway (a timeout, Ctrl-C) does not leave the server running: it is detached.
  const killOnExit = () => killGroup(server);
  process.once("exit", killOnExit);
  const stop = async () => {
    process.off("exit", killOnExit);
    await stopServer(server);
  };
  try {
    await waitForApi(`http://127.0.0.1:${port}/api.php`, server, () => log);
  } catch (err) {
    await stop();
    throw err;
  }
  return { server, stop };
}

export async function startLocalMediaWiki(options: MediaWikiOptions = {}): Promise<LocalMediaWiki> {
  const started = Date.now();
  const dir = await mkdtemp(join(tmpdir(), "palimpsest-mediawiki-"));
  const conf = join(dir, "LocalSettings.php");
  const databaseFile = join(dir, "data", "wiki.sqlite");
  let serving: Awaited<ReturnType<typeof serve>> | undefined;
  try {
    await Promise.all(["data", "images", "cache"].map((d) => mkdir(join(dir, d))));
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const adminName = "Palimpsest admin";
    const adminPassword = `pw-${randomBytes(18).toString("base64url")}`;
    // prettier-ignore
    await run("php", [
      join(MEDIAWIKI_HOME, "maintenance/install.php"),
      "--dbtype", "sqlite", "--dbpath", join(dir, "data"), "--dbname", "wiki",
      "--confpath", dir, "--server", url, "--scriptpath", "", "--lang", "en",
      "--pass", adminPassword, "Palimpsest local wiki", adminName,
    ], { timeoutMs: INSTALL_TIMEOUT_MS });
    await appendFile(conf, extraSettings(dir, options.settings ?? []));
    serving = await serve(port, conf);
    const setupMs = Date.now() - started;
    const maintenance: LocalMediaWiki["maintenance"] = (script, args = [], opts = {}) =>
      run("php", [join(MEDIAWIKI_HOME, `maintenance/${script}.php`), "--conf", conf, ...args], {
        input: opts.input,
        timeoutMs: opts.timeoutMs ?? INSTALL_TIMEOUT_MS,
        onPeakRss: opts.onPeakRss,
      });
    return {
      dir,
      url,
      apiUrl: `${url}/api.php`,
      adminName,
      adminPassword,
      databaseFile,
      setupMs,
      maintenance,
      async dump(file) {
        await writeFile(file, await maintenance("dumpBackup", ["--full", "--quiet"]));
      },
      query: <Row>(sql: string) => sqliteQuery<Row>(databaseFile, sql),
      databaseBytes() {
        const size = (file: string) => {
          try {
            return statSync(file).size;
          } catch {
            return 0;
          }
        };
        return size(databaseFile) + size(`${databaseFile}-wal`) + size(`${databaseFile}-journal`);
      },
      async restartServer() {
        await serving?.stop();
        serving = undefined;
        // The port is free for a moment between the two servers, and a connection elsewhere on the
        // machine can take it as its own local port; it is let go again soon after.
        for (let attempt = 1; ; attempt++) {
          try {
            serving = await serve(port, conf);
            return;
          } catch (err) {
            if (attempt >= RESTART_ATTEMPTS || !/Address already in use/.test(errorMessage(err))) throw err;
            await new Promise((resolve) => setTimeout(resolve, 500 * attempt));
          }
        }
      },
      async stop() {
        await serving?.stop();
        serving = undefined;
        await rm(dir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    await serving?.stop();
    await rm(dir, { recursive: true, force: true });
    throw new Error(`setting up MediaWiki failed: ${errorMessage(err)}`, { cause: err });
  }
}

function stopServer(server: ChildProcess): Promise<void> {
  if (server.exitCode !== null || server.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    server.once("exit", () => resolve());
    killGroup(server);
  });
}

/** Stops the group of a server started here (by its pid): the server and the workers it forked. */
function killGroup(server: ChildProcess): void {
  try {
    process.kill(-server.pid!, "SIGTERM");
  } catch {
    server.kill("SIGTERM");
  }
}
