/**
 * Keeps the archive in step with a live MediaWiki through its Action API
 * (issue 28 item 3). One pass, {@link followOnce}, reads the wiki's recent
 * changes from a cursor, with continuation, and brings every page they name
 * up to date: the revisions after the archive's latest for that page, with
 * their content (`rvslots=main`), which on first sight is the page's whole
 * history. The cursor moves, and is saved, only after a batch of changes is
 * stored, so a follower killed at any point resumes with no gap; the archive
 * takes each revision once (its writes are idempotent per id and chained to
 * the page's latest), so nothing is stored twice.
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
 * @example
 * const api = new ActionApi({ url, userAgent });
 * const report = await followOnce({ api, archive, cursors, onProblem: console.warn });
 */
import { runLimited } from "../lib/run-limited.ts";
import { LIMITS } from "../limits.ts";
import { isContentModel } from "../page/content-model.ts";
import type { NewRevision } from "../page/types.ts";
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

export interface CursorStore {
  load(): Promise<FollowCursor | null>;
  /** Saves durably before it returns: the follower may be killed right after. */
  save(cursor: FollowCursor): Promise<void>;
}

/** What the follower needs of the archive. Titles are the wiki's (`Talk:Foo bar`); the archive normalises them. */
export interface FollowArchive {
  /** The page's latest stored revision id, or null when the archive has no such page. */
  latestId(title: string): Promise<number | null>;
  /** Stores revisions, oldest first, each chained to the one before (the first to the page's latest); idempotent per id. */
  append(title: string, revisions: NewRevision[]): Promise<void>;
  /** Hides or shows a stored revision's content (revision deletion on the wiki); false if the archive lacks it. */
  setSuppressed(title: string, id: number, suppressed: boolean): Promise<boolean>;
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
  /** A revision the archive cannot take, and why; the pass goes on. */
  onProblem?: (problem: string) => void;
  /** Recent changes per request, and so per cursor move; default LIMITS.follow.recentChangesPerRequest. */
  changesPerRequest?: number;
  /** After each batch of recent changes is stored (for progress). */
  onBatch?: (cursor: FollowCursor, report: FollowReport) => void;
  /** Epoch ms after which the pass stops once its current batch is stored (a Cron Trigger's bounded run); default none. */
  deadline?: number;
}

const FOLLOW = LIMITS.follow;

interface RecentChange {
  rcid: number;
  type: string;
  title: string;
  timestamp: string;
  logtype?: string;
  logaction?: string;
  logparams?: {
    target_title?: string;
    /** Revision deletion: which revisions, and whether their content is hidden now. */
    type?: string;
    ids?: Array<number | string>;
    new?: { content?: boolean };
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

/** Catches up with the wiki from the stored cursor, and saves the cursor as it goes. */
export async function followOnce(options: FollowOptions): Promise<FollowReport> {
  const { api, cursors } = options;
  let cursor = await cursors.load();
  if (cursor && cursor.wiki !== api.url)
    throw new Error(`the cursor belongs to ${cursor.wiki}, not ${api.url}: a cursor follows one wiki`);
  const report: FollowReport = { changes: 0, pages: 0, revisions: 0, skipped: 0, retries: 0, cursor, more: false };
  const retriesBefore = api.retries;
  const start = cursor ? overlapStart(cursor.timestamp) : undefined;
  let cont: Record<string, string> = {};
  for (;;) {
    const answer = await api.get<RecentChangesAnswer>({
      action: "query",
      list: "recentchanges",
      rcprop: "ids|title|timestamp|loginfo",
      rctype: "edit|new|log",
      rcdir: "newer",
      rclimit: options.changesPerRequest ?? FOLLOW.recentChangesPerRequest,
      rcstart: start,
      ...cont,
    });
    const changes = answer.query?.recentchanges;
    if (!Array.isArray(changes)) throw new ActionApiError("api", "recentchanges: the answer has no list", false);
    report.changes += changes.length;
    const titles = new Set<string>();
    for (const change of changes) {
      checkChange(change);
      titles.add(change.title);
      if (change.logtype === "move" && typeof change.logparams?.target_title === "string")
        titles.add(change.logparams.target_title);
    }
    // Pages in parallel, at most maxConcurrentRequests of them (each sends one request at a time).
    await runLimited([...titles], FOLLOW.maxConcurrentRequests, (title) => syncPage(options, title, report));
    // Then revision deletions, in the order the wiki made them, on revisions the archive holds by now.
    for (const change of changes) await followRevisionDeletion(options, change, report);
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

/**
 * A revision deletion that hides or shows content becomes the archive's suppression of that
 * revision. One the archive does not hold (hidden before the follower first saw it) is reported:
 * the archive cannot insert it into the history it already has.
 */
async function followRevisionDeletion(options: FollowOptions, change: RecentChange, report: FollowReport) {
  const params = change.logparams;
  if (change.logtype !== "delete" || change.logaction !== "revision" || params?.type !== "revision") return;
  if (!Array.isArray(params.ids) || typeof params.new?.content !== "boolean") return;
  for (const raw of params.ids) {
    const id = Number(raw);
    if (!Number.isSafeInteger(id) || id <= 0) continue;
    if (!(await options.archive.setSuppressed(change.title, id, params.new.content)))
      options.onProblem?.(
        `page ${JSON.stringify(change.title)} revision ${id}: its content was ${params.new.content ? "hidden" : "shown again"} on the wiki, and the archive does not hold it`,
      );
  }
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
    throw new ActionApiError(
      "api",
      `recentchanges: a change without title, timestamp or rcid: ${JSON.stringify(change).slice(0, 200)}`,
      false,
    );
}

/** Brings one page up to date: every revision after the archive's latest (all of them on first sight). */
async function syncPage(options: FollowOptions, title: string, report: FollowReport): Promise<void> {
  const latest = await options.archive.latestId(title);
  try {
    // From the latest stored revision's time on: the revision must exist on the wiki.
    await syncFrom(options, title, latest, latest, report);
  } catch (err) {
    // The stored latest is gone from the wiki (deleted since): read the whole history instead.
    if (latest === null || !(err instanceof ActionApiError) || !/nosuchrevid/.test(err.message)) throw err;
    await syncFrom(options, title, latest, null, report);
  }
}

async function syncFrom(
  options: FollowOptions,
  title: string,
  latest: number | null,
  startId: number | null,
  report: FollowReport,
): Promise<void> {
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
    if (!page) throw new ActionApiError("api", `revisions of ${title}: the answer has no page`, false);
    // Deleted since the change (deletions are not followed yet), or a log entry's title with no page (User:, Special:).
    if (page.missing || page.invalid || page.special) return;
    const fresh = (page.revisions ?? []).filter((r) => latest === null || r.revid > latest);
    const batch = toRevisions(title, fresh, chain, options, report);
    if (batch.length > 0) {
      await options.archive.append(title, batch);
      if (chain === latest) report.pages++;
      report.revisions += batch.length;
      chain = batch.at(-1)!.id;
    }
    if (!answer.continue) return;
    cont = answer.continue;
  }
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
    if (r.texthidden || main?.texthidden || typeof main?.content !== "string") {
      skip("its text is hidden on the wiki (revision deletion); the archive stores no revision without its text");
      continue;
    }
    const model = main.contentmodel ?? "wikitext";
    if (!isContentModel(model)) {
      skip(`content model ${JSON.stringify(model)} is not one the archive stores`);
      continue;
    }
    out.push({
      id: r.revid,
      parentId: out.at(-1)?.id ?? chain,
      timestamp: r.timestamp,
      contributor: r.userhidden ? "" : (r.user ?? ""),
      comment: r.commenthidden ? "" : (r.comment ?? ""),
      model,
      format: main.contentformat,
      text: main.content,
      sha1: r.sha1 && !r.sha1hidden && /^[0-9a-f]{40}$/.test(r.sha1) ? base36Sha1(r.sha1) : null,
    });
  }
  return out;
}

/** The API's hex SHA-1 in MediaWiki's base-36 form (31 digits), as dumps and the archive write it. */
export function base36Sha1(hex: string): string {
  return BigInt(`0x${hex}`).toString(36).padStart(31, "0");
}
