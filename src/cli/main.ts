/**
 * `palimpsest`: the developer's command line. Each subcommand lives in
 * `./commands/` and registers itself on the program.
 *
 * @example
 * npx palimpsest codec compress --codec br --quality 9 < page.html > page.html.br
 */
import { Command, CommanderError } from "commander";
import { registerCodecCommands } from "./commands/codec.ts";
import { registerBenchCommands } from "./commands/bench.ts";
import { registerDevCommand } from "./commands/dev.ts";
import { registerImportCommand } from "./commands/import.ts";
import { fail, UsageError } from "./output.ts";
import pkg from "../../package.json" with { type: "json" };

const program = new Command("palimpsest")
  .description("Palimpsest: an edge archive of page revisions")
  .version(pkg.version)
  .showHelpAfterError()
  .exitOverride();

registerDevCommand(program);
registerCodecCommands(program);
registerImportCommand(program);
registerBenchCommands(program);

try {
  await program.parseAsync(process.argv);
} catch (err) {
  if (err instanceof CommanderError) {
    process.exit(err.exitCode);
  }
  fail(err, err instanceof UsageError ? 2 : 1);
}
