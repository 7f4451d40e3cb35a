/**
 * `palimpsest follow <api.php URL>`: keeps the archive in step with a live
 * MediaWiki, from its recent changes. The following itself is product code
 * (src/follow/), which the deployment will also run; this file only wires it
 * to the CLI: the archive through its write API (src/tools/local/archive-client.ts),
 * the cursor in a local file written atomically, a lock so two followers
 * never share one cursor, and one JSON line per pass on stdout. Pages the
 * archive refuses are recorded in `<cursor>.skipped.json` beside the cursor
 * (written as durably) and skipped; `--skipped` lists them, `--retry` tries
 * one, or all, again.
 *
 * @example
 * npx palimpsest follow https://wiki.example/w/api.php --once          # catch up and exit (for cron)
 * npx palimpsest follow https://wiki.example/w/api.php --interval 30   # keep following
 * npx palimpsest follow https://wiki.example/w/api.php --skipped       # what the archive refused
 * npx palimpsest follow https://wiki.example/w/api.php --retry all     # try those again
 */
import { createHash } from "node:crypto";
import { errorMessage } from "../../../lib/errors.ts";
import { unlinkSync } from "node:fs";
import { open, readFile, rename, unlink, writeFile } from "node:fs/promises";
import { Command } from "commander";
import { ActionApi } from "../../../follow/action-api.ts";
import {
  ArchiveRefusal,
  followOnce,
  isRefusalStatus,
  mergeSkip,
  refusalsOf,
  retrySkipped,
  type CursorStore,
  type FollowArchive,
  type FollowCursor,
  type SkippedPage,
  type SkipStore,
} from "../../../follow/follower.ts";
import { LIMITS } from "../../../limits.ts";
import { sleep } from "../../../lib/backoff.ts";
import { normalizeTitle } from "../../../page/title.ts";
import type { NewRevision } from "../../../page/types.ts";
import { measureRevision, requestBodyBytes, requestBodyStream } from "../../import/request-body.ts";
import { ArchiveClient, ArchiveHttpError } from "../../local/archive-client.ts";
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
  skipped?: boolean;
  retry?: string;
}

/** Replaces a file whole (write, fsync, rename), so a kill leaves the old one or the new. */
async function replaceFile(path: string, text: string): Promise<void> {
  const tmp = `${path}.${process.pid}.tmp`;
  const file = await open(tmp, "w");
  try {
    await file.writeFile(text);
    await file.sync();
  } finally {
    await file.close();
  }
  await rename(tmp, path);
}

/**
 * The skipped pages as a JSON file beside the cursor (`<cursor>.skipped.json`), replaced whole
 * as the cursor is, newest first, at most follow.maxSkippedPages of them. Writes are one at a
 * time: a pass syncs pages in parallel.
 */
export function fileSkipStore(path: string): SkipStore {
  let queue: Promise<unknown> = Promise.resolve();
  const read = async (): Promise<SkippedPage[]> => {
    let text: string;
    try {
      text = await readFile(path, "utf8");
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return [];
      throw err;
    }
    const list = JSON.parse(text) as unknown;
    if (!Array.isArray(list)) throw new UsageError(`${path} is not a follower's list of skipped pages`);
    return list as SkippedPage[];
  };
  const change = (edit: (list: SkippedPage[]) => SkippedPage[]) => {
    const next = queue.then(async () => {
      const list = edit(await read())
        .sort((a, b) => b.atMs - a.atMs)
        .slice(0, LIMITS.follow.maxSkippedPages);
      await replaceFile(path, `${JSON.stringify(list, null, 1)}\n`);
    });
    queue = next.catch(() => undefined);
    return next;
  };
  return {
    list: read,
    record: (skip) =>
      change((list) => [
        mergeSkip(list.find((s) => s.title === skip.title) ?? null, skip),
        ...list.filter((s) => s.title !== skip.title),
      ]),
    settle: (title, skip) =>
      change((list) => [...(skip ? [mergeSkip(null, skip)] : []), ...list.filter((s) => s.title !== title)]),
  };
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
      await replaceFile(path, `${JSON.stringify(cursor)}\n`);
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

/** An answer of the archive that refuses what was sent (4xx but 408/429), as an ArchiveRefusal. */
function asRefusal(err: unknown): ArchiveRefusal | null {
  if (!(err instanceof ArchiveHttpError) || !isRefusalStatus(err.status)) return null;
  const p = err.problem ?? {};
  const text = (v: unknown) => (typeof v === "string" && v !== "" ? v : undefined);
  return new ArchiveRefusal(
    err.status,
    text(p.code) ?? `http_${err.status}`,
    text(p.detail) ?? text(p.title) ?? `the archive answered HTTP ${err.status}`,
    typeof p.revision === "number" ? p.revision : undefined,
  );
}

/** The archive through its write API; batches cut to the archive's storage.maxRequestBytes. */
export function httpArchive(client: ArchiveClient): FollowArchive {
  let maxBytes: Promise<number> | undefined;
  const keyOf = (title: string) => {
    const t = normalizeTitle(title);
    // The archive's title rules, as its write API applies them: a refusal of this page.
    if (!t.ok) throw new ArchiveRefusal(400, "invalid_title", t.reason);
    return t.key;
  };
  const archive: FollowArchive = {
    latestId: (title) => client.latestId(keyOf(title)),
    // The takedown log names the token's owner; the reason names the wiki's log entry.
    setHidden: async (title, id, change, reason) => (await client.setHidden(keyOf(title), id, change, reason)) !== null,
    setDeleted: async (title, deleted, reason) => (await client.setPageDeleted(keyOf(title), deleted, reason)) !== null,
    async append(title, revisions, wikiPageId) {
      maxBytes ??= client.limits().then((l) => l.maxRequestBytes);
      const limit = await maxBytes;
      let batch: NewRevision[] = [];
      let json = 0;
      const flush = async () => {
        if (batch.length === 0) return;
        const send = batch;
        const bytes = requestBodyBytes(send.length, json);
        await client.append(keyOf(title), () => requestBodyStream(send, bytes), { wikiPageId });
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
  return refusalsOf(archive, asRefusal);
}

function defaultCursorPath(wiki: string, archive: string): string {
  const digest = createHash("sha256").update(`${wiki}\n${archive}`).digest("hex").slice(0, 12);
  return `.palimpsest-follow-${digest}.json`;
}

/** `--skipped`: the skipped pages, one JSON line each, newest first. */
async function listSkipped(skips: SkipStore, path: string): Promise<void> {
  const list = await skips.list();
  for (const skip of list) process.stdout.write(`${JSON.stringify(skip)}\n`);
  logLine(`palimpsest: ${list.length} skipped page${list.length === 1 ? "" : "s"} in ${path}`);
}

async function runFollow(wiki: string, flags: FollowFlags): Promise<void> {
  if (flags.skipped && flags.retry !== undefined) throw new UsageError("--skipped and --retry do not go together");
  const token = flags.token ?? process.env.PALIMPSEST_TOKEN ?? readDevToken();
  if (!token && !flags.skipped)
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
    throw new UsageError(errorMessage(err));
  }
  const client = new ArchiveClient({ url: flags.url, token: token ?? "" });
  const cursorPath = flags.cursor ?? defaultCursorPath(api.url, client.url);
  const skipsPath = `${cursorPath}.skipped.json`;
  const skips = fileSkipStore(skipsPath);
  if (flags.skipped) return listSkipped(skips, skipsPath);
  const release = await lockCursor(cursorPath);
  try {
    const cursors = fileCursorStore(cursorPath);
    const archive = httpArchive(client);
    const onProblem = (p: string) => logLine(`palimpsest: skipped ${p}`);
    if (flags.retry !== undefined) {
      const which = flags.retry === "all" ? "all" : [flags.retry];
      const outcomes = await retrySkipped({ api, archive, cursors, skips, onProblem }, which);
      for (const o of outcomes)
        process.stdout.write(
          `${JSON.stringify({ title: o.title, ok: o.ok, ...(o.skip ? { code: o.skip.code, reason: o.skip.reason } : {}) })}\n`,
        );
      if (outcomes.length === 0)
        throw new UsageError(
          `no skipped page ${which === "all" ? "" : `${JSON.stringify(flags.retry)} `}in ${skipsPath}`,
        );
      if (outcomes.some((o) => !o.ok)) process.exitCode = 1;
      return;
    }
    for (;;) {
      const started = Date.now();
      let report: Awaited<ReturnType<typeof followOnce>>;
      try {
        report = await followOnce({
          api,
          archive,
          cursors,
          skips,
          changesPerRequest: flags.changesPerRequest,
          onProblem,
        });
      } catch (err) {
        // --once fails with the reason; a standing follower says it and tries again next pass (the cursor did not move past it).
        if (flags.once) throw err;
        logLine(`palimpsest: this pass failed, trying again in ${flags.interval} s: ${errorMessage(err)}`);
        await sleep(flags.interval * 1000);
        continue;
      }
      const { cursor, ...counts } = report;
      // How many pages wait in the skip list, so a cron log shows them every pass (--skipped lists them).
      const skippedPages = (await skips.list()).length;
      process.stdout.write(
        `${JSON.stringify({ ...counts, skippedPages, cursor: cursor?.timestamp ?? null, rcid: cursor?.rcid ?? null, seconds: (Date.now() - started) / 1000 })}\n`,
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
    .option(
      "--skipped",
      "list the pages the archive refused, which the follower skipped (one JSON line each), and exit",
    )
    .option("--retry <title|all>", "try a skipped page (its wiki title), or all of them, again, and exit")
    .action((wiki: string, flags: FollowFlags) => runFollow(wiki, flags));
}
