/**
 * What reaches the origin, counted through the tiers' own counters: a write
 * costs its page one more render of its Memento navigation, not one per
 * revision read since; a purge that reaches a tier after the tier already
 * refilled from the origin leaves that fresher copy; and a read of the
 * latest leaves its revision's answer where a read by id looks for it.
 */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { allTiers, tierName, upperTierFor } from "../../../src/bindings.ts";
import { latestKey, revisionKey } from "../../../src/tiers/cache-key.ts";
import { lowerCounters } from "../../../src/tiers/lower-tier.ts";
import { append, appendOk, linearHistory } from "../support/archive.ts";
import { holdPurges } from "../support/hold-purges.ts";
import { readFrom, tierCache, waitForAck } from "../support/tiers.ts";

/** Origin renders anywhere: every TierCache's counter, plus the edge's own (one isolate runs them all here). */
async function originRenders(): Promise<number> {
  const stats = await Promise.all(allTiers(env).map((t) => tierCache(t).stats()));
  return stats.reduce((n, s) => n + (s.counters.origin_fetch ?? 0), 0) + lowerCounters.originRenders;
}

/** Writes `revs`, each its own write, and waits until every tier has taken its purge. */
async function writeAcknowledged(page: string, revs: ReturnType<typeof linearHistory>): Promise<void> {
  for (const rev of revs) {
    const res = await append(page, [rev]);
    expect(res.status).toBe(201);
    await waitForAck(((await res.json()) as { purges: string[] }).purges[0]!);
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
      purge = ((await res.json()) as { purges: string[] }).purges[0]!;
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
    expect(await read("LHR", `/page/${page}`)).toMatchObject({ tier: "origin", revision: "3" });
    // The copy goes to its member in the background.
    for (let i = 0; i < 100 && (await tierCache(home).stats()).entries === held; i++)
      await new Promise((r) => setTimeout(r, 20));
    expect((await tierCache(home).stats()).entries, tierName(home)).toBe(held + 1);

    const before = await originRenders();
    expect(await read("SYD", `/page/${page}/3`)).toMatchObject({ tier: "upper", revision: "3" });
    // The revision came from the upper tier; its Memento links are the only thing rendered.
    expect((await originRenders()) - before).toBe(1);
  });
});
