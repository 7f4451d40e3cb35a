/**
 * Keeps the archive in step with a live MediaWiki through its Action API,
 * so the archive follows a wiki without exports being carried over. One pass, {@link followOnce}, reads the wiki's
 * recent changes from a cursor, with continuation, and brings every page they name up to date: the revisions after the
 * archive's latest for that page, with their content (`rvslots=main`), which on first sight is the page's whole
 * history. The cursor moves, and is saved, only after a batch of changes is stored, so a follower killed at any point
 * resumes with no gap; the archive takes each revision once (its writes are idempotent per id and chained to the page's
 * latest), so nothing is stored twice.
 *
 * It runs wherever it is given an archive and a cursor store: the CLI's
 * `palimpsest follow` (HTTP to the archive, the cursor in a file), and
 * the deployment's Cron Trigger (src/follow/cron-pass.ts). So it needs only `fetch` (src/follow/action-api.ts).
 *
 * Revision deletion of a revision's content becomes the archive's
 * suppression of it (and showing it again, unsuppression). A revision whose
 * text was hidden before the follower first read it is reported and left
 * out, as the importer does: the archive keeps no revision without its text.
 * A move stores the moved history under the new title too, and the redirect
 * left at the old title as that page's next revision, so the old title keeps
 * its history and points to the new one. Not followed yet: page deletions
 * (the archive keeps the page) and restorations (nothing new to store).
 *
 * One page never stops the follower. A page or revision the archive refuses
 * (it answers 4xx other than 408 and 429: a title it does not take, a
 * revision over a limit, a schema refusal, a conflict) is recorded in the
 * {@link SkipStore} (title, page id, revision ids, the archive's problem
 * code and a short reason) before the cursor moves past it, and skipped. So
 * is a page whose history the wiki answers in a way the follower refuses
 * (over `follow.maxAnswerBytes`, not JSON, an API error). A refused revision
 * is left out and the page's later revisions are stored after it, each
 * chained to the archive's latest (as a revision with hidden text is): the
 * archive takes a revision only as the child of the page's latest, so the
 * alternative, holding the whole page back, would let one vandal's oversized
 * edit stop a page for good. Anything else (the archive or the wiki failing:
 * 5xx, 408, 429, the network) fails the pass with the cursor where it was,
 * and the next pass tries again. {@link retrySkipped} tries a recorded page
 * again once its cause is fixed.
 *
 * @example
 * const api = new ActionApi({ url, userAgent });
 * const report = await followOnce({ api, archive, cursors, onProblem: console.warn });
 */
import { runLimited } from "../lib/run-limited.ts";
import { LIMITS } from "../limits.ts";
import { isContentModel } from "../page/content-model.ts";
import type { HiddenFields, NewRevision } from "../page/types.ts";
import { ActionApiError, type ActionApi } from "./action-api.ts";

/** Where the follower has got to in one wiki's recent changes. */
export interface FollowCursor {
  /** The api.php URL it belongs to: a cursor of one wiki is never used on another. */
  wiki: string;
  /** Timestamp of the newest recent change whose pages are stored. */
  timestamp: string;
  /** Its rcid (for people reading the cursor; the overlap, not the rcid, decides where to resume). */
  rcid: number;
}

/** The archive refused a page or a revision (a 4xx other than 408/429): the follower skips it and goes on. */
export class ArchiveRefusal extends Error {
  override readonly name = "ArchiveRefusal";
  constructor(
    /** The archive's HTTP status. */
    readonly status: number,
    /** The archive's problem code (`invalid_title`, `revision_too_large`, `parent_mismatch`…). */
    readonly code: string,
    /** A short reason (the problem's detail). */
    message: string,
    /** The revision refused, when the archive names it. */
    readonly revisionId?: number,
  ) {
    super(message);
  }
}

/** Whether an archive's answer with this status refuses what was sent (skip it), rather than fails (try again). */
export function isRefusalStatus(status: number): boolean {
  return status >= 400 && status < 500 && status !== 408 && status !== 429;
}

/**
 * The archive with each call's refusals thrown as {@link ArchiveRefusal}: `asRefusal` turns an
 * error into one, or null for an error that is not a refusal (it is thrown as it is).
 */
export function refusalsOf<A extends object>(archive: A, asRefusal: (err: unknown) => ArchiveRefusal | null): A {
  const wrapped: Record<string, unknown> = {};
  for (const [name, call] of Object.entries(archive))
    wrapped[name] =
      typeof call !== "function"
        ? call
        : async (...args: unknown[]) => {
            try {
              return await (call as (...a: unknown[]) => Promise<unknown>).apply(archive, args);
            } catch (err) {
              throw asRefusal(err) ?? err;
            }
          };
  return wrapped as A;
}

/**
 * A page, or some of its revisions, that the follower skipped because the archive (or the wiki's answer for it) refused
 * it.
 */
export interface SkippedPage {
  /** The wiki's title (cut to follow.maxSkippedTextChars). */
  title: string;
  /** The wiki's page id, when known. */
  pageId: number | null;
  /** The revisions refused (the newest follow.maxSkippedRevisionsPerPage); empty when the page as a whole was. */
  revisionIds: number[];
  /** The archive's problem code, or `wiki_<code>` when the wiki's answer for the page was refused. */
  code: string;
  /** Why, short (follow.maxSkippedTextChars). */
  reason: string;
  /** When it was last refused, epoch ms. */
  atMs: number;
}

/** Where skipped pages are kept: the WikiFollower store for the cron pass, a file for the CLI. */
export interface SkipStore {
  /**
   * Records durably before it returns (the cursor moves past the page next). A record for the same
   * title is merged: its revision ids joined, the newest code, reason and time kept.
   */
  record(skip: SkippedPage): Promise<void>;
  /** Newest first. */
  list(): Promise<SkippedPage[]>;
  /** Replaces the title's record (a retry refused again), or removes it (null: a retry that succeeded). */
  settle(title: string, skip: SkippedPage | null): Promise<void>;
}

/** Merges a new refusal of a page into its existing record, bounded, the newest revision ids kept. */
export function mergeSkip(old: SkippedPage | null, skip: SkippedPage): SkippedPage {
  const max = LIMITS.follow.maxSkippedRevisionsPerPage;
  // An empty list is the whole page; a page refused as a whole stays so until a retry settles it.
  const whole = skip.revisionIds.length === 0 || (old !== null && old.revisionIds.length === 0);
  const ids = whole ? [] : [...new Set([...(old?.revisionIds ?? []), ...skip.revisionIds])].sort((a, b) => a - b);
  return {
    ...skip,
    title: cut(skip.title),
    reason: cut(skip.reason),
    pageId: skip.pageId ?? old?.pageId ?? null,
    revisionIds: ids.slice(-max),
  };
}

function cut(text: string): string {
  const max = LIMITS.follow.maxSkippedTextChars;
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/** A title as a message may quote it: a hostile wiki's title may be any length. */
export function quoteTitle(title: string): string {
  return JSON.stringify(title.length <= 200 ? title : `${title.slice(0, 200)}…`);
}

export interface CursorStore {
  load(): Promise<FollowCursor | null>;
  /** Saves durably before it returns: the follower may be killed right after. */
  save(cursor: FollowCursor): Promise<void>;
}

/** What the follower needs of the archive. Titles are the wiki's (`Talk:Foo bar`); the archive normalises them. */
export interface FollowArchive {
  /** The page's latest stored revision id, or null when the archive has no such page. */
  latestId(title: string): Promise<number | null>;
  /**
   * Stores revisions, oldest first, each chained to the one before (the first to the page's latest); idempotent
   * per id. One sent again with what the archive lacked of it (a text, comment or user it holds hidden and empty)
   * fills that in. `wikiPageId`: the page's id on the wiki, for its exports.
   */
  append(title: string, revisions: NewRevision[], wikiPageId?: number): Promise<void>;
  /**
   * Hides or shows a stored revision's content, comment or user, as the wiki's revision deletion did (a field
   * left out stays as it is), saying why; false if the archive lacks the revision.
   */
  setHidden(title: string, id: number, change: HiddenFields, reason: string): Promise<boolean>;
  /**
   * Deletes the page as the wiki deleted it (restorable), or restores it as the wiki undeleted it; false if the archive
   * lacks it.
   */
  setDeleted(title: string, deleted: boolean, reason: string): Promise<boolean>;
}

export interface FollowReport {
  /** Recent changes read (the overlap with the previous pass included). */
  changes: number;
  /** Pages brought up to date. */
  pages: number;
  /** Revisions stored. */
  revisions: number;
  /** Revisions left out (hidden text, a model the archive does not know), each reported. */
  skipped: number;
  /** Pages or revisions the archive refused this pass, each recorded in the skip store and skipped. */
  refused: number;
  /** Action API requests sent again after a 429/503, maxlag, a timeout or a broken connection. */
  retries: number;
  cursor: FollowCursor | null;
  /** The pass stopped at its deadline with recent changes still to read; the next pass goes on from the cursor. */
  more: boolean;
}

export interface FollowOptions {
  api: ActionApi;
  archive: FollowArchive;
  cursors: CursorStore;
  /** Where refused pages are recorded before the cursor moves past them. */
  skips: SkipStore;
  /** A revision the archive cannot take, and why; the pass goes on. */
  onProblem?: (problem: string) => void;
  /** Recent changes per request, and so per cursor move; default LIMITS.follow.recentChangesPerRequest. */
  changesPerRequest?: number;
  /** After each batch of recent changes is stored (for progress). */
  onBatch?: (cursor: FollowCursor, report: FollowReport) => void;
  /**
   * Epoch ms after which the pass stops once its current batch is stored (a Cron Trigger's bounded run); default none.
   */
  deadline?: number;
}

const FOLLOW = LIMITS.follow;

interface RecentChange {
  rcid: number;
  pageid?: number;
  type: string;
  title: string;
  timestamp: string;
  logtype?: string;
  logaction?: string;
  /** The log entry's comment, when the wiki shows it. */
  comment?: string;
  commenthidden?: boolean;
  logparams?: {
    target_title?: string;
    /** Revision deletion: which revisions, and which of their fields are hidden now. */
    type?: string;
    ids?: Array<number | string>;
    new?: { content?: boolean; comment?: boolean; user?: boolean };
  };
}

interface ApiRevision {
  revid: number;
  parentid: number;
  timestamp: string;
  user?: string;
  userhidden?: boolean;
  comment?: string;
  commenthidden?: boolean;
  sha1?: string;
  sha1hidden?: boolean;
  texthidden?: boolean;
  slots?: { main?: { contentmodel?: string; contentformat?: string; content?: string; texthidden?: boolean } };
}

interface RevisionsAnswer {
  continue?: Record<string, string>;
  query?: {
    pages?: Array<{
      title: string;
      pageid?: number;
      missing?: boolean;
      invalid?: boolean;
      special?: boolean;
      revisions?: ApiRevision[];
    }>;
  };
}

interface RecentChangesAnswer {
  continue?: Record<string, string>;
  query?: { recentchanges?: RecentChange[] };
}

/** A report of nothing done yet, from `cursor`. */
function emptyReport(cursor: FollowCursor | null): FollowReport {
  return { changes: 0, pages: 0, revisions: 0, skipped: 0, refused: 0, retries: 0, cursor, more: false };
}

/** Catches up with the wiki from the stored cursor, and saves the cursor as it goes. */
export async function followOnce(options: FollowOptions): Promise<FollowReport> {
  const { api, cursors } = options;
  let cursor = await cursors.load();
  if (cursor && cursor.wiki !== api.url)
    throw new Error(`the cursor belongs to ${cursor.wiki}, not ${api.url}: a cursor follows one wiki`);
  const report = emptyReport(cursor);
  const retriesBefore = api.retries;
  const start = cursor ? overlapStart(cursor.timestamp) : undefined;
  let cont: Record<string, string> = {};
  for (;;) {
    const answer = await api.get<RecentChangesAnswer>({
      action: "query",
      list: "recentchanges",
      rcprop: "ids|title|timestamp|loginfo|comment",
      rctype: "edit|new|log",
      rcdir: "newer",
      rclimit: options.changesPerRequest ?? FOLLOW.recentChangesPerRequest,
      rcstart: start,
      ...cont,
    });
    const changes = answer.query?.recentchanges;
    if (!Array.isArray(changes)) throw new ActionApiError("api", "recentchanges: the answer has no list", false);
    const asked = options.changesPerRequest ?? FOLLOW.recentChangesPerRequest;
    // The batch is all or nothing for the cursor: a wiki answering more than it was asked would make it unbounded.
    if (changes.length > asked)
      throw new ActionApiError("api", `recentchanges: ${changes.length} changes answered, ${asked} asked for`, false);
    report.changes += changes.length;
    const titles = new Map<string, number | null>();
    for (const change of changes) {
      checkChange(change);
      titles.set(change.title, Number.isSafeInteger(change.pageid) ? change.pageid! : null);
      if (change.logtype === "move" && typeof change.logparams?.target_title === "string")
        titles.set(change.logparams.target_title, null);
    }
    // Pages in parallel, at most maxConcurrentRequests of them (each sends one request at a time).
    let complete = true;
    await runLimited([...titles], FOLLOW.maxConcurrentRequests, async ([title, pageId]) => {
      if (!(await syncPage(options, title, pageId, report, (skip) => recordSkip(options, skip, report))))
        complete = false;
    });
    if (!complete) {
      // A long history met the deadline: what is read is stored; the next pass goes on from the archive's latest.
      report.more = true;
      report.retries = api.retries - retriesBefore;
      return report;
    }
    // Then revision deletions, page deletions and undeletions, in the order the wiki made them, on
    // revisions and pages the archive holds by now.
    for (const change of changes) {
      try {
        await followRevisionDeletion(options, change, report);
        await followPageDeletion(options, change);
      } catch (err) {
        if (!(err instanceof ArchiveRefusal)) throw err;
        await recordSkip(options, skipOf(change.title, change.pageid ?? null, err), report);
      }
    }
    const last = changes.at(-1);
    if (last) {
      cursor = { wiki: api.url, timestamp: last.timestamp, rcid: last.rcid };
      await cursors.save(cursor);
      report.cursor = cursor;
    }
    report.retries = api.retries - retriesBefore;
    if (last) options.onBatch?.(cursor!, report);
    if (!answer.continue) return report;
    if (options.deadline !== undefined && Date.now() >= options.deadline) {
      report.more = true;
      return report;
    }
    cont = answer.continue;
  }
}

/** Why the archive hides or shows something the wiki did: the wiki's own log comment, when it shows it. */
function mirroredReason(change: RecentChange, what: string): string {
  const comment = change.commenthidden || typeof change.comment !== "string" ? "" : change.comment.trim();
  const reason = `mirrors ${what} on the followed wiki${comment ? `: ${comment}` : ""}`;
  // A hostile wiki's comment may be any length: the reason keeps what fits the archive's limit.
  let out = reason.slice(0, LIMITS.page.maxReasonBytes);
  while (new TextEncoder().encode(out).byteLength > LIMITS.page.maxReasonBytes) out = out.slice(0, -1);
  return out;
}

/**
 * A revision deletion hides or shows a revision's content, comment or user here as on the wiki. The
 * revision is read again first (as an anonymous reader of the wiki sees it now): what the wiki shows
 * again that the archive never held (a text hidden before the follower first read it, a comment or a
 * user stored empty because hidden) comes in with it; then the flags are set as the wiki's log says.
 */
async function followRevisionDeletion(options: FollowOptions, change: RecentChange, report: FollowReport) {
  const params = change.logparams;
  if (change.logtype !== "delete" || change.logaction !== "revision" || params?.type !== "revision") return;
  if (!Array.isArray(params.ids) || typeof params.new !== "object" || params.new === null) return;
  const flag = (v: unknown) => (typeof v === "boolean" ? v : undefined);
  const hidden: HiddenFields = {
    content: flag(params.new.content),
    comment: flag(params.new.comment),
    contributor: flag(params.new.user),
  };
  if (hidden.content === undefined && hidden.comment === undefined && hidden.contributor === undefined) return;
  const reason = mirroredReason(change, "a revision deletion");
  for (const raw of params.ids.slice(0, FOLLOW.maxRevisionDeletionIds)) {
    const id = Number(raw);
    if (!Number.isSafeInteger(id) || id <= 0) continue;
    // Something shown again: read what the wiki now shows of it, and fill in what the archive lacks.
    if (hidden.content === false || hidden.comment === false || hidden.contributor === false)
      await refillRevision(options, change.title, id, report);
    if (!(await options.archive.setHidden(change.title, id, hidden, reason)))
      options.onProblem?.(
        `page ${quoteTitle(change.title)} revision ${id}: the wiki's revision deletion names a revision the archive does not hold`,
      );
  }
}

/** Sends revision `id` again as the wiki shows it now: the archive takes what it lacked of it (a fill). */
async function refillRevision(options: FollowOptions, title: string, id: number, report: FollowReport) {
  const answer = await options.api.get<RevisionsAnswer>({
    action: "query",
    prop: "revisions",
    revids: id,
    rvprop: "ids|timestamp|user|comment|sha1|content|flags",
    rvslots: "main",
  });
  const page = answer.query?.pages?.[0];
  const rev = page?.revisions?.find((r) => r.revid === id);
  if (!page || !rev || page.title !== title) return; // moved or gone since: the flags still follow
  const [revision] = toRevisions(title, [rev], null, options, report);
  if (!revision) return;
  await options.archive.append(title, [{ ...revision, parentId: rev.parentid > 0 ? rev.parentid : null }]);
}

/**
 * A page deletion on the wiki deletes the page here (restorable: everything kept, nothing public), and
 * an undeletion restores it, with whatever was stored meanwhile. A deletion the wiki's recent changes
 * do not show to anonymous readers (suppression, oversight) is not seen here.
 */
async function followPageDeletion(options: FollowOptions, change: RecentChange) {
  if (change.logtype !== "delete" || (change.logaction !== "delete" && change.logaction !== "restore")) return;
  const deleted = change.logaction === "delete";
  const reason = mirroredReason(change, deleted ? "a page deletion" : "an undeletion");
  if (!(await options.archive.setDeleted(change.title, deleted, reason)) && deleted)
    options.onProblem?.(`page ${quoteTitle(change.title)}: deleted on the wiki, and the archive does not hold it`);
}

function overlapStart(timestamp: string): string {
  const ms = Date.parse(timestamp);
  if (Number.isNaN(ms)) throw new Error(`the cursor's timestamp ${JSON.stringify(timestamp)} is not a date`);
  return new Date(ms - FOLLOW.cursorOverlapSeconds * 1000).toISOString().replace(".000Z", "Z");
}

function checkChange(change: RecentChange): void {
  if (
    !change ||
    typeof change.title !== "string" ||
    typeof change.timestamp !== "string" ||
    !Number.isSafeInteger(change.rcid)
  )
    throw new ActionApiError("api", "recentchanges: a change without title, timestamp or rcid", false);
}

async function recordSkip(options: FollowOptions, skip: SkippedPage, report: FollowReport): Promise<void> {
  report.refused++;
  options.onProblem?.(
    `page ${quoteTitle(skip.title)}${skip.revisionIds.length > 0 ? ` revision ${skip.revisionIds.join(", ")}` : ""}: ${skip.code}: ${skip.reason}; recorded and skipped`,
  );
  await options.skips.record(mergeSkip(null, skip));
}

/** The skip record of a refusal: the archive's (ArchiveRefusal), or of the wiki's answer for this page. */
function skipOf(title: string, pageId: number | null, err: ArchiveRefusal | ActionApiError): SkippedPage {
  const atMs = Date.now();
  if (err instanceof ArchiveRefusal)
    return {
      title,
      pageId,
      revisionIds: err.revisionId === undefined ? [] : [err.revisionId],
      code: err.code,
      reason: err.message,
      atMs,
    };
  return { title, pageId, revisionIds: [], code: `wiki_${err.code}`, reason: err.message, atMs };
}

/**
 * Whether an error reading a page's history refuses that page: the wiki's answer for it is too
 * big, not JSON or an API error (other than one the follower handles). Its status codes, timeouts
 * and broken connections are the wiki failing, and fail the pass.
 */
function refusesPage(err: unknown): err is ActionApiError {
  return err instanceof ActionApiError && !err.retryable && ["too_big", "not_json", "api"].includes(err.code);
}

/**
 * Brings one page up to date: every revision after the archive's latest (all of them on first
 * sight). A refusal is handed to `skip` and the page given up on (for this pass); false when
 * the pass's deadline came before the page's history was read to its end.
 */
async function syncPage(
  options: FollowOptions,
  title: string,
  pageId: number | null,
  report: FollowReport,
  skip: (skip: SkippedPage) => Promise<void>,
): Promise<boolean> {
  try {
    const latest = await options.archive.latestId(title);
    try {
      // From the latest stored revision's time on: the revision must exist on the wiki.
      return await syncFrom(options, title, pageId, latest, latest, report, skip);
    } catch (err) {
      // The stored latest is gone from the wiki (deleted since): read the whole history instead.
      if (latest === null || !(err instanceof ActionApiError) || err.apiCode !== "nosuchrevid") throw err;
      return await syncFrom(options, title, pageId, latest, null, report, skip);
    }
  } catch (err) {
    if (!(err instanceof ArchiveRefusal) && !refusesPage(err)) throw err;
    await skip(skipOf(title, pageId, err));
    return true;
  }
}

async function syncFrom(
  options: FollowOptions,
  title: string,
  pageId: number | null,
  latest: number | null,
  startId: number | null,
  report: FollowReport,
  skip: (skip: SkippedPage) => Promise<void>,
): Promise<boolean> {
  let chain = latest;
  let cont: Record<string, string> = {};
  for (;;) {
    const answer = await options.api.get<RevisionsAnswer>({
      action: "query",
      prop: "revisions",
      titles: title,
      rvprop: "ids|timestamp|user|comment|sha1|content|flags",
      rvslots: "main",
      rvdir: "newer",
      rvlimit: "max",
      rvstartid: startId ?? undefined,
      ...cont,
    });
    const page = answer.query?.pages?.[0];
    if (!page) throw new ActionApiError("api", "revisions: the answer has no page", false);
    // Deleted since the change (deletions are not followed yet), or a log entry's title with no page (User:, Special:).
    if (page.missing || page.invalid || page.special) return true;
    pageId ??= Number.isSafeInteger(page.pageid) ? page.pageid! : null;
    const fresh = (page.revisions ?? []).filter((r) => latest === null || r.revid > latest);
    const batch = toRevisions(title, fresh, chain, options, report);
    if (batch.length > 0) {
      const stored = await appendSkipping(options, title, pageId, batch, (revision, err) =>
        skip({ ...skipOf(title, pageId, err), revisionIds: [revision.id] }),
      );
      if (stored.count > 0 && chain === latest) report.pages++;
      report.revisions += stored.count;
      chain = stored.latest;
    }
    if (!answer.continue) return true;
    // A history of millions of revisions is read across passes: what is stored stays, the next pass goes on from it.
    if (options.deadline !== undefined && Date.now() >= options.deadline) return false;
    cont = answer.continue;
  }
}

/**
 * Appends `revisions` (chained from the first one's parent), leaving out each one the archive
 * refuses and chaining the rest to the last one stored; the page's new latest. A refusal that
 * names its revision sends the ones before it and skips it; one that names none is found by
 * sending the rest one at a time.
 */
async function appendSkipping(
  options: FollowOptions,
  title: string,
  pageId: number | null,
  revisions: NewRevision[],
  skip: (revision: NewRevision, err: ArchiveRefusal) => Promise<void>,
): Promise<{ latest: number | null; count: number }> {
  let parent = revisions[0]!.parentId;
  let count = 0;
  let pending = revisions;
  let oneByOne = false;
  let step = pending.length;
  while (pending.length > 0) {
    const batch = pending.slice(0, step).map((r, i, all) => ({ ...r, parentId: i === 0 ? parent : all[i - 1]!.id }));
    try {
      await options.archive.append(title, batch, pageId ?? undefined);
      parent = batch.at(-1)!.id;
      count += batch.length;
      pending = pending.slice(batch.length);
      step = oneByOne ? 1 : pending.length;
    } catch (err) {
      if (!(err instanceof ArchiveRefusal)) throw err;
      const at = batch.length === 1 ? 0 : batch.findIndex((r) => r.id === err.revisionId);
      if (at === -1) oneByOne = true;
      if (at !== 0) {
        step = at === -1 ? 1 : at; // the ones before it go alone, then it is refused alone
        continue;
      }
      await skip(batch[0]!, err);
      pending = pending.slice(1);
      step = oneByOne ? 1 : pending.length;
    }
  }
  return { latest: parent, count };
}

export interface RetryOutcome {
  title: string;
  /** Stored now, and gone from the skip list; or refused again, kept with the new reason. */
  ok: boolean;
  skip: SkippedPage | null;
}

/**
 * Tries recorded pages again (an operator fixed the cause: a title rule, a limit): each page is
 * brought up to date from the archive's latest, as a pass would. One that now goes through
 * leaves the skip list; one refused again stays, with the new reason. A refused revision that
 * the archive has since stored later revisions after cannot come in (the archive takes a
 * revision only as the child of the page's latest) and stays, saying so. A failure of the wiki or
 * the archive (5xx, the network) is thrown and leaves the record as it was. Pages past the
 * options' deadline are left for later; the outcomes name those tried.
 */
export async function retrySkipped(options: FollowOptions, which: readonly string[] | "all"): Promise<RetryOutcome[]> {
  const recorded = await options.skips.list();
  const items = which === "all" ? recorded : recorded.filter((s) => which.includes(s.title));
  const outcomes: RetryOutcome[] = [];
  const report = emptyReport(null);
  for (const item of items) {
    // Past the pass's deadline the rest wait (a cron pass keeps their retry asked for the next one).
    if (options.deadline !== undefined && Date.now() >= options.deadline) break;
    const refused: { again: SkippedPage | null } = { again: null };
    const latestBefore = await options.archive.latestId(item.title).catch((err: unknown) => {
      if (err instanceof ArchiveRefusal) return null;
      throw err;
    });
    const complete = await syncPage(options, item.title, item.pageId, report, (s) => {
      refused.again = mergeSkip(refused.again, s);
      return Promise.resolve();
    });
    // A long history met the deadline: what is read is stored, the record stays for the next retry.
    if (!complete) break;
    // Refused revisions older than what the archive held: later revisions were stored after them.
    const stranded = item.revisionIds.filter((id) => latestBefore !== null && id < latestBefore);
    if (stranded.length > 0)
      refused.again = mergeSkip(refused.again, {
        ...item,
        revisionIds: stranded,
        code: "parent_mismatch",
        reason: `the archive holds later revisions of this page, stored after skipping ${stranded.length === 1 ? "this one" : "these"}; it takes a revision only as the child of the page's latest`,
        atMs: Date.now(),
      });
    await options.skips.settle(item.title, refused.again);
    outcomes.push({ title: item.title, ok: refused.again === null, skip: refused.again });
  }
  return outcomes;
}

/** The write API's revisions for what the wiki answered; a revision it cannot take is reported and left out. */
function toRevisions(
  title: string,
  revs: ApiRevision[],
  chain: number | null,
  options: FollowOptions,
  report: FollowReport,
): NewRevision[] {
  const out: NewRevision[] = [];
  for (const r of revs) {
    const main = r.slots?.main;
    const skip = (why: string) => {
      report.skipped++;
      options.onProblem?.(`page ${JSON.stringify(title)} revision ${r.revid}: ${why}`);
    };
    if (!Number.isSafeInteger(r.revid) || r.revid <= 0)
      throw new ActionApiError("api", `revisions of ${title}: a revision without an id`, false);
    // Hidden on the wiki before the follower read it: stored without its text (or comment, or user),
    // keeping its id, parent and time, so the next revision's parent exists here as there.
    const textMissing = r.texthidden === true || main?.texthidden === true || typeof main?.content !== "string";
    const model = main?.contentmodel ?? "wikitext";
    if (!isContentModel(model)) {
      skip(`content model ${JSON.stringify(model)} is not one the archive stores`);
      continue;
    }
    const hidden: HiddenFields = {
      ...(textMissing ? { content: true } : {}),
      ...(r.commenthidden ? { comment: true } : {}),
      ...(r.userhidden ? { contributor: true } : {}),
    };
    out.push({
      id: r.revid,
      parentId: out.at(-1)?.id ?? chain,
      timestamp: r.timestamp,
      contributor: r.userhidden ? "" : (r.user ?? ""),
      comment: r.commenthidden ? "" : (r.comment ?? ""),
      model,
      format: textMissing ? undefined : main?.contentformat,
      text: textMissing ? "" : main.content!,
      sha1: r.sha1 && !r.sha1hidden && /^[0-9a-f]{40}$/.test(r.sha1) ? base36Sha1(r.sha1) : null,
      ...(Object.keys(hidden).length > 0 ? { hidden } : {}),
      ...(textMissing ? { textMissing: true } : {}),
    });
  }
  return out;
}

/** The API's hex SHA-1 in MediaWiki's base-36 form (31 digits), as dumps and the archive write it. */
export function base36Sha1(hex: string): string {
  return BigInt(`0x${hex}`).toString(36).padStart(31, "0");
}
