import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { topologyOf } from "../../../src/config/topology.ts";
import { TOKEN, appendOk, linearHistory } from "../support/archive.ts";
import { readFrom, waitForAck } from "../support/tiers.ts";

const COLOS = [...topologyOf(env).regionOfColo.keys()];
const auth = { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" };

/** Reads `path` from every colo, so each colo's lower tier holds it. */
async function warmEverywhere(path: string): Promise<void> {
  for (const colo of COLOS) {
    const res = await readFrom(colo, path);
    expect(res.status, `${colo} ${path}`).toBe(200);
    await res.arrayBuffer();
  }
  // The lower tier is filled after the answer (waitUntil); a second read proves it is there.
  for (const colo of COLOS.slice(0, 3))
    expect((await readFrom(colo, path)).headers.get("x-palimpsest-tier")).toBe("lower");
}

describe("removals reach every tier, each colo's lower tier included", () => {
  it("after a suppression's purge completes, no colo serves the suppressed revision, fresh or stale", async () => {
    const page = "Suppressed_everywhere";
    const revs = linearHistory(3, 1, (i) => `secret-ish text ${i}\n`);
    await appendOk(page, revs);
    await warmEverywhere(`/page/${page}/2`);
    await warmEverywhere(`/page/${page}/3`);
    const res = await readFrom("IAD", `/api/pages/${page}/revisions/2/suppression`, {
      method: "PUT",
      headers: auth,
      body: JSON.stringify({ suppressed: true, reason: "a test takedown" }),
    });
    expect(res.status).toBe(200);
    const { purges } = await res.json<{ purges: string[] }>();
    const status = await waitForAck(purges[0]!);
    expect(
      status.tiers
        .filter((t) => t.tier.startsWith("lower/"))
        .map((t) => t.tier.slice(6))
        .sort(),
    ).toEqual([...COLOS].sort());
    for (const colo of COLOS) {
      const gone = await readFrom(colo, `/page/${page}/2`);
      expect(gone.status, colo).toBe(410);
      expect(await gone.text()).not.toContain("secret-ish text 1");
    }
    // Other revisions stay readable everywhere.
    for (const colo of COLOS.slice(0, 5))
      expect(await (await readFrom(colo, `/page/${page}/3`)).text()).toBe(revs[2]!.text);
  });

  it("after a deletion's purge completes, no colo serves any of the page's content again", async () => {
    const page = "Deleted_everywhere";
    const revs = linearHistory(2, 1, (i) => `doomed text ${i}\n`);
    await appendOk(page, revs);
    await warmEverywhere(`/page/${page}`);
    await warmEverywhere(`/page/${page}/1`);
    const res = await readFrom("SYD", `/api/pages/${page}?reason=a%20test%20deletion`, {
      method: "DELETE",
      headers: auth,
    });
    expect(res.status).toBe(200);
    const { purges } = await res.json<{ purges: string[] }>();
    await waitForAck(purges[0]!);
    for (const colo of COLOS) {
      for (const path of [`/page/${page}`, `/page/${page}/1`]) {
        const gone = await readFrom(colo, path);
        expect(gone.status, `${colo} ${path}`).toBe(410);
        await gone.arrayBuffer();
      }
    }
  });

  it("reports a removal complete only when every colo's lower tier has applied it", async () => {
    const page = "Counted_removal";
    await appendOk(page, linearHistory(2));
    const res = await readFrom("NRT", `/api/pages/${page}/revisions/1/suppression`, {
      method: "PUT",
      headers: auth,
      body: JSON.stringify({ suppressed: true, reason: "a test takedown" }),
    });
    const { purges } = await res.json<{ purges: string[] }>();
    const status = await waitForAck(purges[0]!);
    expect(status.acknowledged).toBe(true);
    expect(status.tiers.every((t) => t.acknowledged)).toBe(true);
    expect(status.tiers.some((t) => t.tier === "lower/PER")).toBe(true);
  });
});
