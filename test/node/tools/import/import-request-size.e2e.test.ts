/**
 * `palimpsest import` sizes its requests from the limit the archive
 * advertises (`GET /api/limits`, `storage.maxRequestBytes`), counting the
 * exact JSON body, which escaping makes bigger than the texts. The real CLI
 * against a real local Worker, through a recording proxy that also plays a
 * server that does not advertise limits (the import refuses it rather than guess).
 */
import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { LIMITS } from "../../../../src/limits.ts";
import { exportXml, generateHistory } from "../../support/mediawiki-export.ts";
import { oneLineReason, rawBytes, importHarnessForThisFile, summaryOf } from "./support/import-cli-harness.ts";

const MAX = LIMITS.storage.maxRequestBytes;
const MiB = 1024 * 1024;

interface Recorded {
  method: string;
  path: string;
  status: number;
  /** Bytes of the request body as they arrived. */
  bytes: number;
}

/** A proxy to the archive that records every request; `hideLimits` answers GET /api/limits with 404, as a server that is not this archive would. */
async function startProxy(
  target: string,
  options: { hideLimits?: boolean } = {},
): Promise<{ url: string; requests: Recorded[]; close(): Promise<void> }> {
  const requests: Recorded[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      const record = (status: number) =>
        requests.push({ method: req.method!, path: req.url!, status, bytes: body.byteLength });
      if (options.hideLimits && req.url === "/api/limits") {
        record(404);
        res.writeHead(404, { "content-type": "application/problem+json" }).end('{"status":404}');
        return;
      }
      const { host: _host, ...headers } = req.headers;
      // A fresh connection each time: no pooled socket outlives the test that opened it.
      const upstream = request(new URL(req.url!, target), { method: req.method, headers, agent: false }, (answer) => {
        record(answer.statusCode!);
        res.writeHead(answer.statusCode!, answer.headers);
        answer.pipe(res);
      });
      upstream.on("error", (err) => res.destroy(err));
      upstream.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const close = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  return { url: `http://127.0.0.1:${port}`, requests, close };
}

const posts = (requests: Recorded[]) => requests.filter((r) => r.method === "POST");

/**
 * `count` revisions of about `textBytes` each, made of backslashes and line
 * breaks (plain in XML, two bytes each in JSON): their JSON is twice their text.
 */
function escapingHistory(
  count: number,
  textBytes: number,
  firstId: number,
): Array<{ id: number; parentId: number | null; text: string }> {
  return Array.from({ length: count }, (_, i) => ({
    id: firstId + i,
    parentId: i === 0 ? null : firstId + i - 1,
    // "ω": not all Latin-1, so V8 holds the text with two bytes a character.
    text: `revision ${i} ω\n${"\\\n".repeat(textBytes / 2)}`,
  }));
}

const h = importHarnessForThisFile();

describe("palimpsest import: request size from the archive's advertised limit", () => {
  it("--batch-bytes over the archive's storage.maxRequestBytes exits 2 naming the limit; the limit itself is accepted", async () => {
    const revs = generateHistory(3, { firstId: 1_000 });
    const file = await h.writeExport(
      "batch-bytes-over",
      exportXml({ pages: [{ title: "Batch bytes over", revisions: revs }] }),
    );
    const refused = await h.runImport(file, ["--batch-bytes", String(MAX + 1)]);
    expect(refused.code).toBe(2);
    expect(oneLineReason(refused)).toBe(
      `palimpsest: --batch-bytes ${MAX + 1} is more than the archive accepts: the archive's storage.maxRequestBytes is ${MAX} bytes`,
    );
    expect(await h.history("Batch bytes over")).toBeNull();

    expect(summaryOf(await h.runImport(file, ["--batch-bytes", String(MAX)]))).toMatchObject({
      revisions: 3,
      created: 3,
    });
  }, 120_000);

  it("a history whose JSON is over the limit goes in several requests, none refused, and reads back", async () => {
    const title = "Escaped history";
    // 7 MiB of text each, 14 MiB of JSON each: two together are over the limit.
    const revs = escapingHistory(3, 7 * MiB, 2_000);
    expect(Buffer.byteLength(JSON.stringify(revs))).toBeGreaterThan(MAX);
    const file = await h.writeExport("escaped-history", exportXml({ pages: [{ title, revisions: revs }] }), "gz");
    const proxy = await startProxy(h.archive.url);
    try {
      expect(summaryOf(await h.runImport(file, [], { url: proxy.url }))).toMatchObject({
        pages: 1,
        revisions: 3,
        created: 3,
        skipped: 0,
        raw_bytes: rawBytes(revs),
      });
      expect(proxy.requests.filter((r) => r.path === "/api/limits")).toHaveLength(1);
      const writes = posts(proxy.requests);
      expect(writes.map((r) => r.status)).toEqual([201, 201, 201]);
      for (const w of writes) expect(w.bytes).toBeLessThanOrEqual(MAX);
    } finally {
      await proxy.close();
    }
    expect((await h.history(title))!.map((r) => r.id)).toEqual([2_002, 2_001, 2_000]);
    await h.expectReadsBack(title, revs);
  }, 120_000);

  describe("a revision whose JSON alone is over the limit", () => {
    // Page `title` as a gzip export; its middle revision: 13 MiB of text (under page.maxRevisionBytes), 26 of JSON.
    const bigExport = async (name: string, title: string, firstId: number) => {
      const revs = [
        { id: firstId, text: "before" },
        { id: firstId + 1, parentId: firstId, text: "\\".repeat(13 * MiB) },
        { id: firstId + 2, parentId: firstId + 1, text: "after" },
      ];
      const xml = exportXml({ pages: [{ title, revisions: revs.map((r) => ({ ...r, comment: "", sha1: false })) }] });
      return { revs, file: await h.writeExport(name, xml, "gz") };
    };
    const reason = (title: string, id: number) =>
      `page "${title}" revision ${id}: its request body would be ${Buffer.byteLength(JSON.stringify({ revisions: [{ id, parentId: id - 1, timestamp: "2020-01-01T00:00:00Z", contributor: "Example", comment: "", model: "wikitext", format: "text/x-wiki", text: "\\".repeat(13 * MiB), sha1: null }] }))} bytes of JSON, over the archive's storage.maxRequestBytes (${MAX} bytes)`;

    it("--on-error=stop names the page, the revision and the limit, and sends nothing for it", async () => {
      const title = "Too big stop";
      const { file } = await bigExport("too-big-stop", title, 3_000);
      const proxy = await startProxy(h.archive.url);
      try {
        const result = await h.runImport(file, ["--on-error=stop"], { url: proxy.url });
        expect(result.code).toBe(1);
        expect(oneLineReason(result)).toBe(`palimpsest: ${reason(title, 3_001)}`);
        for (const w of posts(proxy.requests)) expect(w.status).toBe(201);
      } finally {
        await proxy.close();
      }
      expect(((await h.history(title)) ?? []).map((r) => r.id).every((id) => id < 3_001)).toBe(true);
    }, 120_000);

    it("--on-error=skip names it, skips it and imports the rest", async () => {
      const title = "Too big skip";
      const { revs, file } = await bigExport("too-big-skip", title, 4_000);
      const result = await h.runImport(file, ["--on-error=skip"]);
      expect(summaryOf(result)).toMatchObject({
        revisions: 2,
        created: 2,
        skipped: 1,
        raw_bytes: rawBytes([revs[0]!, revs[2]!]),
      });
      expect(result.stderr.trimEnd().split("\n")).toEqual([`palimpsest: skipped ${reason(title, 4_001)}`]);
      const listed = (await h.history(title))!;
      expect(listed.map((r) => [r.id, r.parentId])).toEqual([
        [4_002, 4_000],
        [4_000, null],
      ]);
    }, 120_000);
  });

  describe("a server that does not advertise its limits (404)", () => {
    it("is refused before any write, naming the route, with exit 1 and nothing stored", async () => {
      const title = "No limits route";
      const revs = generateHistory(5, { firstId: 5_000 });
      const file = await h.writeExport("no-limits", exportXml({ pages: [{ title, revisions: revs }] }));
      const proxy = await startProxy(h.archive.url, { hideLimits: true });
      try {
        for (const flags of [[], ["--batch-bytes", String(MAX + 1)]]) {
          const result = await h.runImport(file, flags, { url: proxy.url });
          expect(result.code).toBe(1);
          expect(result.stderr.trimEnd().split("\n")).toEqual([
            `palimpsest: the archive at ${proxy.url} does not advertise its limits (GET /api/limits: 404): is this URL a Palimpsest archive?`,
          ]);
        }
        expect(proxy.requests.map((r) => `${r.method} ${r.path}`)).toEqual(["GET /api/limits", "GET /api/limits"]);
      } finally {
        await proxy.close();
      }
      expect(await h.history(title)).toBeNull();
    }, 120_000);
  });
});
