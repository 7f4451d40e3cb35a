/**
 * Memento as clients that nobody here wrote parse it: the TimeGate, `/web/` and `?at=` never lead to a suppressed
 * revision, a suppressed revision's 410 still says where to go, the
 * TimeGate's redirect names the memento it chose (pywb reads its
 * candidates from that header), `?at=` answers as a memento, and the
 * link-format TimeMap is strict RFC 6690. Histories from linearHistory:
 * revision n at second n - 1 of 2020.
 */
import { describe, expect, it } from "vitest";
import { TOKEN, appendOk, linearHistory, request } from "../support/archive.ts";
import { waitForAck } from "../support/tiers.ts";
import { parseLinkFormat, paramOf } from "./support/rfc6690.ts";
import { linkWith, parseLinks, second, text } from "./support/memento.ts";

const BASE = "http://archive.test";
const auth = { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" };

async function suppress(page: string, ...ids: number[]): Promise<void> {
  for (const id of ids) {
    const res = await request(`/api/pages/${page}/revisions/${id}/suppression`, {
      method: "PUT",
      headers: auth,
      body: JSON.stringify({ suppressed: true, reason: "a test takedown" }),
    });
    expect(res.status, `suppress ${id}`).toBe(200);
    const { purges } = await res.json<{ purges: string[] }>();
    for (const purge of purges) await waitForAck(purge);
  }
}

const gate = (page: string, n: number) => request(`/page/${page}`, { headers: { "accept-datetime": second(n) } });
const mementoIds = (links: ReturnType<typeof parseLinks>) =>
  links.filter((l) => l.rels.includes("memento")).map((l) => Number(l.uri.split("/").pop()));

describe("item 2: the TimeGate never sends a client to a suppressed memento", () => {
  it("chooses the latest visible revision at or before the time, else the first visible after, by TimeGate, /web/ and ?at= alike", async () => {
    const page = "Mv_gate";
    await appendOk(page, linearHistory(7));
    // Read once before the suppression, so the tiers hold the old choices: the suppression's purge must drop them.
    expect((await gate(page, 2)).headers.get("location")).toBe(`${BASE}/page/${page}/3`);
    await suppress(page, 1, 3, 4, 7);
    const cases: Array<[second: number, id: number]> = [
      [-100, 2], // before the first revision, which is suppressed: the first visible one after
      [0, 2], // at the suppressed first revision's own second: nothing visible yet, so the first visible after
      [1, 2],
      [2, 2], // at suppressed 3: its visible predecessor
      [3, 2], // at suppressed 4: past 3, to 2
      [4, 5],
      [5, 6],
      [6, 6], // at the suppressed latest
      [100, 6],
    ];
    for (const [n, id] of cases) {
      const res = await gate(page, n);
      expect(res.status, `second ${n}`).toBe(302);
      expect(res.headers.get("location"), `TimeGate at second ${n}`).toBe(`${BASE}/page/${page}/${id}`);
      expect(
        mementoIds(parseLinks(res.headers.get("link"))).filter((m) => [1, 3, 4, 7].includes(m)),
        `second ${n}`,
      ).toEqual([]);
      const stamp = new Date(Date.UTC(2020, 0, 1) + n * 1000).toISOString().replace(/[-:T]/g, "").slice(0, 14);
      if (n >= 0)
        expect((await request(`/web/${stamp}/${page}`)).headers.get("location"), `/web/${stamp}`).toBe(
          `${BASE}/page/${page}/${id}`,
        );
      if (n >= 0) {
        const at = await request(`/page/${page}?at=${stamp}`);
        expect(at.status, `?at=${stamp}`).toBe(200);
        expect(await text(at)).toBe(linearHistory(7)[id - 1]!.text);
      }
    }
  });

  it("links only visible mementos as first/prev/next/last, from a memento and from the TimeGate", async () => {
    const page = "Mv_nav";
    await appendOk(page, linearHistory(6));
    await suppress(page, 1, 3, 6);
    const links = parseLinks((await request(`/page/${page}/2`)).headers.get("link"));
    expect(linkWith(links, "first", "memento")?.uri).toBe(`${BASE}/page/${page}/2`);
    expect(linkWith(links, "next", "memento")?.uri).toBe(`${BASE}/page/${page}/4`);
    expect(linkWith(links, "last", "memento")?.uri).toBe(`${BASE}/page/${page}/5`);
    expect(linkWith(links, "prev")).toBeUndefined();
    const gated = parseLinks((await gate(page, 3)).headers.get("link"));
    expect(linkWith(gated, "prev", "memento")?.uri).toBe(`${BASE}/page/${page}/2`);
    expect(linkWith(gated, "next", "last", "memento")?.uri).toBe(`${BASE}/page/${page}/5`);
  });

  it("answers a suppressed revision 410 with its Memento-Datetime and Links to the original, the TimeGate, the TimeMaps and its visible neighbours", async () => {
    const page = "Mv_gone";
    await appendOk(page, linearHistory(5));
    await suppress(page, 3);
    for (const method of ["GET", "HEAD"]) {
      const res = await request(`/page/${page}/3`, { method });
      expect(res.status, method).toBe(410);
      expect(res.headers.get("memento-datetime"), method).toBe(second(2));
      const links = parseLinks(res.headers.get("link"));
      expect(linkWith(links, "original")?.uri).toBe(`${BASE}/page/${page}`);
      expect(linkWith(links, "timegate")?.uri).toBe(`${BASE}/page/${page}`);
      expect(links.filter((l) => l.rels.includes("timemap")).map((l) => l.uri)).toEqual([
        `${BASE}/timemap/link/${page}`,
        `${BASE}/timemap/json/${page}`,
      ]);
      expect(linkWith(links, "prev", "memento")?.uri).toBe(`${BASE}/page/${page}/2`);
      expect(linkWith(links, "next", "memento")?.uri).toBe(`${BASE}/page/${page}/4`);
      expect(mementoIds(links)).not.toContain(3);
    }
  });

  it("answers 404 at the TimeGate when every revision is suppressed, and still links the 410s", async () => {
    const page = "Mv_none";
    await appendOk(page, linearHistory(2));
    await suppress(page, 1, 2);
    const res = await gate(page, 1);
    expect(res.status).toBe(404);
    expect(res.headers.get("location")).toBeNull();
    expect((await request(`/page/${page}?at=20200101000001`)).status).toBe(404);
    const gone = await request(`/page/${page}/2`);
    expect(gone.status).toBe(410);
    expect(linkWith(parseLinks(gone.headers.get("link")), "original")?.uri).toBe(`${BASE}/page/${page}`);
    expect(mementoIds(parseLinks(gone.headers.get("link")))).toEqual([]);
  });
});

/**
 * Writes `count` revisions of `page` (ids from 10, one a second from 2020-01-01),
 * reads `?at=` and checks it is revision `index` as a memento: its text and
 * its Memento-Datetime. The answer, for the caller's further checks.
 */
async function readAt(page: string, count: number, at: string, index: number): Promise<Response> {
  await appendOk(page, linearHistory(count, 10));
  const res = await request(`/page/${page}?at=${at}`);
  expect(res.status).toBe(200);
  expect(await text(res)).toBe(linearHistory(count, 10)[index]!.text);
  expect(res.headers.get("memento-datetime")).toBe(second(index));
  return res;
}

describe("item 8: what pywb and memento-client read", () => {
  it("writes original and timegate as separate link-values, on the page, a memento, a redirect and a TimeMap", async () => {
    const page = "Mv_split";
    await appendOk(page, linearHistory(2));
    const headers = [
      (await request(`/page/${page}`)).headers,
      (await request(`/page/${page}/1`)).headers,
      (await gate(page, 0)).headers,
    ];
    for (const value of [...headers.map((h) => h.get("link")!), await text(await request(`/timemap/link/${page}`))]) {
      const links = parseLinks(value);
      expect(links.filter((l) => l.rels.includes("original")).map((l) => l.rels)).toEqual([["original"]]);
      expect(links.filter((l) => l.rels.includes("timegate")).map((l) => l.rels)).toEqual([["timegate"]]);
    }
  });

  it("names the memento a TimeGate chose in its redirect's Link, with its datetime, and its prev/next/first/last", async () => {
    const page = "Mv_chosen";
    await appendOk(page, linearHistory(5));
    const res = await gate(page, 2);
    expect(res.headers.get("location")).toBe(`${BASE}/page/${page}/3`);
    const links = parseLinks(res.headers.get("link"));
    const chosen = links.find((l) => l.uri === res.headers.get("location"));
    expect(chosen).toMatchObject({ rels: ["memento"], attrs: { datetime: second(2) } });
    for (const [rel, id] of [
      ["first", 1],
      ["prev", 2],
      ["next", 4],
      ["last", 5],
    ] as const) {
      expect(linkWith(links, rel, "memento"), rel).toMatchObject({
        uri: `${BASE}/page/${page}/${id}`,
        attrs: { datetime: second(id - 1) },
      });
    }
    // At an end, the chosen memento plays two parts in one link-value.
    const first = parseLinks((await gate(page, -5)).headers.get("link"));
    expect(linkWith(first, "first", "memento")?.uri).toBe(`${BASE}/page/${page}/1`);
    expect(linkWith(first, "prev")).toBeUndefined();
  });

  it("answers ?at= as a memento: Memento-Datetime, Content-Location of the revision, and Link to original, TimeGate and TimeMaps", async () => {
    const page = "Mv_at";
    const res = await readAt(page, 4, "20200101000002", 2);
    expect(new URL(res.headers.get("content-location")!, `${BASE}/page/${page}?at=20200101000002`).toString()).toBe(
      `${BASE}/page/${page}/12`,
    );
    const links = parseLinks(res.headers.get("link"));
    expect(linkWith(links, "original")?.uri).toBe(`${BASE}/page/${page}`);
    expect(linkWith(links, "timegate")?.uri).toBe(`${BASE}/page/${page}`);
    // The latest without ?at= is the original resource, not a memento.
    expect((await request(`/page/${page}`)).headers.get("memento-datetime")).toBeNull();
  });

  it("answers ?at= before the first revision with the first, as the TimeGate and /web/ do", async () => {
    const page = "Mv_at_early";
    const res = await readAt(page, 3, "19990101000000", 0);
    expect(res.headers.get("content-location")).toBe(`/page/${page}/10`);
    expect(
      (await request(`/page/${page}`, { headers: { "accept-datetime": "Fri, 01 Jan 1999 00:00:00 GMT" } })).headers.get(
        "location",
      ),
    ).toBe(`${BASE}/page/${page}/10`);
    expect((await request(`/web/1999/${page}`)).headers.get("location")).toBe(`${BASE}/page/${page}/10`);
  });
});

describe("item 9: link-format TimeMaps are strict RFC 6690", () => {
  it("parses with a strict RFC 6690 parser: no whitespace after ';', no newline after ',', nothing after the last link-value", async () => {
    const page = "Mv_strict";
    const history = linearHistory(1_003);
    for (let i = 0; i < history.length; i += 500) await appendOk(page, history.slice(i, i + 500));
    for (const path of [
      `/timemap/link/${page}`,
      `/timemap/link/${page}?after=1000`,
      `/timemap/link/${page}?before=1001`,
    ]) {
      const body = await text(await request(path));
      expect(body, path).not.toMatch(/[\r\n]/);
      const values = parseLinkFormat(body);
      const rels = values.map((v) => paramOf(v, "rel"));
      expect(rels.slice(0, 3), path).toEqual(["original", "timegate", "self"]);
      const mementos = values.filter((v) => paramOf(v, "rel")?.split(" ").includes("memento"));
      expect(mementos.length, path).toBe(path.includes("after") ? 3 : 1_000);
      for (const m of mementos) expect(paramOf(m, "datetime"), m.uri).toBe(second(Number(m.uri.split("/").pop()) - 1));
    }
  });

  it("the parser refuses what RFC 7089 §5's pretty-printed example writes: a space after ';' and a newline after ','", () => {
    expect(() => parseLinkFormat('<http://a.example/page/X>; rel="original"')).toThrow(/byte 26/);
    expect(() =>
      parseLinkFormat('<http://a.example/page/X>;rel="original",\n<http://a.example/page/X>;rel="timegate"'),
    ).toThrow(/byte 41/);
    expect(() => parseLinkFormat('<http://a.example/page/X>;rel="original"\n')).toThrow(/byte 40/);
    expect(
      parseLinkFormat('<http://a.example/page/X/1>;rel="first memento";datetime="Wed, 01 Jan 2020 00:00:00 GMT"'),
    ).toEqual([
      {
        uri: "http://a.example/page/X/1",
        params: [
          ["rel", "first memento"],
          ["datetime", "Wed, 01 Jan 2020 00:00:00 GMT"],
        ],
      },
    ]);
  });
});
