/**
 * Backup and restore, verified, on every history of the
 * shared corpus: import it into a fresh archive, suppress a revision and
 * write two tagged ones through the API, export the page with a backup
 * token, import that export into a second fresh archive, export again: the
 * two files are byte-identical, and the second archive answers the
 * suppressed revision 410 and carries the tags. w3c-webdriver's three
 * revisions dated before their parent go through both imports with their
 * warnings and come out as they went in.
 *
 * The histories are large (2.1 GB of XML, 1.7 GB of revision text in all).
 * They run two at a time, smallest first, each pair of archives taking one
 * history after another: a round trip keeps about one core busy (the CLI and
 * the Worker take turns, and a local workerd runs a Worker on one thread), so
 * two lanes fill a 2-core machine. Each step (import, export, import, export)
 * has a watchdog of its own; each history prints its figures (export and
 * import speed, the export CLI's peak memory).
 */
import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { readdir, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createBrotliDecompress } from "node:zlib";
import { afterAll, beforeAll, expect, it } from "vitest";
import { normalizeTitle } from "../../../../src/page/title.ts";
import { describeNeeding, fileMissing } from "../../support/requirements.ts";
import { startImportHarness, summaryOf, type ImportHarness } from "../import/support/import-cli-harness.ts";
import { clientOf, exportSummaryOf, runExport } from "./support/export-harness.ts";

const HISTORIES = fileURLToPath(new URL("../../../../../shared/corpus/histories/", import.meta.url));
/** The largest history (w3c-aria, 0.76 GB of XML) takes about 1.5 minutes per step on an idle 2-core machine. */
const STEP_MS = 15 * 60_000;
/** Histories round-tripped at once, each in archives of its own (see above). */
const LANES = 2;

/** An original archive and the one its backup is restored into. */
interface Lane {
  a: ImportHarness;
  b: ImportHarness;
}

/**
 * `count` lanes for the calling file, started before its first test and
 * stopped after its last; `inLane` runs a step in the first lane free, in the
 * order the steps asked.
 */
function lanesForThisFile(count: number): { inLane<T>(step: (lane: Lane) => Promise<T>): Promise<T> } {
  let lanes: Lane[] = [];
  const free: Lane[] = [];
  const waiting: Array<(lane: Lane) => void> = [];
  beforeAll(async () => {
    const started = await Promise.allSettled(Array.from({ length: count * 2 }, () => startImportHarness()));
    const harnesses = started.flatMap((r) => (r.status === "fulfilled" ? [r.value] : []));
    const failed = started.find((r) => r.status === "rejected");
    if (failed) {
      await Promise.all(harnesses.map((h) => h.stop()));
      throw failed.reason;
    }
    lanes = Array.from({ length: count }, (_, i) => ({ a: harnesses[2 * i]!, b: harnesses[2 * i + 1]! }));
    free.push(...lanes);
  });
  afterAll(async () => {
    await Promise.all(lanes.flatMap((lane) => [lane.a.stop(), lane.b.stop()]));
  });
  return {
    async inLane(step) {
      if (lanes.length === 0) throw new Error("the archives start in beforeAll: use them inside tests");
      const lane = free.shift() ?? (await new Promise<Lane>((resolve) => waiting.push(resolve)));
      try {
        return await step(lane);
      } finally {
        const next = waiting.shift();
        if (next) next(lane);
        else free.push(lane);
      }
    },
  };
}

async function sha256Of(file: string): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest("hex");
}

/** The page title a corpus history holds (its first `<title>`), read from the head of the brotli stream. */
async function titleOf(file: string): Promise<string> {
  let text = "";
  for await (const chunk of createReadStream(file).pipe(createBrotliDecompress())) {
    text += (chunk as Buffer).toString("utf8");
    const m = /<title>([^<]*)<\/title>/.exec(text);
    if (m) return m[1]!.replace(/&amp;/g, "&").replace(/&lt;/g, "<").replace(/&gt;/g, ">");
    if (text.length > 1 << 20) break;
  }
  throw new Error(`${file}: no <title> in its first MiB`);
}

const missing = fileMissing(HISTORIES, "the shared corpus histories");
const histories = (await readdir(HISTORIES).catch(() => [] as string[]))
  .filter((f) => f.endsWith(".xml.br"))
  .map((f) => join(HISTORIES, f));
// Smallest first: a failure shows on a small history before the long ones run.
const bySize = await Promise.all(histories.map(async (f) => ({ f, size: (await stat(f)).size })));
const ordered = bySize.sort((x, y) => x.size - y.size).map((x) => x.f);

describeNeeding(missing, "export, import, export again: byte-identical on every corpus history", () => {
  const { inLane } = lanesForThisFile(LANES);

  it("has every corpus history to run", () => {
    // The corpus README lists eight; a missing one would silently drop out of the loop below.
    expect(ordered.map((f) => f.split("/").pop())).toHaveLength(8);
  });

  for (const history of ordered) {
    const name = history
      .split("/")
      .pop()!
      .replace(/\.xml\.br$/, "");
    it.concurrent(
      name,
      ({ expect }) =>
        inLane(async (lane) => {
          const a = () => lane.a;
          const b = () => lane.b;
          const title = await titleOf(history);
          const t = normalizeTitle(title);
          if (!t.ok) throw new Error(`${title}: ${t.reason}`);
          const key = t.key;
          const first = summaryOf(await a().runImport(history, [], { watchdogMs: STEP_MS }));
          if (name === "w3c-webdriver") expect(first.warnings, "children dated before their parent").toBe(3);

          // Through the API: suppress the middle revision, and write two tagged ones.
          const client = clientOf(a());
          const newest = await (
            await fetch(`${a().archive.url}/page/${key}/history?limit=1`)
          ).json<{
            total: number;
            revisions: Array<{ id: number; timestamp: string; model: string }>;
          }>();
          const latest = newest.revisions[0]!;
          const suppressed = latest.id - Math.floor(newest.total / 2);
          expect((await client.setSuppressed(key, suppressed, true, "a test takedown"))?.revision.suppressed).toBe(
            true,
          );
          const at = (s: number) =>
            new Date(Date.parse(latest.timestamp) + s * 1000).toISOString().replace(".000Z", "Z");
          const tagged = [
            { id: latest.id + 1, tags: ["round-trip:a"] },
            { id: latest.id + 2, tags: ["round-trip:b", "team:corpus"] },
          ];
          await client.append(
            key,
            tagged.map((r, i) => ({
              id: r.id,
              parentId: i === 0 ? latest.id : tagged[0]!.id,
              timestamp: at(60 * (i + 1)),
              contributor: "Round Trip",
              comment: `tagged revision ${i + 1} & <more>`,
              model: latest.model as "wikitext",
              text: `tagged revision ${i + 1} of ${title}\r\nwith a CR & an <angle>\n`,
              tags: r.tags,
            })),
          );

          const fileA = join(a().scratch, `${name}-a.xml`);
          const fileB = join(b().scratch, `${name}-b.xml`);
          try {
            const runA = await runExport(a(), fileA, ["--page", title], { peakRss: true, watchdogMs: STEP_MS });
            const exportA = exportSummaryOf(runA);
            expect(exportA.revisions).toBe(first.revisions + 2);
            const second = summaryOf(await b().runImport(fileA, [], { watchdogMs: STEP_MS }));
            expect(second.revisions).toBe(first.revisions + 2);
            expect(second.warnings).toBe(first.warnings);
            const exportB = exportSummaryOf(await runExport(b(), fileB, ["--page", title], { watchdogMs: STEP_MS }));
            expect(exportB.file_bytes).toBe(exportA.file_bytes);
            expect(await sha256Of(fileB), "the restored archive's export").toBe(await sha256Of(fileA));

            // What the bytes say, the restored archive does.
            expect((await fetch(`${b().archive.url}/page/${key}/${suppressed}`)).status).toBe(410);
            const restored = await (
              await fetch(`${b().archive.url}/page/${key}/history?limit=2`)
            ).json<{
              revisions: Array<{ id: number; tags: string[] }>;
            }>();
            expect(restored.revisions.map((r) => [r.id, r.tags])).toEqual(
              [...tagged].reverse().map((r) => [r.id, r.tags]),
            );
            const seconds = exportA.seconds || 0.1;
            console.log(
              `round trip ${name}: identical, ${exportA.revisions} revisions, ${(exportA.xml_bytes / 1e6).toFixed(1)} MB of XML; ` +
                `export ${exportA.seconds} s (${(exportA.xml_bytes / 1e6 / seconds).toFixed(1)} MB/s, ${Math.round(exportA.revisions / seconds)} revisions/s), ` +
                `CLI peak RSS ${((runA.peakRss ?? 0) / 1e6).toFixed(0)} MB; imports ${first.seconds} s and ${second.seconds} s`,
            );
          } finally {
            await rm(fileA, { force: true });
            await rm(fileB, { force: true });
          }
        }),
      4 * STEP_MS,
    );
  }
});
