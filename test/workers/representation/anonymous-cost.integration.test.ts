/**
 * What an anonymous reader can make the archive compute. dcb is made only
 * against a dictionary a browser would hold (the target's nearest
 * predecessors, or the latest): any other hash the history publishes gets
 * br, so a page cannot be made to grow N² coded variants. And a body too
 * big to have a stored br is never compressed per request, nor coded just
 * to cut a Range from it.
 */
import { describe, expect, it } from "vitest";
import { LIMITS } from "../../../src/limits.ts";
import { mulberry32 } from "../../../src/lib/mulberry32.ts";
import { dcbRefused, rememberDcbRefusal } from "../../../src/representation/dcb-refusals.ts";
import { appendOk, linearHistory, request } from "../support/archive.ts";
import { availableDictionary, variedProse, WORDS } from "../support/dcb.ts";

const prose = variedProse({ seed: 7, lines: 100, editStride: 3 });

async function dictionaryOf(path: string): Promise<string> {
  return availableDictionary(new Uint8Array(await (await request(path)).arrayBuffer()));
}

const DCB = "br, gzip, dcb";

describe("dcb only against a dictionary a browser would hold", () => {
  it(`answers dcb against the ${LIMITS.wire.dcbPredecessors} nearest predecessors and the latest, br against any older revision`, async () => {
    await appendOk("Dcb_window", linearHistory(24, 1, prose));
    const target = "/page/Dcb_window/20";
    const coding = async (dictionaryId: number) =>
      (
        await request(target, {
          headers: {
            "accept-encoding": DCB,
            "available-dictionary": await dictionaryOf(`/page/Dcb_window/${dictionaryId}`),
          },
        })
      ).headers.get("content-encoding");
    expect(await coding(19)).toBe("dcb");
    expect(await coding(20 - LIMITS.wire.dcbPredecessors)).toBe("dcb");
    expect(await coding(24)).toBe("dcb"); // the latest
    expect(await coding(20 - LIMITS.wire.dcbPredecessors - 1)).toBe("br");
    expect(await coding(1)).toBe("br");
    expect(await coding(21)).toBe("br"); // a later revision that is not the latest
    // Asked again, the refused pair still gets br (and is remembered, so it goes no further than this isolate).
    expect(await coding(1)).toBe("br");
  }, 60_000);

  it("remembers a refused pair for a while, and forgets the oldest past its bound", () => {
    const now = 1_000_000;
    rememberDcbRefusal("P", 1, "ab", now);
    expect(dcbRefused("P", 1, "ab", now + 1000)).toBe(true);
    expect(dcbRefused("P", 2, "ab", now + 1000)).toBe(false);
    expect(dcbRefused("P", 1, "ab", now + LIMITS.wire.dcbRefusalMemorySeconds * 1000 + 1)).toBe(false);
    for (let i = 0; i <= LIMITS.wire.dcbRefusalsRemembered; i++) rememberDcbRefusal("Q", i, "cd", now);
    expect(dcbRefused("Q", 0, "cd", now)).toBe(false);
    expect(dcbRefused("Q", LIMITS.wire.dcbRefusalsRemembered, "cd", now)).toBe(true);
  });
});

describe("no per-request compression of big bodies", () => {
  // Over tiers.maxEntryBytes: no stored br, and too big to code per request.
  const BIG = LIMITS.tiers.maxEntryBytes + 64 * 1024;
  const bigText = (() => {
    const next = mulberry32(11);
    let s = "";
    while (s.length < BIG) s += `${WORDS[Math.floor(next() * WORDS.length)]} ${Math.floor(next() * 1e9)}\n`;
    return s.slice(0, BIG);
  })();

  it("a revision over tiers.maxEntryBytes goes identity to a client offering br and gzip, and a Range of it too", async () => {
    await appendOk(
      "Big_identity",
      linearHistory(1, 1, () => bigText),
    );
    const full = await request("/page/Big_identity/1", { headers: { "accept-encoding": "br, gzip" } });
    expect(full.status).toBe(200);
    expect(full.headers.get("content-encoding")).toBeNull();
    expect(Number(full.headers.get("content-length"))).toBe(BIG);
    await full.arrayBuffer();
    const range = await request("/page/Big_identity/1", {
      headers: { "accept-encoding": "br, gzip", range: "bytes=0-10" },
    });
    expect(range.status).toBe(206);
    expect(range.headers.get("content-encoding")).toBeNull();
    expect(await range.text()).toBe(bigText.slice(0, 11));
  }, 120_000);

  it("a Range from a client that accepts only gzip is cut from identity, not from a body gzipped for it", async () => {
    const text = bigText.slice(0, 200_000);
    await appendOk(
      "Range_identity",
      linearHistory(1, 1, () => text),
    );
    const range = await request("/page/Range_identity/1", {
      headers: { "accept-encoding": "gzip", range: "bytes=100-199" },
    });
    expect(range.status).toBe(206);
    expect(range.headers.get("content-encoding")).toBeNull();
    expect(await range.text()).toBe(text.slice(100, 200));
    // Without a Range the same client gets gzip, as before.
    expect(
      (await request("/page/Range_identity/1", { headers: { "accept-encoding": "gzip" } })).headers.get(
        "content-encoding",
      ),
    ).toBe("gzip");
  }, 60_000);
});
