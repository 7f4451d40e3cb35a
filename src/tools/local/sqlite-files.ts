/**
 * SQLite databases on disk (a local wiki's, a local Worker's Durable
 * Objects'), read through PHP's PDO: Node 20 has no SQLite of its own, and
 * PHP with pdo_sqlite is what the local MediaWiki needs anyway
 * (.ci/pretest installs php-cli and php-sqlite3).
 *
 * Sizes are read as `PRAGMA page_count` × `PRAGMA page_size` on a read-only
 * connection: what `ctx.storage.sql.databaseSize` says of a Durable Object's
 * database, its write-ahead log's commits included. A file's own size says
 * less (workerd leaves commits in the `-wal` file when it stops), and a
 * read-only connection checkpoints nothing, so the files stay as they were.
 *
 * @example
 * const rows = await sqliteQuery<{ n: number }>("wiki.sqlite", "SELECT COUNT(*) AS n FROM revision");
 * const sizes = await sqliteDatabaseBytes(["a.sqlite", "b.sqlite"]); // Map { "a.sqlite" => 61440, ... }
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";

const run = promisify(execFile);

/** A PDO connection to argv[1] that never writes. */
const OPEN_READ_ONLY =
  "function open($f) { $db = new PDO('sqlite:' . $f, null, null, [PDO::SQLITE_ATTR_OPEN_FLAGS => PDO::SQLITE_OPEN_READONLY]);" +
  " $db->setAttribute(PDO::ATTR_ERRMODE, PDO::ERRMODE_EXCEPTION); return $db; }";

/** One statement's rows as JSON: argv[1] the database, argv[2] the SQL. */
const QUERY_PHP = `${OPEN_READ_ONLY} echo json_encode(open($argv[1])->query($argv[2])->fetchAll(PDO::FETCH_ASSOC), JSON_INVALID_UTF8_SUBSTITUTE);`;

/** Each database's bytes as a JSON list, in the order of argv[1..]. */
const SIZES_PHP =
  `${OPEN_READ_ONLY} $out = []; foreach (array_slice($argv, 1) as $f) { $db = open($f);` +
  " $out[] = $db->query('PRAGMA page_count')->fetchColumn() * $db->query('PRAGMA page_size')->fetchColumn(); $db = null; }" +
  " echo json_encode($out);";

const MAX_OUTPUT = 256 * 1024 * 1024;

/** The rows of one read-only statement (text columns as strings; numbers as PDO gives them). */
export async function sqliteQuery<Row = Record<string, unknown>>(file: string, sql: string): Promise<Row[]> {
  const { stdout } = await run("php", ["-r", QUERY_PHP, "--", file, sql], { maxBuffer: MAX_OUTPUT });
  return JSON.parse(stdout) as Row[];
}

/** Each database's size in bytes (page_count × page_size), by file. */
export async function sqliteDatabaseBytes(files: readonly string[]): Promise<Map<string, number>> {
  const sizes = new Map<string, number>();
  // A few hundred paths per PHP process keeps each command line far below the system's limit.
  for (let i = 0; i < files.length; i += 500) {
    const batch = files.slice(i, i + 500);
    const { stdout } = await run("php", ["-r", SIZES_PHP, "--", ...batch], { maxBuffer: MAX_OUTPUT });
    const bytes = JSON.parse(stdout) as number[];
    batch.forEach((file, j) => sizes.set(file, Number(bytes[j])));
  }
  return sizes;
}
