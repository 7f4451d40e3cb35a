/**
 * Setup for the `unit:node` project: a unit test is pure, so it starts no process. Every way
 * `node:child_process` starts one throws here, naming the test's kind; a test that needs a tool,
 * a server or a browser is an integration or e2e test (docs/development.md).
 */
import childProcess from "node:child_process";
import { syncBuiltinESMExports } from "node:module";

const STARTERS = ["spawn", "spawnSync", "exec", "execSync", "execFile", "execFileSync", "fork"] as const;

for (const name of STARTERS) {
  Object.defineProperty(childProcess, name, {
    configurable: true,
    writable: true,
    value: (command: unknown) => {
      throw new Error(
        `a unit test starts no process (child_process.${name}(${JSON.stringify(command)})): ` +
          "name the file .integration.test.ts, or .e2e.test.ts if it drives the whole system",
      );
    },
  });
}
// ES module imports of node:child_process see the same functions.
syncBuiltinESMExports();
