/**
 * `palimpsest follow <api.php URL>`: keeps the archive in step with a live
 * MediaWiki (issue 28 item 3). The following itself is product code
 * (src/follow/), which the deployment will also run; this file only wires it
 * to the CLI: the archive through its write API (src/tools/local/archive-client.ts),
 * the cursor in a local file written atomically, a lock so two followers
 * never share one cursor, and one JSON line per pass on stdout.
 *
 * @example
 * npx palimpsest follow https://wiki.example/w/api.php --once          # catch up and exit (for cron)
 * npx palimpsest follow https://wiki.example/w/api.php --interval 30   # keep following
 */
import { createHash } from "node:crypto";
import { unlinkSync } from "node:fs";
import { open, readFile, rename, unlink, writeFile } from "node:fs/promises";
import { Command } from "commander";
import { ActionApi } from "../../../follow/action-api.ts";
import { followOnce, type CursorStore, type FollowArchive, type FollowCursor } from "../../../follow/follower.ts";
import { sleep } from "../../../lib/backoff.ts";
import { normalizeTitle } from "../../../page/title.ts";
import type { NewRevision } from "../../../page/types.ts";
import { measureRevision, requestBodyBytes, requestBodyStream } from "../../import/request-body.ts";
import { ArchiveClient } from "../../local/archive-client.ts";
import { readDevToken } from "../../local/dev-token.ts";
import { logLine, parseIntOption, UsageError } from "../../local/output.ts";
import pkg from "../../../../package.json" with { type: "json" };

interface FollowFlags {
  url: string;
  token?: string;
  cursor?: string;
  once?: boolean;
  interval: number;
  contact?: string;
  changesPerRequest?: number;
}

/** The cursor as a JSON file, replaced whole (write, fsync, rename), so a kill leaves the old one or the new. */
export function fileCursorStore(path: string): CursorStore {
  return {
    async load() {
      let text: string;
      try {
        text = await readFile(path, "utf8");
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === "ENOENT") return null;
        throw err;
      }
      const c = JSON.parse(text) as Partial<FollowCursor>;
      if (typeof c.wiki !== "string" || typeof c.timestamp !== "string" || typeof c.rcid !== "number")
        throw new UsageError(`${path} is not a follower's cursor (wiki, timestamp, rcid)`);
      return c as FollowCursor;
    },
    async save(cursor) {
      const tmp = `${path}.${process.pid}.tmp`;
      const file = await open(tmp, "w");
      try {
        await file.writeFile(`${JSON.stringify(cursor)}\n`);
        await file.sync();
      } finally {
        await file.close();
      }
      await rename(tmp, path);
    },
  };
}

/**
 * Takes `${cursor}.lock` for this process, or refuses: a second follower on the same cursor
 * would store the same changes twice over and move the cursor under the first. A lock whose
 * process is gone (a killed follower) is taken over.
 */
async function lockCursor(cursorPath: string): Promise<() => Promise<void>> {
  const lock = `${cursorPath}.lock`;
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      await writeFile(lock, String(process.pid), { flag: "wx" });
      const removeLock = () => {
        try {
          unlinkSync(lock);
        } catch {
          /* gone already */
        }
      };
      // Stopped by a signal (Ctrl-C, a service manager): the cursor is saved after every batch, so just go.
      const onSignal = (signal: NodeJS.Signals) => {
        removeLock();
        process.exit(signal === "SIGINT" ? 130 : 143);
      };
      process.once("exit", removeLock);
      process.once("SIGINT", onSignal);
      process.once("SIGTERM", onSignal);
      return async () => {
        process.off("exit", removeLock);
        process.off("SIGINT", onSignal);
        process.off("SIGTERM", onSignal);
        await unlink(lock).catch(() => undefined);
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      const holder = Number(await readFile(lock, "utf8").catch(() => "0"));
      if (holder > 0 && holder !== process.pid && alive(holder))
        throw new UsageError(
          `another follower (pid ${holder}) holds ${lock}: one follower per cursor (stop it, or pass another --cursor)`,
        );
      await unlink(lock).catch(() => undefined); // left by a follower that was killed
    }
  }
  throw new UsageError(`cannot take ${lock}`);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** The archive through its write API; batches cut to the archive's storage.maxRequestBytes. */
export function httpArchive(client: ArchiveClient): FollowArchive {
  let maxBytes: Promise<number> | undefined;
  const keyOf = (title: string) => {
    const t = normalizeTitle(title);
    if (!t.ok) throw new Error(`the wiki names a page the archive cannot: ${JSON.stringify(title)} (${t.reason})`);
    return t.key;
  };
  return {
    latestId: (title) => client.latestId(keyOf(title)),
    setSuppressed: async (title, id, suppressed) => (await client.setSuppressed(keyOf(title), id, suppressed)) !== null,
    async append(title, revisions) {
      maxBytes ??= client.limits().then((l) => l.maxRequestBytes);
      const limit = await maxBytes;
      let batch: NewRevision[] = [];
      let json = 0;
      const flush = async () => {
        if (batch.length === 0) return;
        const send = batch;
        const bytes = requestBodyBytes(send.length, json);
        await client.append(keyOf(title), () => requestBodyStream(send, bytes));
        batch = [];
        json = 0;
      };
      for (const revision of revisions) {
        const { jsonBytes } = measureRevision(revision);
        if (batch.length > 0 && requestBodyBytes(batch.length + 1, json + jsonBytes) > limit) await flush();
        batch.push(revision);
        json += jsonBytes;
      }
      await flush();
    },
  };
}

function defaultCursorPath(wiki: string, archive: string): string {
  const digest = createHash("sha256").update(`${wiki}\n${archive}`).digest("hex").slice(0, 12);
  return `.palimpsest-follow-${digest}.json`;
}

async function runFollow(wiki: string, flags: FollowFlags): Promise<void> {
  const token = flags.token ?? process.env.PALIMPSEST_TOKEN ?? readDevToken();
  if (!token)
    throw new UsageError(
      "no write token: pass --token, set PALIMPSEST_TOKEN, or run npm start once to create .dev.vars",
    );
  let api: ActionApi;
  try {
    api = new ActionApi({
      url: wiki,
      userAgent: `palimpsest-follow/${pkg.version} (an archive of this wiki at ${flags.url}; ${flags.contact ?? "no contact given"})`,
    });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const client = new ArchiveClient({ url: flags.url, token });
  const cursorPath = flags.cursor ?? defaultCursorPath(api.url, client.url);
  const release = await lockCursor(cursorPath);
  try {
    const cursors = fileCursorStore(cursorPath);
    const archive = httpArchive(client);
    for (;;) {
      const started = Date.now();
      let report: Awaited<ReturnType<typeof followOnce>>;
      try {
        report = await followOnce({
          api,
          archive,
          cursors,
          changesPerRequest: flags.changesPerRequest,
          onProblem: (p) => logLine(`palimpsest: skipped ${p}`),
        });
      } catch (err) {
        // --once fails with the reason; a standing follower says it and tries again next pass (the cursor did not move past it).
        if (flags.once) throw err;
        logLine(`palimpsest: this pass failed, trying again in ${flags.interval} s: ${(err as Error).message}`);
        await sleep(flags.interval * 1000);
        continue;
      }
      const { cursor, ...counts } = report;
      process.stdout.write(
        `${JSON.stringify({ ...counts, cursor: cursor?.timestamp ?? null, rcid: cursor?.rcid ?? null, seconds: (Date.now() - started) / 1000 })}\n`,
      );
      if (flags.once) return;
      await sleep(flags.interval * 1000);
    }
  } finally {
    await release();
  }
}

export function registerFollowCommand(program: Command): void {
  program
    .command("follow")
    .description("keep the archive in step with a MediaWiki through its Action API")
    .argument("<api>", "the wiki's api.php URL, e.g. https://wiki.example/w/api.php")
    .option("--url <url>", "archive base URL", "http://localhost:8787")
    .option("--token <token>", "write-scope token (default: $PALIMPSEST_TOKEN, then .dev.vars)")
    .option("--cursor <file>", "where the cursor is kept (default: .palimpsest-follow-<wiki and archive digest>.json)")
    .option("--once", "catch up and exit (for cron)")
    .option("--interval <seconds>", "seconds between passes when following", parseIntOption("interval", 1, 86_400), 30)
    .option("--contact <email or URL>", "how the wiki's operators reach you, sent in the User-Agent")
    .option(
      "--changes-per-request <n>",
      "recent changes read per request, and so per cursor move (default 100)",
      parseIntOption("changes-per-request", 1, 500),
    )
    .action((wiki: string, flags: FollowFlags) => runFollow(wiki, flags));
}
