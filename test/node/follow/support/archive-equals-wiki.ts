/**
 * A followed wiki's pages against the archive's copies, revision for
 * revision, as the wiki's admin sees them: the same revision ids and
 * parents, and every text byte for byte, with the wiki's SHA-1. A revision
 * the wiki hid after the archive stored it must be suppressed here (410).
 */
import { expect } from "vitest";
import type { MediaWiki } from "../../support/mediawiki.ts";
import { mediaWikiSha1 } from "../../support/mediawiki-export.ts";

interface ArchivedRevision {
  id: number;
  parentId?: number | null;
  sha1?: string;
}

/** Compares pages `titles`; gives the number of revisions compared. */
export async function expectArchiveEqualsWiki(wiki: MediaWiki, archiveUrl: string, titles: string[]): Promise<number> {
  const admin = await wiki.admin();
  let revisions = 0;
  for (const title of titles) {
    const fromWiki = await admin.revisions(title);
    const key = encodeURIComponent(title.replace(/ /g, "_"));
    const res = await fetch(`${archiveUrl}/page/${key}/history?limit=500`);
    expect(res.status, `history of ${title}`).toBe(200);
    const archived = (await res.json<{ revisions: ArchivedRevision[] }>()).revisions.reverse();
    expect(
      archived.map((r) => r.id),
      `${title}: the archive's revision ids`,
    ).toEqual(fromWiki.map((r) => r.revid));
    for (const [i, rev] of fromWiki.entries()) {
      // A suppressed revision lists no parentId when it has none.
      expect(archived[i]!.parentId ?? null, `${title} ${rev.revid}`).toBe(rev.parentid === 0 ? null : rev.parentid);
      const read = await fetch(`${archiveUrl}/page/${key}/${rev.revid}`);
      if (rev.text === null || rev.sha1 === null) {
        // Hidden on the wiki after the archive stored it: suppressed here.
        expect(read.status, `${title} ${rev.revid} is suppressed`).toBe(410);
        await read.arrayBuffer();
        continue;
      }
      expect(archived[i]!.sha1, `${title} ${rev.revid}`).toBe(rev.sha1);
      const body = await read.text();
      expect(body, `${title} ${rev.revid}`).toBe(rev.text);
      expect(mediaWikiSha1(body)).toBe(rev.sha1);
    }
    revisions += fromWiki.length;
  }
  return revisions;
}
