/**
 * The follower's Action API client (src/follow/action-api.ts) against a real
 * HTTP server in this process that answers as a wiki might on a bad day:
 * politeness (maxlag, User-Agent, Retry-After on 429/503 and on a maxlag
 * error), and a clear error, never a hang, for garbage, 5xx, a stalled
 * connection or an oversized answer.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { ActionApi, ActionApiError } from "../../../src/follow/action-api.ts";
import { LIMITS } from "../../../src/limits.ts";

type Handler = (req: IncomingMessage, res: ServerResponse, n: number) => void;

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((r) => server?.close(r));
  server = undefined;
});

/** A server answering the n-th request (from 1) with the handler; its api.php URL and what it was sent. */
async function wiki(handler: Handler): Promise<{ url: string; requests: IncomingMessage[] }> {
  const requests: IncomingMessage[] = [];
  server = createServer((req, res) => {
    requests.push(req);
    handler(req, res, requests.length);
  });
  await new Promise<void>((r) => server!.listen(0, "127.0.0.1", r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/w/api.php`, requests };
}

const json = (res: ServerResponse, body: unknown, headers: Record<string, string> = {}) =>
  res.writeHead(200, { "content-type": "application/json", ...headers }).end(JSON.stringify(body));

function client(url: string, extra: { maxAttempts?: number; timeoutMs?: number } = {}) {
  const waits: number[] = [];
  const api = new ActionApi({
    url,
    userAgent: "palimpsest-test/1 (test@example.org)",
    wait: async (ms) => void waits.push(ms),
    ...extra,
  });
  return { api, waits };
}

describe("ActionApi", () => {
  it("sends maxlag, formatversion 2 and a descriptive User-Agent", async () => {
    const w = await wiki((_, res) => json(res, { query: { ok: true } }));
    const { api } = client(w.url);
    expect(await api.get({ action: "query", meta: "siteinfo" })).toEqual({ query: { ok: true } });
    const sent = new URL(w.requests[0]!.url!, "http://x");
    expect(Object.fromEntries(sent.searchParams)).toEqual({
      format: "json",
      formatversion: "2",
      maxlag: String(LIMITS.follow.maxlagSeconds),
      action: "query",
      meta: "siteinfo",
    });
    expect(w.requests[0]!.headers["user-agent"]).toBe("palimpsest-test/1 (test@example.org)");
  });

  it("waits as long as Retry-After says on 429 and 503, and as a maxlag error says", async () => {
    const w = await wiki((_, res, n) => {
      if (n === 1) return res.writeHead(429, { "retry-after": "7" }).end("slow down");
      if (n === 2) return res.writeHead(503, { "retry-after": "2" }).end();
      if (n === 3)
        return json(
          res,
          { error: { code: "maxlag", info: "Waiting for a database server: 6 seconds lagged." } },
          {
            "retry-after": "5",
          },
        );
      json(res, { done: 1 });
    });
    const { api, waits } = client(w.url);
    expect(await api.get({ action: "query" })).toEqual({ done: 1 });
    expect(waits).toEqual([7000, 2000, 5000]);
    expect(api.retries).toBe(3);
  });

  it("gives up on a wiki that keeps answering 500, saying so and how often it tried", async () => {
    const w = await wiki((_, res) => res.writeHead(500).end("oops"));
    const { api } = client(w.url, { maxAttempts: 3 });
    const err = await api.get({ action: "query" }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ActionApiError);
    expect((err as Error).message).toMatch(/HTTP 500 \(query at .*, after 3 attempts\)/);
    expect(w.requests).toHaveLength(3);
  });

  it("refuses garbage at once: not JSON, an API error, a 404", async () => {
    const w = await wiki((req, res) => {
      if (req.url!.includes("garbage")) return res.writeHead(200).end("<html>not an API</html>");
      if (req.url!.includes("apierror")) return json(res, { error: { code: "badvalue", info: "no" } });
      res.writeHead(404).end();
    });
    const { api } = client(w.url);
    await expect(api.get({ action: "garbage" })).rejects.toThrow(/^the wiki's answer is not JSON \(garbage at /);
    const apiError = await api.get({ action: "apierror" }).catch((e: unknown) => e as ActionApiError);
    expect(apiError.message).toMatch(/^API error badvalue \(apierror at /);
    expect(apiError.apiCode).toBe("badvalue");
    await expect(api.get({ action: "missing" })).rejects.toThrow(/HTTP 404/);
    expect(w.requests).toHaveLength(3); // none of them retried
  });

  it("ends a stalled connection at its deadline, headers sent or not, and tries again", async () => {
    const w = await wiki((_, res, n) => {
      if (n === 1) return; // never answers
      if (n === 2) return void res.writeHead(200, { "content-type": "application/json" }).write('{"query":'); // stalls mid-body
      json(res, { query: {} });
    });
    const { api } = client(w.url, { timeoutMs: 300 });
    const started = Date.now();
    expect(await api.get({ action: "query" })).toEqual({ query: {} });
    expect(api.retries).toBe(2);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it("says which it was when a stalled wiki is given up on", async () => {
    const w = await wiki((_, res) => void res.writeHead(200).write("{")); // headers, then nothing more
    const { api } = client(w.url, { timeoutMs: 200, maxAttempts: 2 });
    await expect(api.get({ action: "query" })).rejects.toThrow(
      /stalled: not complete within 200 ms .*after 2 attempts/,
    );
  });

  it("follows a redirect within the wiki's origin, up to follow.maxRedirects, and no further", async () => {
    const w = await wiki((req, res) => {
      const endless = req.url!.includes("endless");
      const hop = Number(new URL(req.url!, "http://x").searchParams.get("hop") ?? 0);
      if (endless || hop < 2)
        return res
          .writeHead(307, { location: `/w/api.php?action=${endless ? "endless" : "query"}&hop=${hop + 1}` })
          .end();
      json(res, { hops: hop });
    });
    const { api } = client(w.url);
    expect(await api.get({ action: "query" })).toEqual({ hops: 2 });
    await expect(api.get({ action: "endless" })).rejects.toThrow(
      new RegExp(`HTTP 307 after ${LIMITS.follow.maxRedirects} redirects, over follow.maxRedirects`),
    );
  });

  it("refuses an answer over follow.maxAnswerBytes, declared or streamed", async () => {
    const w = await wiki((req, res) => {
      if (req.url!.includes("declared"))
        return res.writeHead(200, { "content-length": String(LIMITS.follow.maxAnswerBytes + 1) }).end();
      res.writeHead(200, { "content-type": "application/json" });
      const chunk = Buffer.alloc(1024 * 1024, 0x20);
      for (let i = 0; i <= LIMITS.follow.maxAnswerBytes / chunk.length; i++) res.write(chunk);
      res.end();
    });
    const { api } = client(w.url);
    await expect(api.get({ action: "declared" })).rejects.toThrow(/over follow.maxAnswerBytes/);
    await expect(api.get({ action: "streamed" })).rejects.toThrow(/over follow.maxAnswerBytes/);
  });
});
