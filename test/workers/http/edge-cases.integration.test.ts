import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { pageStoreOf, shardOf } from "../../../src/bindings.ts";
import { clearBlobCache } from "../../../src/storage/blob-cache.ts";
import { TOKEN, append, appendOk, linearHistory, request } from "../support/archive.ts";

const auth = { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" };

describe("a 500 leaks nothing", () => {
  it("names the page and revision and gives a request id, but no blob key or object id", async () => {
    const page = "Leak_checked";
    await appendOk(
      page,
      linearHistory(2, 1, (i) => `leak check ${i}\n`),
    );
    const located = await pageStoreOf(env, page).locate({ kind: "id", id: 2 });
    if (!located.ok) throw new Error("locate failed");
    const blob = new Uint8Array((await env.BLOBS.get(located.location.blob, "arrayBuffer"))!);
    blob[blob.length - 2] = blob[blob.length - 2]! ^ 0x10;
    await env.BLOBS.put(located.location.blob, blob);
    clearBlobCache();
    const res = await request(`/page/${page}/2`, { headers: { "x-request-id": "trace-me-42" } });
    expect(res.status).toBe(500);
    expect(res.headers.get("x-request-id")).toBe("trace-me-42");
    const text = await res.text();
    const owner = env.PAGE_STORE.idFromName(shardOf(env, page)).toString();
    expect(text).not.toContain("blob/");
    expect(text).not.toContain(owner);
    expect(text).not.toContain(owner.slice(0, 16));
    expect(text).not.toContain(located.location.blob.slice(-64));
    expect(JSON.parse(text)).toMatchObject({
      code: "revision_unreadable",
      page: "Leak checked",
      revision: 2,
      requestId: "trace-me-42",
    });
  });
});

describe("conditional requests", () => {
  it("answers If-None-Match: * on an existing revision with 304", async () => {
    await appendOk("Star_match", linearHistory(1));
    const res = await request("/page/Star_match/1", { headers: { "if-none-match": "*" } });
    expect(res.status).toBe(304);
    expect((await request("/page/Star_match/1", { headers: { "if-none-match": '"nope"' } })).status).toBe(200);
  });
});

describe("titles", () => {
  it("normalises to NFC: a decomposed title is the same page, and its URL redirects to the composed one", async () => {
    const composed = "Caf\u00e9_menu";
    const decomposed = "Cafe\u0301_menu";
    expect((await append(decomposed, linearHistory(1))).status).toBe(201);
    const res = await request(`/page/${encodeURIComponent(decomposed)}/1`);
    expect(res.status).toBe(301);
    expect(res.headers.get("location")).toBe(`http://archive.test/page/${encodeURIComponent(composed)}/1`);
    expect(await (await request(`/page/${encodeURIComponent(composed)}`)).text()).toBe(linearHistory(1)[0]!.text);
  });

  it("reaches subpage titles containing / when percent-encoded, writes links that way, and keeps them apart from revision ids", async () => {
    const sub = "Help:Contents/Editing";
    const seg = "Help:Contents%2FEditing";
    expect(
      (
        await append(
          sub,
          linearHistory(3, 1, (i) => `subpage ${i}\n`),
        )
      ).status,
    ).toBe(201);
    // A page whose title looks like the subpage's parent plus a revision id.
    expect(
      (
        await append(
          "Help:Contents/2",
          linearHistory(1, 1, () => "impostor\n"),
        )
      ).status,
    ).toBe(201);
    expect(await (await request(`/page/${seg}`)).text()).toBe("subpage 2\n");
    expect(await (await request(`/page/${seg}/2`)).text()).toBe("subpage 1\n");
    expect(await (await request("/page/Help:Contents%2F2")).text()).toBe("impostor\n");
    const history = await request(`/page/${seg}/history?limit=1`);
    expect(history.status).toBe(200);
    const body = await history.json<{ page: string; links: { older: string } }>();
    expect(body.page).toBe("Help:Contents/Editing");
    expect(body.links.older).toContain(`/page/${seg}/history?`);
    const lower = await request("/page/help:Contents%2FEditing/history");
    expect(lower.status).toBe(301);
    expect(lower.headers.get("location")).toBe(`http://archive.test/page/${seg}/history`);
  });
});

describe("ids past 2^53 − 1 are refused, never rounded", () => {
  const big = "9007199254740993"; // 2^53 + 1: as a double it is 2^53

  it("in a write body: id and parentId", async () => {
    await appendOk("Big_ids", linearHistory(1));
    for (const field of ["id", "parentId"]) {
      const rev = { ...linearHistory(2)[1]!, [field]: 0 };
      const body = JSON.stringify({ revisions: [rev] }).replace(`"${field}":0`, `"${field}":${big}`);
      const res = await request("/api/pages/Big_ids/revisions", { method: "POST", headers: auth, body });
      expect(res.status, field).toBe(422);
      expect(await res.json()).toMatchObject({ code: "invalid_field", field: `revisions.0.${field}` });
    }
  });

  it("in a path: reading a revision, and suppressing one", async () => {
    const read = await request(`/page/Big_ids/${big}`);
    expect(read.status).toBe(422);
    expect(await read.json()).toMatchObject({ code: "revision_id_out_of_range" });
    const put = await request(`/api/pages/Big_ids/revisions/${big}/suppression`, {
      method: "PUT",
      headers: auth,
      body: JSON.stringify({ suppressed: true, reason: "a test takedown" }),
    });
    expect(put.status).toBe(422);
    expect(await put.json()).toMatchObject({ code: "invalid_field", field: "id" });
  });
});
