import { cloudflareTest } from "@cloudflare/vitest-pool-workers";
import { unstable_readConfig } from "wrangler";
import { defineConfig, type TestProjectInlineConfiguration } from "vitest/config";

/**
 * The projects, named `<kind>:<runtime>[-<variant>]`. A test file is named `<behaviour>.<kind>.test.ts`,
 * kind one of unit, integration, e2e, scale, bench, and its kind decides its project:
 * - `npm test` (the inner loop) runs `unit:*` and `integration:*`: every unit and integration test;
 * - `npm run test:all` (what `.ci/run` runs) runs every project;
 * - `npm run test:<kind>` runs one kind.
 *
 * Inside workerd (test/workers/), a project's files share one runtime per vitest worker (`isolate: false`),
 * so each file does not pay a workerd start and a module load; a file that leans on a fresh runtime
 * (wasm memory that never shrinks, a queue pool's load from other files'
 * purges) is named in FRESH_RUNTIME and runs in one of its own. Where the tier topology is not the
 * subject, tests run a small one (TEST_TOPOLOGY: every region and colo of wrangler.toml's, one tier each
 * and one purge queue); the tiers, purges and the files in FULL_TOPOLOGY run wrangler.toml's own.
 * Only the files that read the shared corpus get it (CORPUS_READERS, parsed once in Node by
 * test/workers/support/corpus-setup.ts). test/node/repo/test-projects.unit.test.ts checks that every
 * test file is in exactly one project, of its kind, and that a unit test starts no process.
 */

/** Files that need a runtime of their own, and why. */
export const FRESH_RUNTIME = [
  // wasm memory never shrinks: it measures a codec's peak from a fresh instance.
  "test/workers/codec/memory.unit.test.ts",
  // samples its region's purge load: another file's purges in the same runtime move it.
  "test/workers/purge/queue-pool.integration.test.ts",
  // counts the dcb bodies every tier holds after a purge: other files' reads fill the same tiers.
  "test/workers/representation/dcb.integration.test.ts",
  // weighs a shard's whole database: other files' pages land in the same shards.
  "test/workers/page-store/page-shards.integration.test.ts",
] as const;

/** Files whose subject is the full topology: several tiers per region, two purge queues per region. */
export const FULL_TOPOLOGY = [
  "test/workers/tiers/**",
  "test/workers/purge/**",
  "test/workers/config/**",
  "test/workers/dashboard/purge-page.integration.test.ts",
  "test/workers/dashboard/charts.unit.test.ts",
  "test/workers/memento/memento-tiers.integration.test.ts",
] as const;

/** The files that read shared histories through inject("histories"). */
export const CORPUS_READERS = [
  "test/workers/storage/blob-reads.integration.test.ts",
  "test/workers/page-store/history.scale.test.ts",
] as const;

/** The one test of the orphan grace setting, with a one-second ORPHAN_GRACE_SECONDS, as an operator would set it. */
export const SHORT_GRACE = "test/workers/storage/orphan-grace-setting.integration.test.ts";

/** Secrets the workerd tests run with (never a developer's .dev.vars): test/workers/support/tokens.ts names them. */
const TEST_SECRETS = {
  API_TOKENS: JSON.stringify([
    { name: "test-writer", token: "test-write-token-5c1f9a7e3b8d2f60a4c9e1b7", scopes: ["write"] },
    { name: "test-operator", token: "test-operator-token-8e2d4b6f0a1c3e5d7f9b2a4c", scopes: ["write", "purge"] },
    { name: "test-purger", token: "test-purge-token-3a7c9e1f5b2d8a4c6e0f1b3d", scopes: ["purge"] },
    { name: "test-backup", token: "test-backup-token-6d4f2b8e0c1a3f5e7b9d1c2a", scopes: ["backup"] },
    {
      name: "test-expired",
      token: "test-expired-token-9b1d3f5a7c2e4b6d8f0a1c3e",
      scopes: ["purge"],
      expires: "2020-01-01T00:00:00Z",
    },
  ]),
  SESSION_SECRET: "test-session-secret-4f8b2e6a0d3c7f1b5e9a2d6c8f0b3e7a",
};

interface Topology {
  queuePool: { min: number };
  regions: Record<string, { colos: string[]; tiers: Record<string, number> }>;
}

/** wrangler.toml's topology with one tier per region and one purge queue: 9 purge targets a write instead of 45. */
function smallTopology(): Topology {
  const full = unstable_readConfig({ config: "./wrangler.toml" }).vars["TOPOLOGY"] as unknown as Topology;
  const regions = Object.fromEntries(
    Object.entries(full.regions).map(([name, { colos, tiers }]) => [
      name,
      { colos, tiers: { [Object.keys(tiers)[0]!]: 1 } },
    ]),
  );
  return { ...full, queuePool: { ...full.queuePool, min: 1 }, regions };
}
const TEST_TOPOLOGY = smallTopology();

type Kind = "unit" | "integration" | "e2e" | "scale" | "bench";

interface WorkerdProject {
  kind: Kind;
  variant?: string;
  include: readonly string[];
  exclude?: readonly string[];
  /** One runtime per file (the default shares one per vitest worker). */
  fresh?: boolean;
  /** wrangler.toml's own topology rather than TEST_TOPOLOGY. */
  fullTopology?: boolean;
  corpus?: boolean;
  bindings?: Record<string, string>;
}

function workerd(p: WorkerdProject): TestProjectInlineConfiguration {
  const bindings = {
    ...TEST_SECRETS,
    // Development mode: the tests simulate colos with x-palimpsest-colo.
    ENVIRONMENT: "development",
    ...(p.fullTopology ? {} : { TOPOLOGY: TEST_TOPOLOGY }),
    ...p.bindings,
  };
  return {
    plugins: [cloudflareTest({ wrangler: { configPath: "./wrangler.toml" }, miniflare: { bindings } })],
    test: {
      name: `${p.kind}:workers${p.variant ? `-${p.variant}` : ""}`,
      include: [...p.include],
      exclude: [...(p.exclude ?? [])],
      isolate: p.fresh === true,
      ...(p.corpus ? { globalSetup: ["test/workers/support/corpus-setup.ts"] } : {}),
      testTimeout: 60_000,
      hookTimeout: 120_000,
    },
  };
}

function node(kind: Kind, timeouts: { testTimeout: number; hookTimeout: number }): TestProjectInlineConfiguration {
  return {
    test: {
      name: `${kind}:node`,
      include: [`test/node/**/*.${kind}.test.ts`],
      environment: "node",
      // A unit test is pure: starting a process throws (test/node/support/no-processes.ts).
      ...(kind === "unit" ? { setupFiles: ["test/node/support/no-processes.ts"] } : {}),
      ...timeouts,
    },
  };
}

const files = (kind: Kind) => `test/workers/**/*.${kind}.test.ts`;
const SPECIAL = [...FRESH_RUNTIME, ...FULL_TOPOLOGY, ...CORPUS_READERS, SHORT_GRACE];

/** The globs' files of one kind: a folder's (`dir/**`) or a named file if it is of that kind. */
const ofKind = (globs: readonly string[], kind: Kind) =>
  globs.flatMap((g) => (g.endsWith("/**") ? [`${g}/*.${kind}.test.ts`] : g.endsWith(`.${kind}.test.ts`) ? [g] : []));

/** A kind's workerd projects: shared runtime and small topology, full topology, fresh runtime (none left empty). */
function inWorkerd(kind: Kind): TestProjectInlineConfiguration[] {
  const variants: WorkerdProject[] = [
    { kind, include: [files(kind)], exclude: SPECIAL },
    { kind, variant: "topology", include: ofKind(FULL_TOPOLOGY, kind), exclude: FRESH_RUNTIME, fullTopology: true },
    { kind, variant: "fresh", include: ofKind(FRESH_RUNTIME, kind), fresh: true, fullTopology: true },
  ];
  // An empty include would mean vitest's default: every test file.
  return variants.filter((v) => v.include.length > 0).map(workerd);
}

export default defineConfig({
  test: {
    // Vitest's default on two cores is one file at a time; most files wait on
    // processes, timers and I/O as much as on the CPU, so two overlap well.
    maxWorkers: 2,
    projects: [
      ...inWorkerd("unit"),
      ...inWorkerd("integration"),
      workerd({
        kind: "integration",
        variant: "corpus",
        include: ofKind(CORPUS_READERS, "integration"),
        corpus: true,
        fresh: true,
        fullTopology: true,
      }),
      // As an operator would set it: blobs are collected a second after they die.
      workerd({
        kind: "integration",
        variant: "short-grace",
        include: [SHORT_GRACE],
        fresh: true,
        fullTopology: true,
        bindings: { ORPHAN_GRACE_SECONDS: "1" },
      }),
      // Scale tests measure what a runtime holds and how long it keeps up: each starts from a fresh one.
      workerd({ kind: "scale", include: [files("scale")], exclude: CORPUS_READERS, fresh: true, fullTopology: true }),
      workerd({
        kind: "scale",
        variant: "corpus",
        include: ofKind(CORPUS_READERS, "scale"),
        corpus: true,
        fresh: true,
        fullTopology: true,
      }),
      // Pure Node tests: no process, no server.
      node("unit", { testTimeout: 30_000, hookTimeout: 30_000 }),
      // Most node tests start processes (workerd, Chromium, reference tools, Python clients):
      // seconds of work each, slower still beside another heavy job. None may rely on the 5 s default.
      node("integration", { testTimeout: 120_000, hookTimeout: 300_000 }),
      node("e2e", { testTimeout: 120_000, hookTimeout: 300_000 }),
      node("scale", { testTimeout: 120_000, hookTimeout: 300_000 }),
      node("bench", { testTimeout: 120_000, hookTimeout: 300_000 }),
    ],
  },
});
