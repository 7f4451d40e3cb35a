/**
 * What reaches the origin, counted through the tiers' own counters: a write
 * costs its page one more render of its Memento navigation, not one per
 * revision read since; a purge that reaches a tier after the tier already
 * refilled from the origin leaves that fresher copy; a read of the
 * latest leaves its revision's answer where a read by id looks for it; and
 * a page's latest and its memento index come from one render, whichever is
 * read first, and go where the purges that must drop them reach.
 */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { allTiers, tierName, upperTierFor } from "../../../src/bindings.ts";
import { latestKey, revisionKey } from "../../../src/tiers/cache-key.ts";
import { lowerCounters } from "../../../src/tiers/lower-tier.ts";
import { TOKEN, append, linearHistory } from "../support/archive.ts";
import { holdPurges } from "../support/hold-purges.ts";
import { readFrom, tierCache, waitForAck } from "../support/tiers.ts";

/** Origin renders anywhere: every TierCache's counter, plus the edge's own (one isolate runs them all here). */
async function originRenders(): Promise<number> {
  const stats = await Promise.all(allTiers(env).map((t) => tierCache(t).stats()));
  return stats.reduce((n, s) => n + (s.counters.origin_fetch ?? 0), 0) + lowerCounters.originRenders;
}

/** Entries the upper tier's members hold in all. */
async function upperEntries(): Promise<number> {
  const upper = allTiers(env).filter((t) => t.level === "upper");
  const stats = await Promise.all(upper.map((t) => tierCache(t).stats()));
  return stats.reduce((n, s) => n + s.entries, 0);
}

/** Gives the copies a fill sends to other members in the background up to 2 s to land, until the upper tier holds `n` entries. */
async function untilUpperHolds(n: number): Promise<void> {
  for (let i = 0; i < 100 && (await upperEntries()) < n; i++) await new Promise((r) => setTimeout(r, 20));
}

/** Writes `revs`, each its own write, and waits until every tier has taken its purge. */
async function writeAcknowledged(page: string, revs: ReturnType<typeof linearHistory>): Promise<void> {
  for (const rev of revs) {
    const res = await append(page, [rev]);
    expect(res.status).toBe(201);
    await waitForAck((await res.json<{ purges: string[] }>()).purges[0]!);
  }
}

/** Reads `path` from `colo`; the tier that answered, the revision and the Link header. */
async function read(
  colo: string,
  path: string,
): Promise<{ tier: string | null; revision: string | null; link: string }> {
  const res = await readFrom(colo, path);
  expect(res.status, `${colo} ${path}`).toBe(200);
  await res.arrayBuffer();
  return {
    tier: res.headers.get("x-palimpsest-tier"),
    revision: res.headers.get("x-revision-id"),
    link: res.headers.get("link") ?? "",
  };
}

describe("a write's cost at the origin", () => {
  it("renders the page's Memento navigation once for every revision read by id after it, not once per revision", async () => {
    const page = "Offload_memento_links";
    const revs = linearHistory(7);
    await writeAcknowledged(page, revs.slice(0, 6));
    // Every revision and its place in time, read once: the tiers hold them all.
    for (const rev of revs.slice(0, 6)) await read("LHR", `/page/${page}/${rev.id}`);
    await writeAcknowledged(page, revs.slice(6));

    // From another region, whose tiers never held the page: revisions come from the upper tier.
    const before = await originRenders();
    for (const rev of revs.slice(0, 6)) {
      const { link } = await read("SYD", `/page/${page}/${rev.id}`);
      // Each names the new revision as the last memento.
      expect(link, `revision ${rev.id}`).toMatch(new RegExp(`/page/${page}/7>;rel="[a-z ]*last memento"`));
    }
    // Six revisions' links, one page whose navigation the write changed.
    expect((await originRenders()) - before).toBe(1);
  });
});

describe("a purge that reaches a tier after the tier refilled", () => {
  it("leaves the copy the tier took from the origin after the write, so nothing renders it again", async () => {
    const page = "Offload_purge_after_fill";
    const revs = linearHistory(2);
    await writeAcknowledged(page, revs.slice(0, 1));
    expect((await read("LHR", `/page/${page}`)).revision).toBe("1");

    const held = holdPurges(page);
    let purge: string;
    try {
      const res = await append(page, [revs[1]!], undefined, "LHR");
      expect(res.status).toBe(201);
      purge = (await res.json<{ purges: string[] }>()).purges[0]!;
      // The writer's colo has the write's floor at once; the tiers below, holding revision 1, do not yet:
      // the read goes around them to the origin, and the tiers it passed keep revision 2.
      expect(await read("LHR", `/page/${page}`)).toMatchObject({ tier: "origin", revision: "2" });
      expect(held.held).toBeGreaterThan(0);
    } finally {
      held.release();
    }
    await waitForAck(purge);

    // The purge (to version 2) reached the upper tier after it kept revision 2: that copy is current, and stays.
    const before = await originRenders();
    expect(await read("SYD", `/page/${page}`)).toMatchObject({ tier: "upper", revision: "2" });
    expect((await originRenders()) - before).toBe(0);
  });
});

describe("a read of the latest", () => {
  it("leaves its revision's answer in the upper tier that a read of the revision by id asks", async () => {
    // A page whose latest and whose revision 3 live on different members of the upper tier's pool.
    const page = ["A", "B", "C", "D", "E", "F", "G", "H"]
      .map((s) => `Offload_latest_copy_${s}`)
      .find((p) => upperTierFor(env, latestKey(p).key).member !== upperTierFor(env, revisionKey(p, 3).key).member)!;
    const home = upperTierFor(env, revisionKey(page, 3).key);
    await writeAcknowledged(page, linearHistory(3));

    const held = (await tierCache(home).stats()).entries;
    const all = await upperEntries();
    expect(await read("LHR", `/page/${page}`)).toMatchObject({ tier: "origin", revision: "3" });
    // The copies go to their members in the background: the revision's, and the index rendered with the latest.
    await untilUpperHolds(all + 3);
    expect((await tierCache(home).stats()).entries, tierName(home)).toBeGreaterThan(held);

    const before = await originRenders();
    expect(await read("SYD", `/page/${page}/3`)).toMatchObject({ tier: "upper", revision: "3" });
    // The revision came from the upper tier, and its Memento links from the index rendered with the latest.
    expect((await originRenders()) - before).toBe(0);
  });
});

describe("a page's latest and its memento index", () => {
  it("come from one origin render when the latest is read first: a write, then reads of both, costs one render, not two", async () => {
    const page = "Offload_latest_then_index";
    await writeAcknowledged(page, linearHistory(3));
    const held = await upperEntries();
    const before = await originRenders();
    expect(await read("LHR", `/page/${page}`)).toMatchObject({ tier: "origin", revision: "3" });
    // The latest, its revision's copy, and the index rendered with it.
    await untilUpperHolds(held + 3);
    // From another region: the revision is the latest's copy, its Memento links the index rendered beside it.
    const { tier, link } = await read("SYD", `/page/${page}/3`);
    expect(tier).toBe("upper");
    expect(link).toMatch(new RegExp(`/page/${page}/2>;rel="prev memento"`));
    expect((await originRenders()) - before).toBe(1);
  });

  it("come from one origin render when the index is read first: a revision read by id, then the latest, costs two renders, not three", async () => {
    const page = "Offload_index_then_latest";
    await writeAcknowledged(page, linearHistory(3));
    const held = await upperEntries();
    const before = await originRenders();
    // Revision 2 and its Memento links: the index comes with the latest.
    expect(await read("LHR", `/page/${page}/2`)).toMatchObject({ tier: "origin", revision: "2" });
    await untilUpperHolds(held + 4);
    expect((await originRenders()) - before).toBe(2);
    expect(await read("SYD", `/page/${page}`)).toMatchObject({ tier: "upper", revision: "3" });
    expect(await read("SJC", `/page/${page}/3`)).toMatchObject({ tier: "upper", revision: "3" });
    expect((await originRenders()) - before).toBe(2);
  });

  it("a revision newer than the index a colo holds takes its links from a newer index a tier holds, not from a render by id", async () => {
    const page = "Offload_newer_index";
    const revs = linearHistory(4);
    await writeAcknowledged(page, revs.slice(0, 3));
    // LHR's lower and regional tiers hold the index of three revisions.
    expect((await read("LHR", `/page/${page}/2`)).link).toMatch(
      new RegExp(`/page/${page}/3>;rel="[a-z ]*last memento"`),
    );

    const held = holdPurges(page);
    try {
      const res = await append(page, [revs[3]!], undefined, "IAD");
      expect(res.status).toBe(201);
      // The writer's colo reads its write: the upper tier renders the new latest and index.
      const all = await upperEntries();
      expect(await read("IAD", `/page/${page}`)).toMatchObject({ tier: "origin", revision: "4" });
      await untilUpperHolds(all + 1);

      // LHR has no purge yet: its index lacks revision 4, which it reads from the upper tier, links and all.
      const before = await originRenders();
      const { tier, link } = await read("LHR", `/page/${page}/4`);
      expect(tier).toBe("upper");
      expect(link).toMatch(new RegExp(`/page/${page}/3>;rel="prev memento"`));
      expect(link).toMatch(new RegExp(`/page/${page}/4>;rel="[a-z ]*last memento"`));
      expect((await originRenders()) - before).toBe(0);
    } finally {
      held.release();
    }
  });

  it("taken beside another answer, are dropped by the purges that drop them, in the colo that kept them too: a write, a suppression, a deletion", async () => {
    const page = "Offload_companions_purged";
    const revs = linearHistory(4);
    await writeAcknowledged(page, revs.slice(0, 3));
    const auth = { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" };
    const ack = async (res: Response) => {
      expect(res.status).toBe(200);
      await waitForAck((await res.json<{ purges: string[] }>()).purges[0]!);
    };
    const lastMemento = (id: number) => new RegExp(`/page/${page}/${id}>;rel="[a-z ]*last memento"`);

    // LHR reads revision 1: the latest (3) comes beside the index, and every tier on the way and LHR keep it.
    const held = await upperEntries();
    expect((await read("LHR", `/page/${page}/1`)).link).toMatch(lastMemento(3));
    await untilUpperHolds(held + 4);
    await writeAcknowledged(page, revs.slice(3));
    for (const colo of ["LHR", "SYD"]) {
      expect((await read(colo, `/page/${page}`)).revision, colo).toBe("4");
      expect((await read(colo, `/page/${page}/2`)).link, colo).toMatch(lastMemento(4));
    }

    // WAW reads revision 2: the latest (4) comes beside the index; its suppression reaches every copy.
    expect((await read("WAW", `/page/${page}/2`)).link).toMatch(lastMemento(4));
    await ack(
      await readFrom("IAD", `/api/pages/${page}/revisions/4/suppression`, {
        method: "PUT",
        headers: auth,
        body: JSON.stringify({ suppressed: true, reason: "a test takedown" }),
      }),
    );
    for (const colo of ["WAW", "NRT"]) {
      const res = await readFrom(colo, `/page/${page}`);
      expect(res.headers.get("x-revision-id"), colo).not.toBe("4");
      expect(await res.text(), colo).not.toBe(revs[3]!.text);
      // The last visible memento is 3 again.
      expect((await read(colo, `/page/${page}/2`)).link, colo).toMatch(lastMemento(3));
    }

    // DXB reads revision 3: the latest and the index, once more; after the deletion nothing of the page is served.
    await read("DXB", `/page/${page}/3`);
    await ack(
      await readFrom("SYD", `/api/pages/${page}?reason=a%20test%20deletion`, { method: "DELETE", headers: auth }),
    );
    for (const colo of ["DXB", "HEL", "SCL"]) {
      for (const path of [`/page/${page}`, `/page/${page}/3`]) {
        const gone = await readFrom(colo, path);
        expect(gone.status, `${colo} ${path}`).toBe(410);
        expect(gone.headers.get("link"), `${colo} ${path}`).toBeNull();
        await gone.arrayBuffer();
      }
    }
  });
});
