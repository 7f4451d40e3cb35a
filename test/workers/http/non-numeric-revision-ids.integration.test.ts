/**
 * Revision ids that are not numbers (`abc`, `1.5`, `1e3`) are the client's
 * mistake: every route that takes one answers 400 naming the field, never
 * a 500 with a stack trace in the log. Zod 4 runs a
 * refinement even after its regex failed, and `BigInt("abc")` threw there.
 * A purge that is refused for such a URL costs the token none of its
 * purge rate.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { appendOk, linearHistory, request } from "../support/archive.ts";
import { bearer, TOKENS } from "../support/tokens.ts";
import { login, ORIGIN, post } from "../dashboard/support/dashboard.ts";

const PAGE = "Vellum_ids";
const NOT_IDS = ["abc", "1.5", "1e3", "-1", "0x1f", "1n", "%20%31", "%ff"];

async function problem(res: Response): Promise<{ status: number; code: string; field: string; detail: string }> {
  const body = await res.json<{ code: string; field: string; detail: string }>();
  return { status: res.status, code: body.code, field: body.field, detail: body.detail };
}

beforeAll(async () => {
  await appendOk(PAGE, linearHistory(3));
});

describe("a revision id that is not a number", () => {
  it("reading /page/{title}/{id} answers 400 naming revid", async () => {
    for (const id of NOT_IDS) {
      expect(await problem(await request(`/page/${PAGE}/${id}`)), id).toMatchObject({
        status: 400,
        code: "invalid_revision_id",
        field: "revid",
      });
    }
    // Past 2^53 − 1 it is still refused as out of range, and 1 still reads.
    expect(await problem(await request(`/page/${PAGE}/99999999999999999999`))).toMatchObject({
      status: 422,
      code: "revision_id_out_of_range",
    });
    expect((await request(`/page/${PAGE}/1`)).status).toBe(200);
  });

  it("the compare form's ?from= and ?to= answer 400 naming the field", async () => {
    expect(await problem(await request(`/page/${PAGE}/compare?from=abc&to=2`))).toMatchObject({
      status: 400,
      code: "invalid_revision_id",
      field: "from",
    });
    expect(await problem(await request(`/page/${PAGE}/compare?from=1&to=1.5`))).toMatchObject({
      status: 400,
      code: "invalid_revision_id",
      field: "to",
    });
  });

  it("a TimeMap's ?after= and ?before= answer 400 naming the cursor", async () => {
    expect(await problem(await request(`/timemap/json/${PAGE}?after=abc`))).toMatchObject({
      status: 400,
      code: "invalid_cursor",
      field: "after",
    });
    expect(await problem(await request(`/timemap/link/${PAGE}?before=1.5`))).toMatchObject({
      status: 400,
      code: "invalid_cursor",
      field: "before",
    });
  });

  it("the suppression API answers 400 naming id, and suppresses nothing", async () => {
    for (const id of NOT_IDS) {
      const res = await request(`/api/pages/${PAGE}/revisions/${id}/suppression`, {
        method: "PUT",
        headers: { ...bearer(TOKENS.write), "content-type": "application/json" },
        body: JSON.stringify({ suppressed: true, reason: "a test takedown" }),
      });
      expect(await problem(res), id).toMatchObject({ status: 400, code: "invalid_revision_id", field: "id" });
    }
    for (const id of ["1", "2", "3"]) expect((await request(`/page/${PAGE}/${id}`)).status).toBe(200);
  });

  it("the purge API drops such a URL as never cached, saying why, and purges the rest", async () => {
    const only = await request("/api/purges", {
      method: "POST",
      headers: { ...bearer(TOKENS.operator), "content-type": "application/json" },
      body: JSON.stringify({ files: [`${ORIGIN}/page/${PAGE}/abc`] }),
    });
    const body = await only.json<{ code: string; dropped: Array<{ item: string; reason: string }> }>();
    expect(only.status).toBe(422);
    expect(body).toMatchObject({ code: "nothing_to_purge", dropped: [{ item: `${ORIGIN}/page/${PAGE}/abc` }] });
    expect(body.dropped[0]!.reason).toMatch(/never cached/);
    const mixed = await request("/api/purges", {
      method: "POST",
      headers: { ...bearer(TOKENS.operator), "content-type": "application/json" },
      body: JSON.stringify({ files: [`${ORIGIN}/page/${PAGE}/1.5`, `${ORIGIN}/page/${PAGE}/2`] }),
    });
    expect(mixed.status).toBe(202);
    expect(await mixed.json()).toMatchObject({
      accepted: [`${ORIGIN}/page/${PAGE}/2`],
      dropped: [{ item: `${ORIGIN}/page/${PAGE}/1.5` }],
    });
  });

  it("the purge API refuses a prefix holding half a surrogate pair with 400, as it does a bad escape", async () => {
    // JSON can carry "\ud83d" alone; no URL can, and encoding one for the cache key threw.
    const res = await request("/api/purges", {
      method: "POST",
      headers: { ...bearer(TOKENS.operator), "content-type": "application/json" },
      body: '{"prefixes":["archive.test/page/\\ud83d/1"]}',
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ code: "invalid_items", errors: [{ index: 0 }] });
  });

  it("the dashboard's purge form shows the refusal against the line, not an error page", async () => {
    const s = await login();
    const res = await post(
      "/dashboard/purges",
      { csrf: s.csrf, kind: "files", items: `${ORIGIN}/page/${PAGE}/abc` },
      { cookie: s.cookie },
    );
    expect(res.status).toBe(422);
    const html = await res.text();
    expect(html).toContain(`${ORIGIN}/page/${PAGE}/abc`);
    expect(html).toContain("never cached");
  });
});

describe("a refused purge", () => {
  it("costs the token none of its purge rate: past the rate's worth of refusals, each is still a 400 and a good purge goes through", async () => {
    // PURGE_RATE allows 60 a minute (wrangler.toml); charging refusals turned the 61st into a 429.
    const statuses = new Set<number>();
    for (let i = 0; i < 75; i++) {
      // A URL with a non-numeric id (dropped: nothing to purge, 422), or a tag with a comma (400).
      const body = i % 2 === 0 ? { files: [`${ORIGIN}/page/${PAGE}/${i}.5`] } : { tags: ["a,b"] };
      const res = await request("/api/purges", {
        method: "POST",
        headers: { ...bearer(TOKENS.operator), "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      statuses.add(res.status);
      await res.arrayBuffer();
    }
    expect([...statuses].sort()).toEqual([400, 422]);
    const good = await request("/api/purges", {
      method: "POST",
      headers: { ...bearer(TOKENS.operator), "content-type": "application/json" },
      body: JSON.stringify({ tags: [`page:${PAGE}`] }),
    });
    expect(good.status).toBe(202);
  });
});
