/**
 * `palimpsest bench wire FILE...`: imports each MediaWiki export into a local
 * Worker and walks it revision by revision as a browser would, asking for
 * identity, gzip, br and dcb: bytes on the wire and the server's CPU per
 * response, cold and hot. See src/tools/bench/wire/run.ts for every field.
 *
 * @example
 * npx palimpsest bench wire ../shared/corpus/histories/bip-0340.xml.br
 * npx palimpsest bench wire --json ../shared/corpus/histories/*.xml.br
 */
import type { Command } from "commander";
import { fixed, mixedRowPrinter, type Column } from "../harness/index.ts";
import { checkHistoryFiles, HISTORY_FILES_ARGUMENT, overHistories } from "./histories.ts";
import type { WireEncodingRow, WireRow } from "../wire/run.ts";
import { logLine, UsageError } from "../../local/output.ts";

interface WireFlags {
  json?: boolean;
  hot: boolean;
}

const COLUMNS: Column<WireEncodingRow>[] = [
  ["history", -24, (r) => r.history],
  ["revs", 5, (r) => String(r.revisions)],
  ["encoding", -8, (r) => r.encoding],
  ["KB sent", 10, (r) => fixed(r.bytes / 1e3, 1)],
  ["vs id", 8, (r) => fixed(r.bytes_vs_identity * 100, 2) + "%"],
  ["cold p50", 8, (r) => fixed(r.cold_cpu_ms_p50, 2)],
  ["cold p99", 8, (r) => fixed(r.cold_cpu_ms_p99, 2)],
  ["hot p50", 8, (r) => (r.hot_cpu_ms_p50 === null ? "-" : fixed(r.hot_cpu_ms_p50, 2))],
  ["hot p99", 8, (r) => (r.hot_cpu_ms_p99 === null ? "-" : fixed(r.hot_cpu_ms_p99, 2))],
  [
    "sent as",
    0,
    (r) =>
      Object.entries(r.content_encodings)
        .map(([e, n]) => `${e} ${n}`)
        .join(", "),
  ],
];

async function wire(files: string[], flags: WireFlags): Promise<void> {
  if (files.length === 0)
    throw new UsageError("name at least one MediaWiki export (e.g. ../shared/corpus/histories/bip-0340.xml.br)");
  checkHistoryFiles(files);
  const out = mixedRowPrinter(
    flags.json ?? false,
    COLUMNS,
    (r: WireRow): r is WireEncodingRow => r.row === "encoding",
    (r) => `${r.met ? "met" : "MISSED"}: ${r.history}: ${r.target} ${r.want}: ${r.got}`,
  );
  if (!flags.json)
    logLine(
      "bench wire: body bytes over a walk of every revision; server CPU ms per response (workerd), cold walk then hot walk",
    );
  out.header();
  // Imported when run: it loads wrangler, which takes seconds.
  const { benchWire } = await import("../wire/run.ts");
  await overHistories(() => benchWire(files, { hot: flags.hot, log: logLine, onRow: out.row }));
}

/** Adds `wire` to the `bench` command group. */
export function registerBenchWire(bench: Command): void {
  bench
    .command("wire")
    .description(
      "walk each history revision by revision as a browser would: bytes on the wire and server CPU for identity, gzip, br and dcb",
    )
    .argument("[files...]", HISTORY_FILES_ARGUMENT)
    .option("--json", "one JSON object per line: per history and encoding, totals, targets")
    .option("--no-hot", "skip the second, warm walk (hot CPU figures null): half the time on big histories")
    .action((files: string[], flags: WireFlags) => wire(files, flags));
}
