/**
 * `palimpsest bench wire --json` end to end on the smallest shared history
 * (bip-0340, 198 revisions): a real Worker in workerd, every revision walked
 * four ways, every body decoded and checked byte for byte by the bench
 * itself (a wrong body ends it with an error). This checks the output
 * contract and what does not depend on the machine's speed: what each
 * encoding sends. Needs the shared corpus (fails under CI=true without it).
 */
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";
import { describeNeeding, fileMissing } from "../../support/requirements.ts";
import { benchRows } from "./support/run-bench.ts";
import type { WireEncodingRow, WireRow, WireTargetRow } from "../../../../src/tools/bench/wire/run.ts";

const HISTORY = fileURLToPath(new URL("../../../../../shared/corpus/histories/bip-0340.xml.br", import.meta.url));

describeNeeding(fileMissing(HISTORY, "the shared bip-0340 history"), "palimpsest bench wire --json (bip-0340)", () => {
  it(
    "walks every revision: gzip and br compress, dcb sends deltas against the revision before, all decode to the identity body",
    { timeout: 180_000 },
    async () => {
      const rows = await benchRows<WireRow>(["wire", "--json", HISTORY]);
      const encodings = rows.filter((r): r is WireEncodingRow => r.row === "encoding");
      const targets = rows.filter((r): r is WireTargetRow => r.row === "target");
      expect(encodings.map((r) => `${r.history}/${r.encoding}`)).toEqual(
        ["bip-0340", "total"].flatMap((h) => ["identity", "gzip", "br", "dcb"].map((e) => `${h}/${e}`)),
      );
      expect(targets.map((t) => t.history)).toEqual(["bip-0340", "total", "total"]);

      const of = (encoding: string) => encodings.find((r) => r.history === "bip-0340" && r.encoding === encoding)!;
      expect(of("identity").revisions).toBe(198);
      expect(of("identity").content_encodings).toEqual({ identity: 198 });
      expect(of("gzip").content_encodings).toEqual({ gzip: 198 });
      expect(of("br").content_encodings).toEqual({ br: 198 });
      // The first revision has nothing before it to be a dictionary.
      expect(of("dcb").content_encodings).toEqual({ br: 1, dcb: 197 });
      expect(of("gzip").bytes).toBeLessThan(of("identity").bytes / 2);
      expect(of("br").bytes).toBeLessThan(of("gzip").bytes);
      expect(of("dcb").bytes).toBeLessThan(of("br").bytes / 4);
      for (const r of encodings)
        for (const k of ["cold_cpu_ms_p50", "hot_cpu_ms_p50"] as const)
          expect(r[k], `${r.encoding} ${k}`).toBeGreaterThan(0);
      for (const t of targets) expect(t.met).toBe(t.target.includes("/ dcb") ? t.got >= 10 : t.got <= 1.1);
    },
  );
});
