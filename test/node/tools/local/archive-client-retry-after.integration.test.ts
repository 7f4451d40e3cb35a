/**
 * The archive client waits out a 429 for as long as its Retry-After says
 * (anonymous exports are limited per client a minute at a time), rather
 * than backing off for less and giving up while the limit still holds.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, describe, expect, it } from "vitest";
import { ArchiveClient } from "../../../../src/tools/local/archive-client.ts";

describe("ArchiveClient and 429", () => {
  const asked: number[] = [];
  // Refuses for two seconds, then answers: the client's own backoff (6 attempts from 10 ms) ends well before.
  const openAt = Date.now() + 2_000;
  const server = createServer((_req, res) => {
    asked.push(Date.now());
    if (Date.now() < openAt) {
      res.writeHead(429, { "retry-after": "1", "content-type": "application/problem+json" });
      return void res.end(JSON.stringify({ status: 429, code: "export_rate_limited" }));
    }
    res.writeHead(200, { "content-type": "application/xml" });
    res.end("<mediawiki/>");
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it("waits the Retry-After it is given before asking again", async () => {
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const { port } = server.address() as AddressInfo;
    const client = new ArchiveClient({ url: `http://127.0.0.1:${port}`, token: "", baseDelayMs: 10 });
    const res = await client.exportPage("Vellum");
    expect(res.status).toBe(200);
    expect(await res.text()).toBe("<mediawiki/>");
    expect(asked.length).toBeGreaterThanOrEqual(2);
    for (let i = 1; i < asked.length; i++) expect(asked[i]! - asked[i - 1]!).toBeGreaterThanOrEqual(950);
  }, 20_000);
});
