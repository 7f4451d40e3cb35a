/**
 * `palimpsest bench store --json` on a whole wiki, end to end: the first four
 * pages of the shared rust-rfcs-wiki (15 revisions) cut into an export of
 * their own, imported page by page into a local Worker in workerd, and into
 * two fresh MediaWiki 1.39 wikis with importDump.php (default settings, and
 * `$wgCompressRevisions = true`), then read back cold and warm on both sides.
 * It checks the rows' shape and that they agree with each other (the page
 * rows add up to the wiki row, every ratio is its two figures' quotient, the
 * one-revision page's bytes are its parts' sum), and that MediaWiki's figures
 * are there; never a speed beyond its being a positive number.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { brotliDecompressSync } from "node:zlib";
import { expect, it } from "vitest";
import { commandMissing, describeNeeding, fileMissing, firstMissing } from "../../support/requirements.ts";
import { NO_MEDIAWIKI } from "../../support/mediawiki.ts";
import { scratchDirForThisFile } from "../../support/scratch.ts";
import { exportHead } from "./support/export-head.ts";
import { benchRows } from "./support/run-bench.ts";
import { WIKI_PAGE_ROW_KEYS, WIKI_ROW_KEYS } from "../../../../src/tools/bench/store/run.ts";

const WIKI = fileURLToPath(new URL("../../../../../shared/corpus/wikis/rust-rfcs-wiki.xml.br", import.meta.url));
const PAGES = 4;

type Row = Record<string, unknown>;

describeNeeding(
  firstMissing(fileMissing(WIKI, "the shared rust-rfcs-wiki"), NO_MEDIAWIKI, commandMissing("xz")),
  "palimpsest bench store --json (a whole wiki)",
  () => {
    const scratch = scratchDirForThisFile("palimpsest-store-wiki-test-");

    it(
      "prints a row per page and one for the wiki that add up, with xz, the one-revision page, reads and MediaWiki's figures",
      { timeout: 600_000 },
      async () => {
        const file = join(scratch, "rfcs-four-pages.xml");
        writeFileSync(file, exportHead(brotliDecompressSync(readFileSync(WIKI)).toString("utf8"), PAGES, "page"));
        const rows = await benchRows(["store", "--json", "--read-sample", "3", file], { timeout: 580_000 });

        const pages = rows.filter((r) => r.row === "page");
        const wikis = rows.filter((r) => r.row === "wiki");
        expect(pages).toHaveLength(PAGES);
        expect(wikis).toHaveLength(1);
        expect(rows).toHaveLength(PAGES + 1);
        const wiki = wikis[0]!;
        const num = (row: Row, key: string) => {
          expect(typeof row[key], key).toBe("number");
          return row[key] as number;
        };
        const sum = (key: string) => pages.reduce((n, p) => n + num(p, key), 0);
        const close = (actual: number, expected: number, what: string) =>
          expect(Math.abs(actual / expected - 1), `${what}: ${actual} vs ${expected}`).toBeLessThan(2e-3);

        for (const page of pages) {
          expect(Object.keys(page)).toEqual([...WIKI_PAGE_ROW_KEYS]);
          expect(page.wiki).toBe("rfcs-four-pages");
          expect(num(page, "stored_bytes")).toBe(num(page, "sqlite_bytes") + num(page, "blob_bytes"));
          expect(num(page, "sqlite_bytes")).toBeGreaterThan(0);
          expect(num(page, "blob_bytes")).toBeGreaterThan(0);
          close(num(page, "ratio"), num(page, "stored_bytes") / num(page, "raw_bytes"), "page ratio");
          expect(num(page, "xz_bytes")).toBeGreaterThan(0);
          close(num(page, "ratio_to_xz"), num(page, "stored_bytes") / num(page, "xz_bytes"), "page ratio_to_xz");
        }
        expect(pages.map((p) => p.title)).toEqual([
          "RFC 0001-private-fields",
          "RFC 0002-rfc-process",
          "RFC 0003-attribute-usage",
          "RFC 0008-new-intrinsics",
        ]);
        // pages.tsv beside the wiki: 2, 5, 2 and 6 revisions.
        expect(pages.map((p) => p.revisions)).toEqual([2, 5, 2, 6]);

        expect(Object.keys(wiki)).toEqual([...WIKI_ROW_KEYS]);
        expect(wiki.pages).toBe(PAGES);
        expect(wiki.revisions).toBe(15);
        for (const key of ["raw_bytes", "sqlite_bytes", "blob_bytes", "blobs", "stored_bytes"])
          expect(num(wiki, key), key).toBe(sum(key));
        expect(num(wiki, "xz_per_page_bytes")).toBe(sum("xz_bytes"));
        const raw = num(wiki, "raw_bytes");
        const stored = num(wiki, "stored_bytes");
        close(num(wiki, "ratio"), stored / raw, "ratio");
        close(num(wiki, "ratio_to_xz"), stored / num(wiki, "xz_bytes"), "ratio_to_xz");
        close(num(wiki, "ratio_to_xz_per_page"), stored / num(wiki, "xz_per_page_bytes"), "ratio_to_xz_per_page");
        close(num(wiki, "baseline_xz_ratio"), num(wiki, "xz_bytes") / raw, "baseline_xz_ratio");
        close(
          num(wiki, "baseline_xz_per_page_ratio"),
          num(wiki, "xz_per_page_bytes") / raw,
          "baseline_xz_per_page_ratio",
        );
        // One solid stream over four pages beats four streams (each pays its own header and first copy).
        expect(num(wiki, "xz_bytes")).toBeLessThan(num(wiki, "xz_per_page_bytes"));

        expect(num(wiki, "one_revision_page_bytes")).toBe(
          num(wiki, "one_revision_page_sqlite_bytes") +
            num(wiki, "one_revision_page_blob_bytes") +
            num(wiki, "one_revision_page_directory_bytes") +
            num(wiki, "one_revision_page_other_bytes"),
        );
        // A page of its own: a database and a blob; nothing the write touches elsewhere shrinks.
        expect(num(wiki, "one_revision_page_sqlite_bytes")).toBeGreaterThan(0);
        expect(num(wiki, "one_revision_page_blob_bytes")).toBeGreaterThan(0);
        expect(num(wiki, "one_revision_page_directory_bytes")).toBeGreaterThanOrEqual(0);
        expect(num(wiki, "one_revision_page_other_bytes")).toBeGreaterThanOrEqual(0);

        for (const key of ["import_seconds", "import_pages_per_s", "import_revisions_per_s", "import_mb_per_s"])
          expect(num(wiki, key), key).toBeGreaterThan(0);
        close(num(wiki, "import_pages_per_s") / num(wiki, "import_revisions_per_s"), PAGES / 15, "pages per revision");

        // MediaWiki, both ways: these four pages import whole.
        for (const prefix of ["mediawiki", "mediawiki_compressed"]) {
          expect(wiki[`${prefix}_import_completed`], prefix).toBe(true);
          expect(wiki[`${prefix}_import_error`], prefix).toBeNull();
          expect(wiki[`${prefix}_import_revisions`], prefix).toBe(15);
          expect(num(wiki, `${prefix}_import_seconds`)).toBeGreaterThan(0);
          // The seconds are rounded to hundredths, the rate is not.
          expect(
            Math.abs(15 / num(wiki, `${prefix}_import_revisions_per_s`) - num(wiki, `${prefix}_import_seconds`)),
          ).toBeLessThanOrEqual(0.006);
          expect(num(wiki, `${prefix}_db_import_bytes`)).toBeGreaterThan(0);
          expect(num(wiki, `${prefix}_import_raw_bytes`)).toBe(raw);
          close(num(wiki, `${prefix}_db_ratio`), num(wiki, `${prefix}_db_import_bytes`) / raw, `${prefix} db ratio`);
          expect(num(wiki, `${prefix}_db_bytes`)).toBeGreaterThan(num(wiki, `${prefix}_db_import_bytes`));
        }
        close(
          num(wiki, "import_speed_ratio"),
          num(wiki, "import_revisions_per_s") / num(wiki, "mediawiki_import_revisions_per_s"),
          "import_speed_ratio",
        );
        // It completed, so per raw byte of what each holds is per raw byte of the whole.
        close(num(wiki, "ratio_to_mediawiki_db"), stored / num(wiki, "mediawiki_db_import_bytes"), "to db");
        close(
          num(wiki, "ratio_to_mediawiki_compressed_db"),
          stored / num(wiki, "mediawiki_compressed_db_import_bytes"),
          "to compressed db",
        );

        // Three of the four pages read on each side, cold then warm.
        expect(wiki.read_sample).toBe(3);
        for (const side of ["read", "mediawiki_read"])
          for (const when of ["cold", "warm"]) {
            const p50 = num(wiki, `${side}_${when}_ms_p50`);
            expect(p50).toBeGreaterThan(0);
            expect(num(wiki, `${side}_${when}_ms_p99`)).toBeGreaterThanOrEqual(p50);
          }
        // Where the archive's reads spent their time, from each read's Server-Timing: the origin's hops
        // inside it, and no br body made with the tiers off.
        for (const when of ["cold", "warm"]) {
          for (const hop of ["directory", "locate", "do", "blob", "decode", "hash"])
            expect(num(wiki, `read_${when}_${hop}_ms_p50`), `${when} ${hop}`).toBeGreaterThanOrEqual(0);
          expect(num(wiki, `read_${when}_origin_ms_p50`)).toBeGreaterThanOrEqual(
            num(wiki, `read_${when}_locate_ms_p50`),
          );
          expect(wiki[`read_${when}_encode_ms_p50`]).toBeNull();
        }
        expect(wiki.reads_all).toBe(15);
        expect(num(wiki, "max_blob_reads_per_read")).toBeGreaterThan(0);
        expect(num(wiki, "mean_decode_amplification")).toBeGreaterThanOrEqual(1);
        expect(num(wiki, "max_decode_amplification")).toBeGreaterThanOrEqual(num(wiki, "mean_decode_amplification"));
      },
    );
  },
);
