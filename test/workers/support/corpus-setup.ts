/**
 * Runs in Node before the workerd tests: parses two small shared histories
 * and hands their revisions to the tests through vitest's provide/inject,
 * since code inside workerd cannot read the file system.
 *
 * A history that is not there is the Node tests' rule too
 * (test/node/support/requirements.ts): under CI (`CI=true`) the run fails
 * here, naming the file; elsewhere its tests skip and this says why.
 */
import { existsSync } from "node:fs";
import type { TestProject } from "vitest/node";
import { decodeUtf8, readMediaWikiExport, type ExportRevision } from "../../../src/tools/import/mediawiki-reader.ts";
import { openExport } from "../../../src/tools/import/open-export.ts";

const CORPUS = new URL("../../../../shared/corpus/histories/", import.meta.url);
export const ROUND_TRIP_HISTORIES = ["bip-0340", "bip-0341"] as const;

declare module "vitest" {
  export interface ProvidedContext {
    histories: Record<string, ExportRevision[]>;
  }
}

export default async function setup(project: TestProject): Promise<void> {
  const histories: Record<string, ExportRevision[]> = {};
  for (const name of ROUND_TRIP_HISTORIES) {
    const file = new URL(`${name}.xml.br`, CORPUS);
    if (!existsSync(file)) {
      const missing = `the shared ${name} history not found at ${file.pathname}; the shared corpus lives at ../shared/corpus`;
      if (process.env.CI === "true")
        throw new Error(`${missing}. CI=true, so a missing requirement fails instead of skipping`);
      console.warn(`skipped: the workerd tests that read ${name} back: ${missing} (under CI=true this fails)`);
      continue;
    }
    const revisions: ExportRevision[] = [];
    for await (const item of readMediaWikiExport(decodeUtf8(await openExport(file.pathname)))) {
      if (item.kind === "revision") revisions.push(item.revision);
    }
    histories[name] = revisions;
  }
  project.provide("histories", histories);
}
