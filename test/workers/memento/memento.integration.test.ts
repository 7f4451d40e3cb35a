/**
 * Memento (RFC 7089) conformance, section by section, against the edge app
 * and its tiers. Histories come from linearHistory: revision ids from 1 (or
 * `firstId`), one second apart from 2020-01-01T00:00:00Z.
 */
import { describe, expect, it } from "vitest";
import { appendOk, linearHistory, request } from "../support/archive.ts";
import { readFrom, waitForAck } from "../support/tiers.ts";
import { linkWith, parseLinks, second, text, type Link } from "./support/memento.ts";

const BASE = "http://archive.test";

async function mementoLinks(path: string, init: RequestInit = {}): Promise<{ res: Response; links: Link[] }> {
  const res = await request(path, init);
  return { res, links: parseLinks(res.headers.get("link")) };
}

describe("RFC 7089 §2.1.1 Accept-Datetime and Memento-Datetime", () => {
  it("gives every revision its timestamp as Memento-Datetime, in IMF-fixdate", async () => {
    await appendOk("Md_dates", linearHistory(3));
    const res = await request("/page/Md_dates/2");
    expect(res.status).toBe(200);
    expect(res.headers.get("memento-datetime")).toBe("Wed, 01 Jan 2020 00:00:01 GMT");
    expect(await text(res)).toBe(linearHistory(3)[1]!.text);
  });

  it("refuses a malformed Accept-Datetime with a 400 problem that names the header, and redirects nowhere", async () => {
    await appendOk("Md_bad_date", linearHistory(2));
    for (const bad of [
      "2020-01-01T00:00:00Z",
      "Wed, 32 Jan 2020 00:00:00 GMT",
      "Wed, 01 Jan 2020 24:00:00 GMT",
      "Wed, 01 Jan 2020 00:00:00 PST",
      "yesterday",
    ]) {
      const res = await request("/page/Md_bad_date", { headers: { "accept-datetime": bad } });
      expect(res.status, bad).toBe(400);
      expect(res.headers.get("content-type")).toContain("application/problem+json");
      expect(res.headers.get("location")).toBeNull();
      expect((await res.json<{ code: string }>()).code).toBe("invalid_accept_datetime");
    }
  });
});

describe("RFC 7089 §2.2 Link relations of a Memento", () => {
  it("links original, timegate, timemaps and first/prev/next/last, each memento with its datetime", async () => {
    await appendOk("Md_links", linearHistory(5));
    const { res, links } = await mementoLinks("/page/Md_links/3");
    expect(res.status).toBe(200);
    expect(linkWith(links, "original")?.uri).toBe(`${BASE}/page/Md_links`);
    expect(linkWith(links, "timegate")?.uri).toBe(`${BASE}/page/Md_links`);
    const timemaps = links.filter((l) => l.rels.includes("timemap"));
    expect(timemaps.map((l) => [l.uri, l.attrs.type])).toEqual([
      [`${BASE}/timemap/link/Md_links`, "application/link-format"],
      [`${BASE}/timemap/json/Md_links`, "application/json"],
    ]);
    const expectMemento = (rels: string[], id: number) => {
      const link = linkWith(links, ...rels, "memento");
      expect(link?.uri, rels.join(" ")).toBe(`${BASE}/page/Md_links/${id}`);
      expect(link?.attrs.datetime).toBe(second(id - 1));
    };
    expectMemento(["first"], 1);
    expectMemento(["prev"], 2);
    expectMemento(["next"], 4);
    expectMemento(["last"], 5);
  });

  it("combines rel values when one memento plays two parts, and omits prev/next past the ends", async () => {
    await appendOk("Md_combined", linearHistory(3));
    const second2 = parseLinks((await request("/page/Md_combined/2")).headers.get("link"));
    expect(linkWith(second2, "first", "prev", "memento")?.uri).toBe(`${BASE}/page/Md_combined/1`);
    expect(linkWith(second2, "next", "last", "memento")?.uri).toBe(`${BASE}/page/Md_combined/3`);
    const first = parseLinks((await request("/page/Md_combined/1")).headers.get("link"));
    expect(linkWith(first, "prev")).toBeUndefined();
    expect(linkWith(first, "first", "memento")?.uri).toBe(`${BASE}/page/Md_combined/1`);
    expect(linkWith(first, "next", "memento")?.uri).toBe(`${BASE}/page/Md_combined/2`);
    const last = parseLinks((await request("/page/Md_combined/3")).headers.get("link"));
    expect(linkWith(last, "next")).toBeUndefined();
    expect(linkWith(last, "last", "memento")?.uri).toBe(`${BASE}/page/Md_combined/3`);
  });

  it("keeps the Memento headers on a 304, a HEAD and a br response", async () => {
    await appendOk("Md_304", linearHistory(2));
    const full = await request("/page/Md_304/1");
    const revalidated = await request("/page/Md_304/1", { headers: { "if-none-match": full.headers.get("etag")! } });
    expect(revalidated.status).toBe(304);
    expect(revalidated.headers.get("memento-datetime")).toBe(second(0));
    expect(linkWith(parseLinks(revalidated.headers.get("link")), "next", "last", "memento")?.uri).toBe(
      `${BASE}/page/Md_304/2`,
    );
    const head = await request("/page/Md_304/2", { method: "HEAD" });
    expect(head.headers.get("memento-datetime")).toBe(second(1));
    const br = await request("/page/Md_304/1", { headers: { "accept-encoding": "br" } });
    expect(br.status).toBe(200);
    expect(br.headers.get("memento-datetime")).toBe(second(0));
    expect(linkWith(parseLinks(br.headers.get("link")), "next", "last", "memento")?.uri).toBe(`${BASE}/page/Md_304/2`);
  });

  it("adds no Memento headers to a revision that does not exist", async () => {
    await appendOk("Md_missing", linearHistory(1));
    const res = await request("/page/Md_missing/99");
    expect(res.status).toBe(404);
    expect(res.headers.get("memento-datetime")).toBeNull();
  });
});

describe("RFC 7089 §4.1.1 Pattern 1.1: the page is its own TimeGate (302-style)", () => {
  it("redirects Accept-Datetime to the revision current at that time, varying on it and linking the time line", async () => {
    await appendOk("Md_gate", linearHistory(5));
    const res = await request("/page/Md_gate", { headers: { "accept-datetime": "Wed, 01 Jan 2020 00:00:03 GMT" } });
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe(`${BASE}/page/Md_gate/4`);
    expect(res.headers.get("vary")?.toLowerCase()).toContain("accept-datetime");
    const links = parseLinks(res.headers.get("link"));
    expect(linkWith(links, "original")?.uri).toBe(`${BASE}/page/Md_gate`);
    expect(linkWith(links, "timegate")?.uri).toBe(`${BASE}/page/Md_gate`);
    expect(links.some((l) => l.rels.includes("timemap") && l.attrs.type === "application/link-format")).toBe(true);
    expect(linkWith(links, "first", "memento")).toMatchObject({
      uri: `${BASE}/page/Md_gate/1`,
      attrs: { datetime: second(0) },
    });
    expect(linkWith(links, "last", "memento")).toMatchObject({
      uri: `${BASE}/page/Md_gate/5`,
      attrs: { datetime: second(4) },
    });
    // Between two revisions: the earlier one, which was current.
    const between = await request("/page/Md_gate", { headers: { "accept-datetime": "Wed, 01 Jan 2021 00:00:00 GMT" } });
    expect(between.headers.get("location")).toBe(`${BASE}/page/Md_gate/5`);
  });

  it("redirects a time before the first revision to the first", async () => {
    await appendOk("Md_gate_early", linearHistory(3, 10));
    const res = await request("/page/Md_gate_early", {
      headers: { "accept-datetime": "Sat, 01 Jan 2000 00:00:00 GMT" },
    });
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe(`${BASE}/page/Md_gate_early/10`);
  });

  it("without Accept-Datetime serves the current state, varying on Accept-Datetime and naming its TimeGate and TimeMaps", async () => {
    await appendOk("Md_gate_plain", linearHistory(2));
    const res = await request("/page/Md_gate_plain");
    expect(res.status).toBe(200);
    expect(await text(res)).toBe(linearHistory(2)[1]!.text);
    expect(res.headers.get("vary")?.toLowerCase()).toContain("accept-datetime");
    const links = parseLinks(res.headers.get("link"));
    expect(linkWith(links, "original")?.uri).toBe(`${BASE}/page/Md_gate_plain`);
    expect(linkWith(links, "timegate")?.uri).toBe(`${BASE}/page/Md_gate_plain`);
    expect(links.filter((l) => l.rels.includes("timemap")).map((l) => l.uri)).toEqual([
      `${BASE}/timemap/link/Md_gate_plain`,
      `${BASE}/timemap/json/Md_gate_plain`,
    ]);
    expect(res.headers.get("memento-datetime")).toBeNull();
  });

  it("answers a page nobody wrote with 404, with or without Accept-Datetime", async () => {
    const res = await request("/page/Md_nobody", { headers: { "accept-datetime": "Wed, 01 Jan 2020 00:00:00 GMT" } });
    expect(res.status).toBe(404);
    expect(res.headers.get("location")).toBeNull();
  });
});

describe("RFC 7089 §5 TimeMaps", () => {
  it("serves application/link-format: original, timegate, self with from/until, and every memento with its datetime", async () => {
    await appendOk("Md_map", linearHistory(4));
    const res = await request("/timemap/link/Md_map");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^application\/link-format/);
    expect(res.headers.get("cache-control")).toMatch(/max-age=60/);
    const links = parseLinks(await text(res));
    expect(linkWith(links, "original")?.uri).toBe(`${BASE}/page/Md_map`);
    expect(linkWith(links, "timegate")?.uri).toBe(`${BASE}/page/Md_map`);
    expect(linkWith(links, "self")).toMatchObject({
      uri: `${BASE}/timemap/link/Md_map`,
      attrs: { type: "application/link-format", from: second(0), until: second(3) },
    });
    const mementos = links.filter((l) => l.rels.includes("memento"));
    expect(mementos.map((l) => [l.uri, l.attrs.datetime])).toEqual(
      [1, 2, 3, 4].map((id) => [`${BASE}/page/Md_map/${id}`, second(id - 1)]),
    );
    expect(linkWith(links, "first", "memento")?.uri).toBe(`${BASE}/page/Md_map/1`);
    expect(linkWith(links, "last", "memento")?.uri).toBe(`${BASE}/page/Md_map/4`);
    expect(linkWith(links, "next")).toBeUndefined();
  });

  it("serves the JSON TimeMap with original, timegate, timemap and first/last/list", async () => {
    await appendOk("Md_json", linearHistory(3));
    const res = await request("/timemap/json/Md_json");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    expect(await res.json()).toEqual({
      original_uri: `${BASE}/page/Md_json`,
      timegate_uri: `${BASE}/page/Md_json`,
      timemap_uri: { link_format: `${BASE}/timemap/link/Md_json`, json_format: `${BASE}/timemap/json/Md_json` },
      mementos: {
        first: { datetime: "2020-01-01T00:00:00Z", uri: `${BASE}/page/Md_json/1` },
        last: { datetime: "2020-01-01T00:00:02Z", uri: `${BASE}/page/Md_json/3` },
        list: [0, 1, 2].map((i) => ({ datetime: `2020-01-01T00:00:0${i}Z`, uri: `${BASE}/page/Md_json/${i + 1}` })),
      },
      pages: { prev: null, next: null },
    });
  });

  it("pages a history longer than a TimeMap page, each page linking the next and the one before", async () => {
    const history = linearHistory(1_203);
    for (let i = 0; i < history.length; i += 500) await appendOk("Md_paged", history.slice(i, i + 500));
    const firstPage = parseLinks(await text(await request("/timemap/link/Md_paged")));
    const firstMementos = firstPage.filter((l) => l.rels.includes("memento"));
    expect(firstMementos).toHaveLength(1_000);
    expect(firstMementos[999]!.uri).toBe(`${BASE}/page/Md_paged/1000`);
    expect(linkWith(firstPage, "prev")).toBeUndefined();
    const next = linkWith(firstPage, "next")!;
    expect(next.uri).toBe(`${BASE}/timemap/link/Md_paged?after=1000`);
    const secondPage = parseLinks(await text(await request(next.uri.slice(BASE.length))));
    const secondMementos = secondPage.filter((l) => l.rels.includes("memento"));
    expect(secondMementos.map((l) => l.uri)).toEqual(
      Array.from({ length: 203 }, (_, i) => `${BASE}/page/Md_paged/${1001 + i}`),
    );
    expect(linkWith(secondPage, "self")).toMatchObject({ attrs: { from: second(1000), until: second(1202) } });
    expect(linkWith(secondPage, "next")).toBeUndefined();
    expect(linkWith(secondPage, "prev")?.uri).toBe(`${BASE}/timemap/link/Md_paged?before=1001`);
    const back = parseLinks(await text(await request("/timemap/link/Md_paged?before=1001"))).filter((l) =>
      l.rels.includes("memento"),
    );
    expect(back.map((l) => l.uri)).toEqual(firstMementos.map((l) => l.uri));
    const json = await (
      await request("/timemap/json/Md_paged?after=1000")
    ).json<{
      mementos: { list: unknown[]; last: { uri: string } };
      pages: { prev: { uri: string } | null; next: unknown };
    }>();
    expect(json.mementos.list).toHaveLength(203);
    expect(json.mementos.last.uri).toBe(`${BASE}/page/Md_paged/1203`);
    expect(json.pages).toEqual({ prev: { uri: `${BASE}/timemap/json/Md_paged?before=1001` }, next: null });
  });

  it("refuses a bad cursor with 400 and an unknown format with 404, and answers 404 for a page nobody wrote", async () => {
    await appendOk("Md_map_bad", linearHistory(1));
    expect((await request("/timemap/link/Md_map_bad?after=abc")).status).toBe(400);
    expect((await request("/timemap/link/Md_map_bad?after=1&before=1")).status).toBe(400);
    expect((await request("/timemap/xml/Md_map_bad")).status).toBe(404);
    expect((await request("/timemap/link/Md_map_nobody")).status).toBe(404);
  });

  it("redirects a non-canonical title to the canonical TimeMap URL", async () => {
    await appendOk("Md_map_case", linearHistory(1));
    const res = await request("/timemap/json/md_map_case");
    expect(res.status).toBe(301);
    expect(res.headers.get("location")).toBe(`${BASE}/timemap/json/Md_map_case`);
  });
});

describe("Wayback-style /web/{timestamp}/{title}", () => {
  it("redirects to the revision current at the padded timestamp", async () => {
    await appendOk("Md_web", linearHistory(5));
    const to = async (ts: string) => {
      const res = await request(`/web/${ts}/Md_web`);
      expect(res.status, ts).toBe(302);
      return res.headers.get("location");
    };
    expect(await to("20200101000003")).toBe(`${BASE}/page/Md_web/4`);
    // 2021 pads to 2021-01-01T00:00:00Z: after every revision.
    expect(await to("2021")).toBe(`${BASE}/page/Md_web/5`);
    // 2020 pads to the first instant of the year, the first revision's own second.
    expect(await to("2020")).toBe(`${BASE}/page/Md_web/1`);
    expect(await to("20200101000002")).toBe(`${BASE}/page/Md_web/3`);
    // Before the first revision: the first.
    expect(await to("1999")).toBe(`${BASE}/page/Md_web/1`);
  });

  it("refuses digits that name no instant, and more than 14 digits, with 400", async () => {
    await appendOk("Md_web_bad", linearHistory(1));
    for (const ts of ["20201301", "20200230", "2020010124", "202001010060", "123456789012345"]) {
      const res = await request(`/web/${ts}/Md_web_bad`);
      expect(res.status, ts).toBe(400);
      expect((await res.json<{ code: string }>()).code).toBe("invalid_timestamp");
    }
  });
});

describe("after a write, through the tiers", () => {
  it("gives the former latest its next memento and every memento the new last, in the writer's colo and, once purged, in every other", async () => {
    await appendOk("Md_write", linearHistory(3));
    const colos = ["LHR", "SYD"];
    // Fill every tier with the old state.
    for (const colo of [undefined, ...colos]) {
      for (const id of [1, 2, 3]) {
        const res = colo ? await readFrom(colo, `/page/Md_write/${id}`) : await request(`/page/Md_write/${id}`);
        expect(linkWith(parseLinks(res.headers.get("link")), "last", "memento")?.uri).toBe(`${BASE}/page/Md_write/3`);
      }
      const map = colo ? await readFrom(colo, "/timemap/link/Md_write") : await request("/timemap/link/Md_write");
      expect(parseLinks(await text(map)).filter((l) => l.rels.includes("memento"))).toHaveLength(3);
    }
    const cached = await request("/page/Md_write/3");
    expect(cached.headers.get("x-palimpsest-tier")).toBe("lower");
    expect(linkWith(parseLinks(cached.headers.get("link")), "next")).toBeUndefined();

    const write = await request("/api/pages/Md_write/revisions", {
      method: "POST",
      headers: {
        authorization: "Bearer test-write-token-5c1f9a7e3b8d2f60a4c9e1b7",
        "content-type": "application/json",
      },
      body: JSON.stringify({ revisions: [{ ...linearHistory(4)[3]!, timestamp: "2020-01-01T00:01:00Z" }] }),
    });
    expect(write.status).toBe(201);
    const { purges } = await write.json<{ purges: string[] }>();
    for (const id of purges) await waitForAck(id);

    const expectNewState = (links: Link[], id: number) => {
      expect(linkWith(links, "last", "memento"), `revision ${id}`).toMatchObject({
        uri: `${BASE}/page/Md_write/4`,
        attrs: { datetime: "Wed, 01 Jan 2020 00:01:00 GMT" },
      });
    };
    for (const colo of [undefined, ...colos]) {
      for (const id of [1, 2, 3]) {
        const res = colo ? await readFrom(colo, `/page/Md_write/${id}`) : await request(`/page/Md_write/${id}`);
        expect(res.status).toBe(200);
        const links = parseLinks(res.headers.get("link"));
        expectNewState(links, id);
        if (id === 3)
          expect(linkWith(links, "next", "last", "memento")?.uri, `${colo} next of 3`).toBe(`${BASE}/page/Md_write/4`);
      }
      const map = parseLinks(
        await text(colo ? await readFrom(colo, "/timemap/link/Md_write") : await request("/timemap/link/Md_write")),
      );
      expect(linkWith(map, "last", "memento")?.uri).toBe(`${BASE}/page/Md_write/4`);
      expect(map.filter((l) => l.rels.includes("memento"))).toHaveLength(4);
      const gate = colo
        ? await readFrom(colo, "/page/Md_write", { headers: { "accept-datetime": "Fri, 01 Jan 2021 00:00:00 GMT" } })
        : await request("/page/Md_write", { headers: { "accept-datetime": "Fri, 01 Jan 2021 00:00:00 GMT" } });
      expect(gate.headers.get("location")).toBe(`${BASE}/page/Md_write/4`);
    }
    // The revision bodies themselves stayed cached: only their place in time was refreshed.
    expect((await request("/page/Md_write/2")).headers.get("x-palimpsest-tier")).toBe("lower");
  });
});
