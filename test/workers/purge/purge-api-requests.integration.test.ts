/**
 * The purge API as an operator (or an attacker) meets it: every bad request
 * gets a clear problem and enqueues nothing; tokens are checked for scope
 * and expiry; each token has a rate; every purge lands in the audit log
 * with who, what, how many keys and when it completed.
 */
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { purgeAuditOf, purgeQueueNames, purgeQueueOf } from "../../../src/bindings.ts";
import { topologyOf } from "../../../src/config/topology.ts";
import { appendOk, linearHistory, request } from "../support/archive.ts";
import { bearer, TOKENS } from "../support/tokens.ts";
import { expectProblemCode } from "../support/problems.ts";

const HOST = "archive.test";

function purge(
  body: unknown, // a string is sent as it is
  token: string | null = TOKENS.operator,
  headers: Record<string, string> = {},
): Promise<Response> {
  return request("/api/purges", {
    method: "POST",
    headers: { ...(token ? bearer(token) : {}), "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

/** Purge events logged by every queue of the receiving region's pool, as large as it may grow. */
async function loggedEvents(): Promise<number> {
  const queues = purgeQueueNames("enam", topologyOf(env).queuePool.max);
  const loads = await Promise.all(queues.map((q) => purgeQueueOf(env, q).load()));
  return loads.reduce((sum, l) => sum + l.lastSeq, 0);
}

describe("bad purge requests are refused, clearly, and enqueue nothing", () => {
  const tooMany = { files: Array.from({ length: 501 }, (_, i) => `http://${HOST}/page/P/${i + 1}`) };
  const cases: Array<{ what: string; send: () => Promise<Response>; status: number; code: string }> = [
    { what: "malformed JSON", send: () => purge("{files: ["), status: 400, code: "malformed_json" },
    {
      what: "an unknown key",
      send: () => purge({ files: [`http://${HOST}/page/A`], urls: [] }),
      status: 400,
      code: "unknown_key",
    },
    {
      what: "two kinds in one body",
      send: () => purge({ files: [`http://${HOST}/page/A`], tags: ["x"] }),
      status: 400,
      code: "mixed_purge_kinds",
    },
    { what: "no kind at all", send: () => purge({ soft: true }), status: 400, code: "no_purge_kind" },
    {
      what: "purge_everything: false",
      send: () => purge({ purge_everything: false }),
      status: 400,
      code: "invalid_purge",
    },
    { what: "over 500 files", send: () => purge(tooMany), status: 413, code: "too_many_items" },
    {
      what: "a URL on a host the archive does not serve",
      send: () => purge({ files: ["https://elsewhere.example/page/A"] }),
      status: 422,
      code: "not_served",
    },
    {
      what: "a host the archive does not serve",
      send: () => purge({ hosts: ["elsewhere.example"] }),
      status: 422,
      code: "not_served",
    },
    {
      what: "a prefix on another host",
      send: () => purge({ prefixes: ["elsewhere.example/page"] }),
      status: 422,
      code: "not_served",
    },
    {
      what: ".. in a URL path",
      send: () => purge({ files: [`http://${HOST}/page/A/../B`] }),
      status: 400,
      code: "invalid_items",
    },
    {
      what: ".. in a prefix",
      send: () => purge({ prefixes: [`${HOST}/page/../api`] }),
      status: 400,
      code: "invalid_items",
    },
    {
      what: "a control character in a URL",
      send: () => purge({ files: [`http://${HOST}/page/A\u0007`] }),
      status: 400,
      code: "invalid_items",
    },
    {
      what: "CR/LF in a tag",
      send: () => purge({ tags: ["ok", "bad\r\nSet-Cookie: x"] }),
      status: 400,
      code: "invalid_items",
    },
    { what: "a comma in a tag", send: () => purge({ tags: ["a,b"] }), status: 400, code: "invalid_items" },
    {
      what: "a prefix with a scheme",
      send: () => purge({ prefixes: [`https://${HOST}/page`] }),
      status: 400,
      code: "invalid_items",
    },
    {
      what: "only things never cached",
      send: () => purge({ files: [`http://${HOST}/healthz`] }),
      status: 422,
      code: "nothing_to_purge",
    },
    { what: "no token", send: () => purge({ purge_everything: true }, null), status: 401, code: "unauthenticated" },
    {
      what: "a token nobody issued",
      send: () => purge({ purge_everything: true }, "not-a-token-at-all"),
      status: 401,
      code: "invalid_token",
    },
    {
      what: "an expired token",
      send: () => purge({ purge_everything: true }, TOKENS.expired),
      status: 401,
      code: "token_expired",
    },
    {
      what: "a write-only token",
      send: () => purge({ purge_everything: true }, TOKENS.write),
      status: 403,
      code: "forbidden",
    },
    {
      what: "a non-JSON body",
      send: () => purge("files=x", TOKENS.operator, { "content-type": "application/x-www-form-urlencoded" }),
      status: 415,
      code: "unsupported_media_type",
    },
  ];

  it.each(cases)("$what → $status $code", async ({ send, status, code }) => {
    const before = await loggedEvents();
    const res = await send();
    expect(res.status).toBe(status);
    expect(res.headers.get("content-type")).toBe("application/problem+json");
    const body = await res.json<{
      code: string;
      detail?: string;
      errors?: Array<{ index: number; reason: string }>;
    }>();
    expect(body.code).toBe(code);
    expect(body.detail ?? "").not.toBe("");
    expect(await loggedEvents()).toBe(before);
  });

  it("names each refused item with its index and reason", async () => {
    const res = await purge({ tags: ["fine", "a,b", "also fine", "x\ny"] });
    const body = await res.json<{ errors: Array<{ index: number; reason: string }> }>();
    expect(body.errors.map((e) => e.index)).toEqual([1, 3]);
    expect(body.errors[0]!.reason).toMatch(/comma/);
    expect(body.errors[1]!.reason).toMatch(/control character/);
  });

  it("refuses an unknown purge id and a malformed one without waking a queue, and a ?wait past the limit", async () => {
    expect((await request("/api/purges/enam-q0:999999", { headers: bearer(TOKENS.operator) })).status).toBe(404);
    expect((await request("/api/purges/nonsense", { headers: bearer(TOKENS.operator) })).status).toBe(400);
    const res = await request("/api/purges/enam-q0:1?wait=3600", { headers: bearer(TOKENS.operator) });
    await expectProblemCode(res, 400, "invalid_wait");
  });
});

describe("the audit log", () => {
  it("records who purged what, how many keys, when, and when it completed; newest first, paginated", async () => {
    await appendOk("Audited", linearHistory(1));
    const ids: string[] = [];
    for (const body of [
      { files: [`http://${HOST}/page/Audited`, `http://${HOST}/page/Audited/1`, `http://${HOST}/api/tiers`] },
      { tags: ["team:audit"], soft: true },
      { prefixes: [`${HOST}/page/Audited`] },
    ]) {
      const res = await purge(body);
      expect(res.status).toBe(202);
      ids.push((await res.json<{ id: string }>()).id);
    }
    for (const id of ids)
      await request(`/api/purges/${id}?wait=30`, { headers: bearer(TOKENS.operator) }).then((r) => r.arrayBuffer());
    const res = await request("/api/purges", { headers: bearer(TOKENS.purge) });
    expect(res.status).toBe(200);
    const page = await res.json<{
      entries: Array<{
        id: string;
        by: string;
        kind: string;
        soft: boolean;
        keys: number;
        dropped: number;
        items: string[];
        createdAt: number;
        completedAt: number | null;
      }>;
      next: string | null;
    }>();
    const mine = page.entries.filter((e) => ids.includes(e.id));
    expect(mine.map((e) => e.id)).toEqual([...ids].reverse());
    const [prefixes, tags, files] = mine;
    expect(files).toMatchObject({ by: "test-operator", kind: "files", soft: false, keys: 2, dropped: 1 });
    expect(tags).toMatchObject({ kind: "tags", soft: true, keys: 1, items: ["team:audit"] });
    expect(prefixes).toMatchObject({ kind: "prefixes", keys: 1 });
    for (const e of mine) expect(e.completedAt).toBeGreaterThanOrEqual(e.createdAt);
    // One entry per page: the cursor walks back through the rest.
    const first = await (
      await request("/api/purges", { headers: bearer(TOKENS.purge) })
    ).json<{
      entries: Array<{ id: string }>;
    }>();
    expect(first.entries.length).toBeGreaterThanOrEqual(3);
    let cursor: string | null = null;
    const walked: string[] = [];
    do {
      const r = await request(`/api/purges${cursor ? `?before=${cursor}` : ""}`, { headers: bearer(TOKENS.purge) });
      const p = await r.json<{ entries: Array<{ id: string }>; next: string | null }>();
      walked.push(...p.entries.map((e) => e.id));
      cursor = p.next;
    } while (cursor);
    expect(walked).toEqual(first.entries.map((e) => e.id).concat(walked.slice(first.entries.length)));
    expect((await request("/api/purges?before=abc", { headers: bearer(TOKENS.purge) })).status).toBe(400);
  });

  it("keeps a completion that arrives before the purge's record, and a lost completion report is learned from the queue", async () => {
    // A fanout faster than the ingest's audit call: the completion comes first.
    const audit = purgeAuditOf(env);
    await audit.completed([{ id: "enam-q0:900001", at: 1_700_000_000_500 }]);
    await audit.record({
      id: "enam-q0:900001",
      by: "early",
      kind: "tags",
      soft: false,
      items: ["x"],
      keys: 1,
      dropped: 0,
      createdAt: 1_700_000_000_000,
    });
    // A purge whose report to the log never arrived: the log learns it from its queue.
    const res = await purge({ tags: ["team:unreported"] });
    const { id } = await res.json<{ id: string }>();
    const done = await (
      await request(`/api/purges/${id}?wait=30`, { headers: bearer(TOKENS.operator) })
    ).json<{
      completedAt: number;
    }>();
    await runInDurableObject(audit, (_, state) =>
      state.storage.sql.exec("UPDATE audit SET completed_at = NULL WHERE id = ?", id),
    );
    const { entries } = await (
      await request("/api/purges", { headers: bearer(TOKENS.purge) })
    ).json<{
      entries: Array<{ id: string; completedAt: number | null }>;
    }>();
    expect(entries.find((e) => e.id === "enam-q0:900001")?.completedAt).toBe(1_700_000_000_500);
    expect(entries.find((e) => e.id === id)?.completedAt).toBe(done.completedAt);
  });

  it("is for purge-scope tokens only", async () => {
    expect((await request("/api/purges", { headers: bearer(TOKENS.write) })).status).toBe(403);
  });
});

describe("rate limits", () => {
  it("answer 429 with Retry-After, per token, past the token's rate", async () => {
    // Only purges that will be applied count (a refused one costs none: test/workers/http/non-numeric-revision-ids.integration.test.ts).
    let limited: Response | undefined;
    for (let i = 0; i < 130 && !limited; i++) {
      const res = await purge({ tags: [`rate-${i}`] }, TOKENS.purge);
      if (res.status === 429) limited = res;
      else await res.arrayBuffer();
    }
    expect(limited, "never rate limited").toBeDefined();
    const retryAfter = Number(limited!.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    const body = await limited!.json<{ code: string; retryAfterSeconds: number; detail: string }>();
    expect(body.code).toBe("rate_limited");
    expect(body.retryAfterSeconds).toBe(retryAfter);
    expect(body.detail).toMatch(/test-purger/);
    // Another token is not held back by this one's rate.
    expect((await purge({ tags: ["a,b"] }, TOKENS.operator)).status).toBe(400);
  });
});
