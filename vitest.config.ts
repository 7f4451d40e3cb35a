import { cloudflareTest } from "@cloudflare/vitest-pool-workers";
import { defineConfig } from "vitest/config";

/**
 * Two projects, both run by `npm test` (`vitest run`):
 * - `workers`: tests under test/workers/ run inside workerd, against the edge
 *   worker and bindings from wrangler.toml (which also enables the .wasm rule).
 * - `node`: tests under test/node/ run in Node (CLI, interop with native tools).
 */
export default defineConfig({
  test: {
    projects: [
      {
        plugins: [
          cloudflareTest({
            wrangler: { configPath: "./wrangler.toml" },
            // Tests must not depend on a developer's .dev.vars.
            // Development mode: the tests simulate colos with x-palimpsest-colo.
            miniflare: { bindings: { WRITE_TOKENS: "test-write-token", ENVIRONMENT: "development" } },
          }),
        ],
        test: {
          name: "workers",
          include: ["test/workers/**/*.test.ts"],
          globalSetup: ["test/workers/support/corpus-setup.ts"],
          testTimeout: 60_000,
        },
      },
      {
        test: {
          name: "node",
          include: ["test/node/**/*.test.ts"],
          environment: "node",
        },
      },
    ],
  },
});
