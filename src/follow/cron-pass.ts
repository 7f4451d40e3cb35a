/**
 * The deployment's wiki follower: every Cron Trigger (wrangler.toml
 * `[triggers]`) runs one pass of src/follow/follower.ts against the wiki
 * `FOLLOW_WIKI_API` names, writing through src/follow/worker-archive.ts,
 * with its cursor in the wiki's WikiFollower Durable Object
 * (src/follow/follower-store.ts). A pass holds that object's lease, so two
 * invocations never follow at once (the second returns "busy"), reads new
 * changes for at most `follow.cronPassSeconds`, and records its outcome
 * for operators (`GET /api/follow`). A page the archive refuses is recorded
 * in the same object and skipped (src/follow/follower.ts); a retry an
 * operator asked for (`POST /api/follow/retry`) runs at the start of the
 * next pass. With `FOLLOW_WIKI_API` empty it does nothing. Each pass logs
 * one JSON line (`wrangler tail` shows it).
 *
 * @example
 * ctx.waitUntil(runCronPass(env)); // in the Worker's scheduled handler
 */
import { wikiFollowerOf } from "../bindings.ts";
import { errorMessage } from "../lib/errors.ts";
import { ProblemError } from "../http/problem.ts";
import { LIMITS } from "../limits.ts";
import { ActionApi } from "./action-api.ts";
import { followOnce, retrySkipped, type CursorStore, type SkipStore } from "./follower.ts";
import type { PassRecord } from "./follower-store.ts";
import { workerArchive } from "./worker-archive.ts";
import pkg from "../../package.json" with { type: "json" };

export type CronPassResult =
  { kind: "off" } | { kind: "busy"; wiki: string } | { kind: "done"; wiki: string; record: PassRecord };

/**
 * The follower's settings from [vars]; null when no wiki is configured, a 503 problem when it is not an http(s) URL.
 */
export function followSettings(env: Env): { wiki: string; contact: string } | null {
  const raw = (env.FOLLOW_WIKI_API ?? "").trim();
  if (raw === "") return null;
  const url = URL.canParse(raw) ? new URL(raw) : null;
  if (!url || (url.protocol !== "https:" && url.protocol !== "http:"))
    throw new ProblemError({
      status: 503,
      code: "follow_wiki_invalid",
      title: "Service Unavailable",
      detail: `FOLLOW_WIKI_API must be the http(s) URL of a wiki's api.php; it is ${JSON.stringify(raw)}`,
    });
  return { wiki: url.toString(), contact: (env.FOLLOW_CONTACT ?? "").trim() };
}

export interface CronPassOptions {
  /** Default Date.now. */
  now?: () => number;
  /** How the wiki is asked (default: the global fetch); tests pass a scripted wiki. */
  fetch?: (url: URL, init: RequestInit) => Promise<Response>;
}

export async function runCronPass(env: Env, options: CronPassOptions = {}): Promise<CronPassResult> {
  const now = options.now ?? Date.now;
  const settings = followSettings(env);
  if (!settings) return { kind: "off" };
  const { wiki } = settings;
  const follower = wikiFollowerOf(env, wiki);
  const holder = crypto.randomUUID();
  if (!(await follower.acquire(holder, LIMITS.follow.cronLeaseSeconds * 1000))) {
    console.log(JSON.stringify({ follow: wiki, pass: "busy" }));
    return { kind: "busy", wiki };
  }
  const startedMs = now();
  let outcome: PassRecord["outcome"];
  try {
    const origin = (env.PUBLIC_ORIGIN ?? "").trim() || "an unnamed archive";
    const api = new ActionApi({
      url: wiki,
      userAgent: `palimpsest-follow/${pkg.version} (an archive of this wiki at ${origin}; ${settings.contact || "no contact given"})`,
      ...(options.fetch ? { fetch: options.fetch } : {}),
    });
    const cursors: CursorStore = {
      load: async () => await follower.cursor(),
      async save(cursor) {
        if (!(await follower.save(holder, cursor)))
          throw new Error("this pass lost its lease (it ran past follow.cronLeaseSeconds); the next pass goes on");
      },
    };
    const skips: SkipStore = {
      record: async (skip) => await follower.recordSkip(skip),
      list: async () => await follower.skipped(),
      settle: async (title, skip) => await follower.settleSkip(title, skip),
    };
    const follow = {
      api,
      archive: workerArchive(env),
      cursors,
      skips,
      deadline: startedMs + LIMITS.follow.cronPassSeconds * 1000,
      onProblem: (problem: string) => console.warn(JSON.stringify({ follow: wiki, skipped: problem })),
    };
    // Retries an operator asked for first: they are few, and the pass's deadline bounds them too.
    const asked = await follower.retryAsked();
    const retried = asked.length > 0 ? await retrySkipped(follow, asked) : [];
    const report = await followOnce(follow);
    const { cursor: _cursor, ...counts } = report;
    outcome = { ok: true, ...counts, retried: retried.length };
  } catch (err) {
    // The message names the status and a fixed phrase, never the wiki's words; bounded all the same.
    const message = errorMessage(err);
    const max = LIMITS.follow.maxSkippedTextChars;
    outcome = { ok: false, error: message.length <= max ? message : `${message.slice(0, max - 1)}…` };
  }
  const record: PassRecord = { startedMs, finishedMs: now(), outcome };
  try {
    await follower.recordPass(record);
  } finally {
    await follower.release(holder);
  }
  console.log(JSON.stringify({ follow: wiki, ...record }));
  return { kind: "done", wiki, record };
}
