/**
 * ESLint with type information, run by `npm run lint` (`eslint --config .ci/eslint.config.js`) and by .ci/run.
 * It lives under .ci/ because the top-level layout is fixed; given with --config, its patterns are relative
 * to the directory ESLint runs from (the repository root).
 *
 * The rule set is typescript-eslint's recommended-type-checked, with the rules that need the types made
 * explicit: no promise left floating or passed where a void callback is expected, and every switch over a
 * union covers each member (a new answer kind or export format cannot fall through unnoticed). Product code
 * gets all of it; tools and tests all but the few the last two blocks name.
 */
import { defineConfig } from "eslint/config";
import tseslint from "typescript-eslint";

export default defineConfig(
  {
    // Generated files: each rebuilds byte-identically from its generator (.prettierignore lists the same).
    ignores: ["src/codec/wasm/", "src/codec/dict/tables.generated.ts", "test/fixtures/codec/golden-vectors.ts"],
  },
  {
    files: ["**/*.ts", "**/*.tsx"],
    extends: [tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname + "/.." },
    },
    linterOptions: { reportUnusedDisableDirectives: "error" },
    rules: {
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/no-misused-promises": "error",
      // A leading underscore marks a value left out on purpose (a destructured field dropped, an argument a
      // signature requires); anything else unused is dead code.
      "@typescript-eslint/no-unused-vars": [
        "error",
        {
          argsIgnorePattern: "^_",
          varsIgnorePattern: "^_",
          caughtErrorsIgnorePattern: "^_",
          destructuredArrayIgnorePattern: "^_",
        },
      ],
      // The rule's default allows URL and URLSearchParams from TypeScript's lib; here they come from the Workers
      // and Node type packages instead, and print the same way.
      "@typescript-eslint/restrict-template-expressions": [
        "error",
        {
          allow: [
            { from: "package", package: "@cloudflare/workers-types", name: ["URL", "URLSearchParams"] },
            { from: "package", package: "@types/node", name: ["URL", "URLSearchParams"] },
          ],
        },
      ],
      "@typescript-eslint/switch-exhaustiveness-check": [
        "error",
        { considerDefaultExhaustiveForUnions: true, requireDefaultForNonUnion: false },
      ],
    },
  },
  {
    // Tools (src/tools: CLI, benchmarks, importer, local runner) keep every rule above but one: they hand a
    // harness's or a sampler's method on as a callback, written as a closure.
    files: ["src/tools/**"],
    rules: { "@typescript-eslint/unbound-method": "off" },
  },
  {
    // Tests and the test config keep every rule above, the promise and switch rules included, less these, which flag
    // their idioms more than faults: a harness's or a PRNG's method handed on as a callback, an async generator
    // standing in for a stream, JSON read back as `any` from a child process or wrangler's config, an unknown figure
    // printed in a failure message.
    files: ["test/**", "vitest.config.ts"],
    rules: {
      "@typescript-eslint/unbound-method": "off",
      "@typescript-eslint/require-await": "off",
      "@typescript-eslint/restrict-template-expressions": "off",
      "@typescript-eslint/no-unsafe-assignment": "off",
      "@typescript-eslint/no-unsafe-member-access": "off",
      "@typescript-eslint/no-unsafe-argument": "off",
      "@typescript-eslint/no-unsafe-return": "off",
      "@typescript-eslint/no-unsafe-call": "off",
    },
  },
);
