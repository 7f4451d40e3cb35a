/**
 * A wiki for the follower's workerd tests: answers recent changes and page
 * histories from what the test set, as MediaWiki 1.39's Action API does
 * (formatversion 2, `rvstartid` inclusive, `nosuchrevid`), `revisionsPerAnswer`
 * revisions per answer with `continue` for more. Passed to the cron pass as
 * its fetch (src/follow/cron-pass.ts CronPassOptions), or served over HTTP to
 * the follow CLI (test/node/follow/follow-refused-page.e2e.test.ts). Plain
 * TypeScript, for workerd and Node alike.
 */
export interface WikiRevision {
  revid: number;
  parentid: number;
  timestamp: string;
  user: string;
  comment: string;
  slots: { main: { contentmodel: string; contentformat: string; content: string } };
}

export function scriptedWiki(revisionsPerAnswer = 50) {
  const pages = new Map<string, { pageid: number; revisions: WikiRevision[] }>();
  const changes: Array<{ rcid: number; pageid: number; type: string; title: string; timestamp: string }> = [];
  let clock = Date.parse("2026-03-01T00:00:00Z");
  let requests = 0;
  const edit = (title: string, pageid: number, revid: number, user = "Alice") => {
    const timestamp = new Date((clock += 1000)).toISOString().replace(".000Z", "Z");
    const page = pages.get(title) ?? { pageid, revisions: [] };
    pages.set(title, page);
    page.revisions.push({
      revid,
      parentid: page.revisions.at(-1)?.revid ?? 0,
      timestamp,
      user,
      comment: `edit ${revid}`,
      slots: { main: { contentmodel: "wikitext", contentformat: "text/x-wiki", content: `text of ${revid}` } },
    });
    changes.push({ rcid: changes.length + 1, pageid, type: "edit", title, timestamp });
  };
  const fetch = async (url: URL): Promise<Response> => {
    requests++;
    const q = url.searchParams;
    if (q.get("list") === "recentchanges") {
      const start = q.get("rcstart");
      return Response.json({ query: { recentchanges: changes.filter((c) => !start || c.timestamp >= start) } });
    }
    const title = q.get("titles")!;
    const page = pages.get(title);
    if (!page) return Response.json({ query: { pages: [{ title, missing: true }] } });
    const from = Number(q.get("rvcontinue") ?? q.get("rvstartid") ?? 0);
    if (from && !page.revisions.some((r) => r.revid === from))
      return Response.json({ error: { code: "nosuchrevid", info: "There is no revision" } });
    const rest = page.revisions.filter((r) => r.revid >= from);
    const answer = rest.slice(0, revisionsPerAnswer);
    const next = rest[revisionsPerAnswer];
    return Response.json({
      ...(next ? { continue: { rvcontinue: String(next.revid), continue: "||" } } : {}),
      query: { pages: [{ title, pageid: page.pageid, revisions: answer }] },
    });
  };
  return { edit, fetch, pages, requests: () => requests };
}
