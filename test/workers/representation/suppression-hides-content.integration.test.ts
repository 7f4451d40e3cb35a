/**
 * A suppressed revision is listed with its id, time, contributor and comment
 * and nothing derived from its content: were its
 * size or hashes listed beside its public neighbours, a guess of the hidden
 * text (a phone number) could be checked in seconds. Every listing is read
 * over HTTP after the suppression and searched, headers and body, for the
 * hashes computed from the hidden text; the neighbours keep theirs. The
 * history's "changes" links skip suppressed revisions instead of pointing at
 * a 410.
 */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { sha1Base36, sha256Hex } from "../../../src/lib/digests.ts";
import type { NewRevision } from "../../../src/page/types.ts";
import type { PurgeEvent } from "../../../src/purge/events.ts";
import { zonePurgeBodies } from "../../../src/purge/zone-purge.ts";
import { cacheTagsOf, deltaKey } from "../../../src/tiers/cache-key.ts";
import { LowerTier } from "../../../src/tiers/lower-tier.ts";
import { appendOk, linearHistory, request } from "../support/archive.ts";
import { bearer, TOKENS } from "../support/tokens.ts";
import { get, login } from "../dashboard/support/dashboard.ts";

const PHONE = "Call Ana Lima on +44 20 7946 0958 after six.\n";
const utf8 = (s: string) => new TextEncoder().encode(s);

interface Entry {
  id: number;
  parentId: number | null;
  timestamp: string;
  contributor: string;
  comment: string;
  suppressed: boolean;
  bytes?: number;
  sha1?: string;
  sha256?: string;
  previousVisibleId?: number | null;
}

/** What anyone could check a guess against: the hidden text's hashes in each spelling the archive uses. */
async function fingerprints(text: string): Promise<{ sha1: string; sha256: string; sha256b64: string; bytes: number }> {
  const bytes = utf8(text);
  const sha256 = await sha256Hex(bytes);
  const b64 = btoa(String.fromCharCode(...new Uint8Array(await crypto.subtle.digest("SHA-256", bytes))));
  return { sha1: await sha1Base36(bytes), sha256, sha256b64: b64, bytes: bytes.byteLength };
}

function history(texts: string[]): NewRevision[] {
  return linearHistory(texts.length, 1, (i) => texts[i]!);
}

const suppress = (key: string, id: number) =>
  request(`/api/pages/${key}/revisions/${id}/suppression`, {
    method: "PUT",
    headers: { ...bearer(TOKENS.write), "content-type": "application/json" },
    body: JSON.stringify({ suppressed: true, reason: "a test takedown" }),
  });

async function historyJson(key: string, query = ""): Promise<Entry[]> {
  const res = await request(`/page/${key}/history${query}`);
  expect(res.status).toBe(200);
  return (await res.json<{ revisions: Entry[] }>()).revisions;
}

async function historyHtml(key: string, query = ""): Promise<string> {
  const res = await request(`/page/${key}/history${query}`, { headers: { accept: "text/html" } });
  expect(res.status).toBe(200);
  return res.text();
}

/** The "changes" link in a revision's row of the HTML history, or null. */
function changesLink(html: string, id: number): string | null {
  const row = new RegExp(`<tr data-revision="${id}">(.*?)</tr>`, "s").exec(html)?.[1];
  if (row === undefined) throw new Error(`no row for revision ${id}`);
  return /href="([^"]*\/compare\/[^"]*)"/.exec(row)?.[1] ?? null;
}

describe("a suppressed revision's listings carry nothing derived from its content", () => {
  it("history JSON and HTML, TimeMaps, search, home, dashboard, the write API's answer and every neighbour's headers omit its sha1, sha256 and bytes", async () => {
    const key = "Phone_leak";
    const texts = [
      "Ana Lima is a translator.\n",
      "Ana Lima is a translator in Leeds.\n",
      `Ana Lima is a translator in Leeds. ${PHONE}`,
      "Ana Lima is a translator in Leeds, retired.\n",
      "Ana Lima (1950-) is a translator in Leeds.\n",
    ];
    await appendOk(key, history(texts));
    const hidden = await fingerprints(texts[2]!);
    // The needles are right: before the suppression, the history lists them (as it should then).
    const before = JSON.stringify(await historyJson(key));
    expect(before).toContain(hidden.sha1);
    expect(before).toContain(hidden.sha256);
    // Warm the tiers with the listings, so the suppression's purge must replace them.
    await historyHtml(key);
    await request(`/timemap/link/${key}`);

    const answer = await suppress(key, 3);
    expect(answer.status).toBe(200);
    const answerBody = await answer.text();
    const suppressed = (JSON.parse(answerBody) as { revision: Entry }).revision;
    expect(suppressed).toMatchObject({
      id: 3,
      suppressed: true,
      contributor: "Editor 2",
      comment: "edit 2",
      timestamp: "2020-01-01T00:00:02Z",
      parentId: 2,
    });
    for (const field of ["bytes", "sha1", "sha256"]) expect(suppressed, field).not.toHaveProperty(field);

    const s = await login();
    const reads: Array<[string, Response]> = [];
    const read = async (path: string, init: RequestInit = {}) =>
      reads.push([`${init.method ?? "GET"} ${path} ${JSON.stringify(init.headers ?? {})}`, await request(path, init)]);
    for (const accept of ["application/json", "text/html"]) {
      for (const query of ["", "?limit=2", "?limit=2&older=b4", "?limit=1&older=b4"])
        await read(`/page/${key}/history${query}`, { headers: { accept } });
    }
    for (const path of [
      `/timemap/link/${key}`,
      `/timemap/json/${key}`,
      "/search?q=Phone",
      "/",
      `/page/${key}`,
      `/page/${key}/2`,
      `/page/${key}/3`,
      `/page/${key}/4`,
    ])
      await read(path);
    await read(`/page/${key}`, { headers: { "accept-datetime": "Wed, 01 Jan 2020 00:00:02 GMT" } });
    await read(`/page/${key}/4`, {
      headers: { "accept-encoding": "br, dcb", "available-dictionary": `:${hidden.sha256b64}:` },
    });
    await read(`/page/${key}/compare/2...4`, { headers: { accept: "text/html" } });
    await read(`/page/${key}/compare/2...4`);
    await read(`/api/pages/${key}/stats`, { headers: bearer(TOKENS.write) });
    reads.push(["dashboard storage", await get("/dashboard/storage", s)]);
    reads.push(["dashboard home", await get("/dashboard", s)]);

    expect(reads.length).toBeGreaterThan(20);
    for (const [what, res] of [
      ...reads,
      ["suppression answer", new Response(answerBody, { headers: answer.headers })] as [string, Response],
    ]) {
      const text = `${[...res.headers].map(([k, v]) => `${k}: ${v}`).join("\n")}\n\n${new TextDecoder().decode(await res.arrayBuffer())}`;
      for (const needle of [hidden.sha1, hidden.sha256, hidden.sha256b64, hidden.sha256.slice(0, 16)])
        expect(text.includes(needle), `${what} (${res.status}) contains ${needle}`).toBe(false);
    }

    // The history keeps id, time, contributor and comment, and no size: not in JSON, not in the HTML row.
    const listed = await historyJson(key);
    const third = listed.find((r) => r.id === 3)!;
    expect(third).toMatchObject({
      id: 3,
      suppressed: true,
      contributor: "Editor 2",
      comment: "edit 2",
      timestamp: "2020-01-01T00:00:02Z",
    });
    for (const field of ["bytes", "sha1", "sha256"]) expect(third, field).not.toHaveProperty(field);
    const row = /<tr data-revision="3">(.*?)<\/tr>/s.exec(await historyHtml(key))?.[1] ?? "";
    expect(row).toContain("Editor 2");
    expect(row).not.toContain("<data");
    expect(row).not.toContain(`value="${hidden.bytes}"`);

    // The neighbours keep theirs.
    for (const id of [2, 4]) {
      const own = await fingerprints(texts[id - 1]!);
      expect(listed.find((r) => r.id === id)).toMatchObject({
        suppressed: false,
        bytes: own.bytes,
        sha1: own.sha1,
        sha256: own.sha256,
      });
    }
  });

  it("the page's raw bytes (write API stats, dashboard storage row) leave the hidden size out, and a restore lists size, hashes and bytes again", async () => {
    const key = "Phone_restored";
    const texts = ["one\n", `two ${PHONE}`, "three\n"];
    await appendOk(key, history(texts));
    const s = await login();
    const rawBytes = async () =>
      (
        await (
          await request(`/api/pages/${key}/stats`, { headers: bearer(TOKENS.write) })
        ).json<{
          rawBytes: number;
        }>()
      ).rawBytes;
    /** The storage row's raw bytes once the page's report (sent after the change answers) shows `n`. */
    const rowShows = async (n: number) => {
      for (const until = Date.now() + 5_000; ; await new Promise((r) => setTimeout(r, 25))) {
        const row =
          new RegExp(`<tr data-page="${key}">(.*?)</tr>`, "s").exec(
            await (await get("/dashboard/storage", s)).text(),
          )?.[1] ?? "";
        if (row.includes(`<data value="${n}">`) || Date.now() > until) return row;
      }
    };
    const sizes = texts.map((t) => utf8(t).byteLength);
    expect(await rawBytes()).toBe(sizes[0]! + sizes[1]! + sizes[2]!);
    expect((await suppress(key, 2)).status).toBe(200);
    // Otherwise the total less the listed sizes is the hidden one's.
    expect(await rawBytes()).toBe(sizes[0]! + sizes[2]!);
    expect(await rowShows(sizes[0]! + sizes[2]!)).toContain(`<data value="${sizes[0]! + sizes[2]!}">`);
    // Suppressing again changes nothing.
    expect((await suppress(key, 2)).status).toBe(200);
    expect(await rawBytes()).toBe(sizes[0]! + sizes[2]!);
    const restore = await request(`/api/pages/${key}/revisions/2/suppression`, {
      method: "PUT",
      headers: { ...bearer(TOKENS.write), "content-type": "application/json" },
      body: JSON.stringify({ suppressed: false, reason: "a test restore" }),
    });
    const own = await fingerprints(texts[1]!);
    expect((await restore.json<{ revision: Entry }>()).revision).toMatchObject({
      suppressed: false,
      bytes: own.bytes,
      sha1: own.sha1,
      sha256: own.sha256,
    });
    expect((await historyJson(key)).find((r) => r.id === 2)).toMatchObject({
      suppressed: false,
      bytes: own.bytes,
      sha1: own.sha1,
    });
    expect(await rawBytes()).toBe(sizes[0]! + sizes[1]! + sizes[2]!);
    expect(await rowShows(sizes[0]! + sizes[1]! + sizes[2]!)).toContain(
      `<data value="${sizes[0]! + sizes[1]! + sizes[2]!}">`,
    );
  });
});

describe("the history's changes links skip suppressed revisions", () => {
  it("the revision after a suppressed one compares with the nearest earlier visible revision, on its page or past it, and the link answers 200", async () => {
    const key = "Changes_skip";
    await appendOk(key, linearHistory(7));
    for (const id of [3, 5, 6]) expect((await suppress(key, id)).status).toBe(200);

    const html = await historyHtml(key);
    expect(changesLink(html, 4)).toBe(`/page/${key}/compare/2...4`);
    expect(changesLink(html, 7)).toBe(`/page/${key}/compare/4...7`);
    expect(changesLink(html, 2)).toBe(`/page/${key}/compare/1...2`);
    for (const id of [3, 5, 6]) expect(changesLink(html, id)).toBeNull();
    // Every changes link on the page is a live page, none a 410.
    const links = [...html.matchAll(/href="([^"]*\/compare\/[^"]*)"/g)].map((m) => m[1]!);
    expect(links).toHaveLength(3);
    for (const link of links)
      expect((await request(link, { headers: { accept: "text/html" } })).status, link).toBe(200);

    // Past the page's oldest row: revision 7 alone on the first page, 4 alone on a later one.
    expect(changesLink(await historyHtml(key, "?limit=1"), 7)).toBe(`/page/${key}/compare/4...7`);
    expect(changesLink(await historyHtml(key, "?limit=1&older=b5"), 4)).toBe(`/page/${key}/compare/2...4`);

    // The JSON says the same.
    const listed = await historyJson(key);
    expect(listed.find((r) => r.id === 4)).toMatchObject({ parentId: 3, previousVisibleId: 2 });
    expect(listed.find((r) => r.id === 7)).toMatchObject({ parentId: 6, previousVisibleId: 4 });
    expect(listed.find((r) => r.id === 6)).toMatchObject({ previousVisibleId: 4 });
    expect(listed.find((r) => r.id === 2)).not.toHaveProperty("previousVisibleId");
  });

  it("leaves the link out when no earlier revision is visible", async () => {
    const key = "Changes_none_visible";
    await appendOk(key, linearHistory(3));
    for (const id of [1, 2]) expect((await suppress(key, id)).status).toBe(200);
    const html = await historyHtml(key);
    expect(changesLink(html, 3)).toBeNull();
    expect(html).not.toMatch(/\/compare\/\d+\.\.\.3"/);
    expect((await historyJson(key)).find((r) => r.id === 3)).toMatchObject({ previousVisibleId: null });
    expect((await historyJson(key, "?limit=1")).find((r) => r.id === 3)).toMatchObject({ previousVisibleId: null });
  });
});

describe("a dcb answer coded against a revision that is later suppressed", () => {
  it("carries its dictionary's variants tag, which the suppression's Cloudflare purge names, so no colo keeps answering dcb to that hash", async () => {
    const key = "Phone_dictionary";
    const texts = [
      "Ana Lima is a translator in Leeds.\n".repeat(20),
      `Ana Lima is a translator in Leeds. ${PHONE}`.repeat(20),
      "Ana Lima is a translator in Leeds, retired.\n".repeat(20),
    ];
    await appendOk(key, history(texts));
    const hidden = await fingerprints(texts[1]!);
    // Before the suppression a reader holding revision 2 gets 3 as a delta against it, kept in LHR's lower tier.
    const res = await request(`/page/${key}/3`, {
      headers: {
        "accept-encoding": "br, dcb",
        "available-dictionary": `:${hidden.sha256b64}:`,
        "x-palimpsest-colo": "LHR",
      },
    });
    expect(res.headers.get("content-encoding")).toBe("dcb");
    await new Promise((r) => setTimeout(r, 50));
    const { hit } = await (await LowerTier.open(env, "LHR")).get(deltaKey(key, 3, hidden.sha256));
    expect(hit).toBeTruthy();
    // What Cloudflare's purge API is sent for the suppression of revision 2 (the production lower tier's only way in).
    const event: PurgeEvent = {
      page: key,
      scope: { kind: "revisions", revisions: [2] },
      version: 9,
      region: "weur",
      seq: 1,
      id: "weur-q0:1",
      queue: "weur-q0",
      createdAt: Date.now(),
    };
    const purged = zonePurgeBodies([event], "http://archive.test").flatMap(
      (b) => (b.tags as string[] | undefined) ?? [],
    );
    const reached = cacheTagsOf(hit!.entry).filter((t) => purged.includes(t));
    expect(reached).toContain(`variants:/page/${key}/2`);
  });
});
