import { cloudflareTest } from "@cloudflare/vitest-pool-workers";
import { defineConfig } from "vitest/config";

/**
 * Three projects, all run by `npm test` (`vitest run`):
 * - `workers`: tests under test/workers/ run inside workerd, against the
 *   Worker and bindings from wrangler.toml (which also enables the .wasm rule).
 * - `workers-short-grace`: the one test of the orphan grace setting, in its own
 *   workerd with a one-second ORPHAN_GRACE_SECONDS, as an operator would set it.
 * - `node`: tests under test/node/ run in Node (CLI, interop with native tools).
 *
 * A test file is named `<behaviour>.<kind>.test.ts`, kind one of unit,
 * integration, e2e, scale, bench (docs/development.md says what each means);
 * `npm run test:<kind>` runs one kind, `npm run test:fast` the inner loop.
 * test/node/repo/test-layout.unit.test.ts checks the names and folders.
 */
/** The orphan grace test runs in a workerd of its own (see above). */
const SHORT_GRACE = "test/workers/storage/orphan-grace-setting.integration.test.ts";
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

export default defineConfig({
  test: {
    // Vitest's default on two cores is one file at a time; most files wait on
    // processes, timers and I/O as much as on the CPU, so two overlap well.
    maxWorkers: 2,
    projects: [
      {
        plugins: [
          cloudflareTest({
            wrangler: { configPath: "./wrangler.toml" },
            // Tests must not depend on a developer's .dev.vars.
            // Development mode: the tests simulate colos with x-palimpsest-colo.
            miniflare: { bindings: { ...TEST_SECRETS, ENVIRONMENT: "development" } },
          }),
        ],
        test: {
          name: "workers",
          include: ["test/workers/**/*.test.ts"],
          exclude: [SHORT_GRACE],
          globalSetup: ["test/workers/support/corpus-setup.ts"],
          testTimeout: 60_000,
          hookTimeout: 120_000,
        },
      },
      {
        plugins: [
          cloudflareTest({
            wrangler: { configPath: "./wrangler.toml" },
            // Tests must not depend on a developer's .dev.vars.
            // As an operator would set it: blobs are collected a second after they die.
            miniflare: { bindings: { ...TEST_SECRETS, ENVIRONMENT: "development", ORPHAN_GRACE_SECONDS: "1" } },
          }),
        ],
        test: {
          name: "workers-short-grace",
          include: [SHORT_GRACE],
          testTimeout: 60_000,
          hookTimeout: 120_000,
        },
      },
      {
        test: {
          name: "node",
          include: ["test/node/**/*.test.ts"],
          environment: "node",
          // Most node tests start processes (workerd, Chromium, reference tools, Python clients):
          // seconds of work each, slower still beside another heavy job. None may rely on the 5 s default.
          testTimeout: 120_000,
          hookTimeout: 300_000,
        },
      },
    ],
  },
});
