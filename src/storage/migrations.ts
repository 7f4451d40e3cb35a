/**
 * The one way a Durable Object's SQLite schema changes: a store lists its
 * migrations, numbered by their place in the list, and `migrate` runs those
 * not yet run, each in one transaction with the version it sets. The version
 * lives in a one-row `schema_version` table, because a Durable Object's
 * SQLite refuses `PRAGMA user_version` (SQLITE_AUTH).
 *
 * A store's list begins with its whole first schema, version 1: nothing was
 * deployed before it. To change a schema once it has been deployed, append a
 * migration; never edit one that has shipped.
 *
 * A store whose reads must create nothing uses {@link LazySchema}: the schema
 * is made on its first write, and a read that finds its tables brings them up
 * to date.
 *
 * @example
 * const MIGRATIONS: Migration[] = [
 *   "CREATE TABLE log (seq INTEGER PRIMARY KEY, event TEXT NOT NULL)",
 *   "ALTER TABLE log ADD COLUMN created_at INTEGER", // a later change, appended
 * ];
 * migrate(ctx.storage, MIGRATIONS); // 2; a second call runs nothing
 */

/** SQL to run as is, or a function for a change that must look first. */
export type Migration = string | ((sql: SqlStorage) => void);

const VERSION_TABLE =
  "CREATE TABLE IF NOT EXISTS schema_version (id INTEGER PRIMARY KEY CHECK (id = 1), version INTEGER NOT NULL)";

/** Whether any of these tables exists: a store asks before a read, so a read never creates a database. */
function hasSchema(sql: SqlStorage, tables: readonly string[]): boolean {
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

/** How many migrations have run (0 for a new database). */
function schemaVersion(sql: SqlStorage): number {
  if (!hasSchema(sql, [])) return 0;
  return sql.exec<{ version: number }>("SELECT version FROM schema_version WHERE id = 1").toArray()[0]?.version ?? 0;
}

/**
 * Runs the migrations past the database's version, in order, each in one transaction with its version; returns the
 * version reached.
 */
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

/**
 * The base of a store on a {@link LazySchema}: its database, and the schema its writes make first and its reads only
 * look for.
 *
 * @example
 * export class AuditStore extends LazySqlStore {
 *   constructor(storage: DurableObjectStorage) {
 *     super(storage, MIGRATIONS, ["audit"]);
 *   }
 * }
 */
export abstract class LazySqlStore {
  protected readonly sql: SqlStorage;
  protected readonly schema: LazySchema;

  protected constructor(storage: DurableObjectStorage, migrations: readonly Migration[], tables: readonly string[]) {
    this.sql = storage.sql;
    this.schema = new LazySchema(storage, migrations, tables);
  }
}
