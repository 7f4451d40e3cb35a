/**
 * The archive's public view against the wiki's, each as an anonymous reader
 * sees it: what a follower of the wiki must end up showing, no more and no
 * less. The wiki is read with no login (list=allpages over the namespaces
 * given; prop=revisions&rvslots=main with content, user, comment, flags),
 * the archive with no token (GET /api/pages, /page/{key}/history,
 * /page/{key}/{id}). Pages the archive refuses (its title rule) are left out
 * on both sides: the caller names them, and checks they are recorded.
 *
 * Compared, page by page: the same pages; the same revisions (ids, parent
 * ids, timestamps); the same texts (a visible one byte for byte, a hidden
 * one `texthidden` there and 410 here, listed `suppressed`); the same hidden
 * fields (`userhidden` ⇔ `contributorHidden` with contributor "",
 * `commenthidden` ⇔ `commentHidden` with comment "", visible ones equal).
 * A page the caller made that the wiki no longer has (deleted): missing
 * there, 410 here for the page, its history and every revision id it had
 * when last seen, and not listed.
 *
 * @example
 * const view = publicViewOf(wiki, [0, 1]);
 * const seen = await view.expectEqual(archive.url, { refused: new Set(["Foo\u200Bbar"]), made: ["Foo", "Bar"] });
 */
import { expect } from "vitest";
import type { HistoryEntry } from "../../../../src/page/types.ts";
import type { PageListBody } from "../../../../src/wire.ts";
import type { MediaWiki, WikiRevision } from "../../support/mediawiki.ts";

/** What one comparison saw. */
export interface PublicView {
  /** Wiki titles compared (refused ones left out). */
  titles: string[];
  revisions: number;
  textHidden: number;
  commentHidden: number;
  userHidden: number;
  /** Titles made by the test that the wiki no longer has, each checked 410 here. */
  deleted: string[];
  /** Every visible archived text, by `title@id`. */
  texts: Map<string, string>;
}

export const keyOf = (title: string) => title.replace(/ /g, "_");
const path = (title: string) => encodeURIComponent(keyOf(title));

export function publicViewOf(wiki: MediaWiki, namespaces: readonly number[]) {
  /** Each page's revision ids when last compared: a deleted page's must all answer 410. */
  const lastSeen = new Map<string, number[]>();

  async function wikiTitles(): Promise<string[]> {
    const anon = wiki.anonymous();
    const titles: string[] = [];
    for (const ns of namespaces) {
      let cont: Record<string, string> = {};
      for (;;) {
        const res = await anon.get<{
          continue?: Record<string, string>;
          query: { allpages: Array<{ title: string }> };
        }>({ action: "query", list: "allpages", apnamespace: ns, aplimit: "max", ...cont });
        titles.push(...res.query.allpages.map((p) => p.title));
        if (!res.continue) break;
        cont = res.continue;
      }
    }
    return titles;
  }

  async function archiveKeys(archiveUrl: string): Promise<string[]> {
    const keys: string[] = [];
    for (let after: string | null = ""; after !== null;) {
      const res = await fetch(`${archiveUrl}/api/pages?${new URLSearchParams({ after })}`);
      expect(res.status, "GET /api/pages without a token").toBe(200);
      // Annotated, not inferred: `after` comes from the body, and the request from `after`.
      const body: PageListBody = await res.json();
      keys.push(...body.pages.map((p) => p.key));
      after = body.next;
    }
    return keys;
  }

  async function statusOf(url: string): Promise<number> {
    const res = await fetch(url);
    await res.arrayBuffer();
    return res.status;
  }

  async function expectPageEqual(archiveUrl: string, title: string, fromWiki: WikiRevision[], view: PublicView) {
    const res = await fetch(`${archiveUrl}/page/${path(title)}/history?limit=500`);
    expect(res.status, `history of ${JSON.stringify(title)}`).toBe(200);
    const archived = (await res.json<{ revisions: HistoryEntry[] }>()).revisions.reverse();
    const facts = (r: { id: number; parentId: number | null; timestamp: string }) => [r.id, r.parentId, r.timestamp];
    expect(archived.map(facts), `${JSON.stringify(title)}: revision ids, parents, timestamps`).toEqual(
      fromWiki.map((r) => [r.revid, r.parentid === 0 ? null : r.parentid, r.timestamp]),
    );
    for (const [i, rev] of fromWiki.entries()) {
      const ours = archived[i]!;
      const at = `${JSON.stringify(title)} revision ${rev.revid}`;
      expect(ours.suppressed, `${at}: suppressed ⇔ the wiki's texthidden`).toBe(rev.texthidden);
      expect(Boolean(ours.commentHidden), `${at}: commentHidden ⇔ commenthidden`).toBe(rev.commenthidden);
      expect(Boolean(ours.contributorHidden), `${at}: contributorHidden ⇔ userhidden`).toBe(rev.userhidden);
      expect(ours.comment, `${at}: the comment`).toBe(rev.commenthidden ? "" : rev.comment);
      expect(ours.contributor, `${at}: the contributor`).toBe(rev.userhidden ? "" : rev.user);
      const read = await fetch(`${archiveUrl}/page/${path(title)}/${rev.revid}`);
      const body = await read.text();
      if (rev.texthidden) {
        expect(read.status, `${at}: hidden on the wiki, 410 here`).toBe(410);
        expect(rev.text, `${at}: the wiki shows no text`).toBeNull();
        view.textHidden++;
      } else {
        expect(read.status, `${at}: visible on the wiki, 200 here`).toBe(200);
        expect(body, `${at}: the text`).toBe(rev.text);
        if (!ours.suppressed) expect(ours.sha1, `${at}: the SHA-1`).toBe(rev.sha1);
        view.texts.set(`${title}@${rev.revid}`, body);
      }
      if (rev.commenthidden) view.commentHidden++;
      if (rev.userhidden) view.userHidden++;
    }
    view.revisions += fromWiki.length;
  }

  return {
    /**
     * Expects the archive at `archiveUrl`, read anonymously, to show what the wiki shows anonymously.
     * `refused`: wiki titles the archive refuses, left out. `made`: titles the test wrote (the canonical
     * ones), so a page deleted on the wiki is checked deleted here.
     */
    async expectEqual(
      archiveUrl: string,
      options: { refused: ReadonlySet<string>; made: Iterable<string> },
    ): Promise<PublicView> {
      const view: PublicView = {
        titles: [],
        revisions: 0,
        textHidden: 0,
        commentHidden: 0,
        userHidden: 0,
        deleted: [],
        texts: new Map(),
      };
      const onWiki = await wikiTitles();
      view.titles = onWiki.filter((t) => !options.refused.has(t));
      expect(
        [...(await archiveKeys(archiveUrl))].sort(),
        "the archive lists the wiki's pages, but the refused",
      ).toEqual(view.titles.map(keyOf).sort());
      const anon = wiki.anonymous();
      for (const title of view.titles) {
        const fromWiki = await anon.revisions(title);
        await expectPageEqual(archiveUrl, title, fromWiki, view);
        lastSeen.set(
          title,
          fromWiki.map((r) => r.revid),
        );
      }
      for (const title of new Set(options.made)) {
        if (onWiki.includes(title) || options.refused.has(title)) continue;
        const info = await anon.get<{ query: { pages: Array<{ missing?: boolean }> } }>({
          action: "query",
          prop: "info",
          titles: title,
        });
        expect(info.query.pages[0]!.missing, `${JSON.stringify(title)}: not listed by the wiki, so missing`).toBe(true);
        expect(await statusOf(`${archiveUrl}/page/${path(title)}`), `${title}: deleted, 410`).toBe(410);
        expect(await statusOf(`${archiveUrl}/page/${path(title)}/history`), `${title} history: 410`).toBe(410);
        for (const id of lastSeen.get(title) ?? [])
          expect(await statusOf(`${archiveUrl}/page/${path(title)}/${id}`), `${title} revision ${id}: 410`).toBe(410);
        view.deleted.push(title);
      }
      return view;
    },
  };
}
