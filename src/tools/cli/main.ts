/**
 * `palimpsest`: the developer's command line. Each subcommand lives in
 * `./commands/` and registers itself on the program.
 *
 * Exit codes: 0 success (and `--help`, `--version`), 1 bad input or a failed
 * operation, 2 bad usage, whether commander or our own checks caught it.
 *
 * @example
 * npx palimpsest codec compress --codec br --quality 9 < page.html > page.html.br
 */
import { Command, CommanderError } from "commander";
import { registerCodecCommands } from "./commands/codec.ts";
import { registerDevCommand } from "./commands/dev.ts";
import { registerDictCommands } from "./commands/dict.ts";
import { registerExportCommand } from "./commands/export.ts";
import { registerFollowCommand } from "./commands/follow.ts";
import { registerImportCommand } from "./commands/import.ts";
import { fail, UsageError } from "../local/output.ts";
import pkg from "../../../package.json" with { type: "json" };

const program = new Command("palimpsest")
  .description("Palimpsest: an edge archive of page revisions")
  .version(pkg.version)
  .showHelpAfterError()
  .exitOverride();

/** The command a command line asks for (`help X` asks for X). The root takes no option values, so it is the first word not starting with `-`. */
function requestedCommand(args: readonly string[]): string | undefined {
  const words = args.filter((a) => !a.startsWith("-"));
  return words[0] === "help" ? words[1] : words[0];
}

registerDevCommand(program);
registerCodecCommands(program);
registerImportCommand(program);
registerExportCommand(program);
registerFollowCommand(program);
registerDictCommands(program);
// The bench commands live with the benches (src/tools/bench/commands/), which build
// on this folder's archive client and local Worker, so src/tools/bench depends on
// src/tools/cli and not back: the program plugs them in only when asked for, which
// also spares every other command their load time. A stand-in keeps `bench` in `--help`.
if (requestedCommand(process.argv.slice(2)) === "bench") {
  const { registerBenchCommands } = await import("../bench/commands/index.ts");
  registerBenchCommands(program);
} else {
  program.command("bench").description("measure the archive's building blocks");
}

try {
  await program.parseAsync(process.argv);
} catch (err) {
  if (err instanceof CommanderError) {
    // commander has printed the help, the version or its error already. Its
    // parse errors (unknown option or command, bad choice, missing mandatory
    // option) carry exit code 1; bad usage is 2 here, as for UsageError.
    process.exit(err.exitCode === 0 ? 0 : 2);
  }
  fail(err, err instanceof UsageError ? 2 : 1);
}
