import { describe, expect, it } from "vitest";
import { LIMITS } from "../../../src/limits.ts";
import { TOKEN, append, appendOk, latestBody, linearHistory, request } from "../support/archive.ts";

const post = (key: string, body: string, headers: Record<string, string> = {}) =>
  request(`/api/pages/${key}/revisions`, {
    method: "POST",
    headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json", ...headers },
    body,
  });

describe("write API bad input", () => {
  const key = "Guarded_page";
  const base = linearHistory(3);

  it("answers each bad request with a clear problem and loses nothing already committed", async () => {
    await appendOk(key, base);
    const next = linearHistory(4)[3]!;
    const cases: Array<{ res: Promise<Response>; status: number; match: Record<string, unknown> }> = [
      { res: append(key, [next], "wrong-token"), status: 401, match: { code: "invalid_token" } },
      {
        res: request(`/api/pages/${key}/revisions`, { method: "POST", body: "{}" }),
        status: 401,
        match: { code: "unauthenticated" },
      },
      { res: post(key, "{not json"), status: 400, match: { code: "malformed_json" } },
      {
        res: post(key, JSON.stringify({ revisions: [next] }), { "content-type": "text/plain" }),
        status: 415,
        match: { code: "unsupported_media_type" },
      },
      {
        res: append(key, [{ ...next, timestamp: "2020-13-01T00:00:00Z" }]),
        status: 422,
        match: { code: "invalid_field", field: "revisions.0.timestamp" },
      },
      {
        res: append(key, [{ ...next, timestamp: "yesterday" }]),
        status: 422,
        match: { field: "revisions.0.timestamp" },
      },
      { res: append(key, [{ ...next, model: "flash" as "html" }]), status: 422, match: { field: "revisions.0.model" } },
      {
        res: post(key, JSON.stringify({ revisions: [{ ...next, text: undefined }] })),
        status: 422,
        match: { field: "revisions.0.text" },
      },
      { res: append(key, [next, { ...next }]), status: 422, match: { code: "duplicate_revision_id", revision: 4 } },
      {
        res: append(key, [{ ...next, parentId: 1 }]),
        status: 409,
        match: { code: "parent_mismatch", latest: 3, revision: 4 },
      },
      {
        res: append(key, [{ ...next, sha1: "0".repeat(31) }]),
        status: 422,
        match: { code: "sha1_mismatch", revision: 4 },
      },
      { res: append("Bad[title]", [next]), status: 400, match: { code: "invalid_title" } },
      {
        res: append(key, [{ ...next, text: "x".repeat(LIMITS.page.maxRevisionBytes + 1) }]),
        status: 413,
        match: {
          code: "revision_too_large",
          limit: { name: "page.maxRevisionBytes", value: LIMITS.page.maxRevisionBytes },
        },
      },
      {
        res: append(
          key,
          linearHistory(LIMITS.storage.maxBatchRevisions + 1, 4).map((r, i) => ({
            ...r,
            parentId: i === 0 ? 3 : r.parentId,
          })),
        ),
        status: 413,
        match: {
          code: "batch_too_large",
          limit: { name: "storage.maxBatchRevisions", value: LIMITS.storage.maxBatchRevisions },
        },
      },
    ];
    for (const c of cases) {
      const res = await c.res;
      expect(res.headers.get("content-type")).toBe("application/problem+json");
      const body = await res.json();
      expect({ status: res.status, body }).toMatchObject({ status: c.status, body: c.match });
    }
    expect(await latestBody(key)).toBe(base[2]!.text);
    const history = await (await request(`/page/${key}/history`)).json<{ total: number }>();
    expect(history.total).toBe(3);
    expect((await append(key, [next])).status).toBe(201);
  });
});
