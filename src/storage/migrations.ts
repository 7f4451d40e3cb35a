/**
 * The one way a Durable Object's SQLite schema changes: a store lists its
 * migrations, numbered by their place in the list, and `migrate` runs those
 * not yet run, each in one transaction with the version it sets. The version
 * lives in a one-row `schema_version` table, because a Durable Object's
 * SQLite refuses `PRAGMA user_version` (SQLITE_AUTH).
 *
 * Rules for a store's list: never edit a migration that has shipped, append
 * the next. A store whose tables predate numbering starts at version 0, so
 * its first migrations must be idempotent (`CREATE TABLE IF NOT EXISTS`,
 * {@link addColumn}) to land it at the right version whatever it held.
 *
 * A store whose reads must create nothing asks {@link hasSchema} first and
 * migrates only on its first write (or when an older database is found).
 *
 * @example
 * const MIGRATIONS: Migration[] = [
 *   "CREATE TABLE IF NOT EXISTS log (seq INTEGER PRIMARY KEY, event TEXT NOT NULL)",
 *   (sql) => addColumn(sql, "log", "created_at", "INTEGER"),
 * ];
 * migrate(ctx.storage, MIGRATIONS); // 2; a second call runs nothing
 */

/** SQL to run as is, or a function for a change that must look first. */
export type Migration = string | ((sql: SqlStorage) => void);

const VERSION_TABLE =
  "CREATE TABLE IF NOT EXISTS schema_version (id INTEGER PRIMARY KEY CHECK (id = 1), version INTEGER NOT NULL)";

/** Whether any of these tables exists: a store asks before a read, so a read never creates a database. */
export function hasSchema(sql: SqlStorage, tables: readonly string[]): boolean {
  const names = ["schema_version", ...tables];
  return (
    sql
      .exec(
        `SELECT 1 FROM sqlite_master WHERE type = 'table' AND name IN (${names.map(() => "?").join(", ")}) LIMIT 1`,
        ...names,
      )
      .toArray().length > 0
  );
}

/** How many migrations have run (0 for a database that never counted). */
export function schemaVersion(sql: SqlStorage): number {
  const columns = sql
    .exec<{ name: string }>("SELECT name FROM pragma_table_info('schema_version')")
    .toArray()
    .map((c) => c.name);
  if (columns.length === 0) return 0;
  // The dashboard sessions' first form of the table, one column `v`: rewritten to this one, keeping the count.
  if (!columns.includes("version")) {
    const v = sql.exec<{ v: number }>("SELECT v FROM schema_version").toArray()[0]?.v ?? 0;
    sql.exec("DROP TABLE schema_version");
    sql.exec(VERSION_TABLE);
    sql.exec("INSERT INTO schema_version (id, version) VALUES (1, ?)", v);
    return v;
  }
  return sql.exec<{ version: number }>("SELECT version FROM schema_version WHERE id = 1").toArray()[0]?.version ?? 0;
}

/** Runs the migrations past the database's version, in order, each in one transaction with its version; returns the version reached. */
export function migrate(storage: DurableObjectStorage, migrations: readonly Migration[]): number {
  const sql = storage.sql;
  const at = storage.transactionSync(() => {
    const version = schemaVersion(sql);
    sql.exec(VERSION_TABLE);
    sql.exec("INSERT OR IGNORE INTO schema_version (id, version) VALUES (1, ?)", version);
    return version;
  });
  for (let v = at; v < migrations.length; v++) {
    storage.transactionSync(() => {
      const step = migrations[v]!;
      if (typeof step === "string") sql.exec(step);
      else step(sql);
      sql.exec("UPDATE schema_version SET version = ? WHERE id = 1", v + 1);
    });
  }
  return Math.max(at, migrations.length);
}

/** `ALTER TABLE … ADD COLUMN`, unless the column is there: SQLite has no IF NOT EXISTS for columns. */
export function addColumn(sql: SqlStorage, table: string, column: string, declaration: string): void {
  if (sql.exec("SELECT 1 FROM pragma_table_info(?) WHERE name = ?", table, column).toArray().length > 0) return;
  sql.exec(`ALTER TABLE ${table} ADD COLUMN ${column} ${declaration}`);
}

/**
 * The schema of a store whose reads must create nothing (a directory shard, the audit log, a purge
 * queue): made or migrated on the first write, or on the first read of a database that already has
 * one of `tables`, and remembered for the object's life.
 *
 * @example
 * const schema = new LazySchema(storage, MIGRATIONS, ["audit"]);
 * if (!schema.exists()) return { entries: [] };   // a read
 * schema.create();                                 // before a write
 */
export class LazySchema {
  readonly #storage: DurableObjectStorage;
  readonly #migrations: readonly Migration[];
  readonly #tables: readonly string[];
  #ready = false;

  constructor(storage: DurableObjectStorage, migrations: readonly Migration[], tables: readonly string[]) {
    this.#storage = storage;
    this.#migrations = migrations;
    this.#tables = tables;
  }

  /** Whether the store was ever written (migrating it if so); creates nothing otherwise. */
  exists(): boolean {
    if (!this.#ready && hasSchema(this.#storage.sql, this.#tables)) this.create();
    return this.#ready;
  }

  /** Makes or migrates the schema, once: before a write. */
  create(): void {
    if (this.#ready) return;
    migrate(this.#storage, this.#migrations);
    this.#ready = true;
  }
}
