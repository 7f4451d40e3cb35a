/**
 * A PageStore shard's schema (src/page-store/schema.ts) is made whole on the
 * shard's first write, at version 1 of its numbered migrations, and a
 * restart of the object runs none of them again.
 */
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { PageStore } from "../../../durable-objects/page-store.ts";
import { appendOk, linearHistory } from "../support/archive.ts";
import { shardStub } from "../support/page-shards.ts";

describe("a shard's schema", () => {
  it("starts at version 1 with its indexes and opens again without running a migration", async () => {
    const key = "Shard_schema_store";
    await appendOk(key, linearHistory(2));
    const opened = await runInDurableObject(shardStub(key), (_: PageStore, state) => {
      const sql = state.storage.sql;
      const version = () => sql.exec<{ version: number }>("SELECT version FROM schema_version").one().version;
      const first = version();
      new PageStore(state, env);
      return {
        first,
        again: version(),
        index: sql.exec("SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = 'revs_by_effective'").toArray()
          .length,
      };
    });
    expect(opened).toEqual({ first: 1, again: 1, index: 1 });
  });
});
