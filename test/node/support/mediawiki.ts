/**
 * A real MediaWiki for the Node tests: the throwaway wiki of
 * src/tools/local/mediawiki.ts (Debian 12's MediaWiki 1.39 installed afresh
 * into a temporary folder on SQLite, served by PHP's built-in server on a free
 * port, removed at the end), with sessions of its own Action API for editing
 * it, and one wiki per test file. Tests check the archive against what this
 * wiki says, never against our idea of it.
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
import { forThisFile } from "./for-this-file.ts";
import {
  INSTALL_TIMEOUT_MS,
  mediaWikiMissing,
  SERVER_READY_TIMEOUT_MS,
  startLocalMediaWiki,
  type LocalMediaWiki,
} from "../../../src/tools/local/mediawiki.ts";

export { MEDIAWIKI_HOME, peakRssOf } from "../../../src/tools/local/mediawiki.ts";

/** Null when PHP and Debian's MediaWiki with the extensions it needs are installed; else what is missing. */
export const NO_MEDIAWIKI = mediaWikiMissing();

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

export interface MediaWiki extends LocalMediaWiki {
  /** A session logged in as the admin install.php created (one per wiki, made on first use). */
  admin(): Promise<WikiSession>;
  /** A session with no login: its edits are by IP. */
  anonymous(): WikiSession;
}

export async function startMediaWiki(): Promise<MediaWiki> {
  const wiki = await startLocalMediaWiki();
  let admin: Promise<WikiSession> | undefined;
  return Object.assign(wiki, {
    admin() {
      admin ??= (async () => {
        const session = new WikiSession(wiki.apiUrl);
        await session.login(wiki.adminName, wiki.adminPassword);
        return session;
      })();
      return admin;
    },
    anonymous: () => new WikiSession(wiki.apiUrl),
  });
}

/**
 * One wiki for the calling test file, installed before its first test and
 * removed after its last (an install takes seconds). Use it only inside tests.
 */
export function mediaWikiForThisFile(): MediaWiki {
  return forThisFile("the wiki", startMediaWiki, INSTALL_TIMEOUT_MS + SERVER_READY_TIMEOUT_MS);
}
