/**
 * `bench store --worker-from`: which checkout's Worker a before/after run
 * bundles. A git revision is written out whole (its wrangler.toml and
 * sources as committed) with node_modules a symlink to this checkout's, and
 * removed again; a folder is used as it is; anything else is refused.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, readlinkSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { workerSource } from "../../../../src/tools/bench/store/worker-source.ts";

const REPO = fileURLToPath(new URL("../../../../", import.meta.url));
const git = (...args: string[]) => execFileSync("git", ["-C", REPO, ...args], { encoding: "utf8" });

describe("workerSource", () => {
  it("writes out a git revision's tree with this checkout's node_modules, and removes it on dispose", async () => {
    const commit = git("rev-parse", "HEAD~1").trim();
    const source = await workerSource(commit.slice(0, 10));
    try {
      expect(source.commit).toBe(commit);
      expect(readFileSync(join(source.root, "wrangler.toml"), "utf8")).toBe(git("show", `${commit}:wrangler.toml`));
      expect(readFileSync(join(source.root, "package.json"), "utf8")).toBe(git("show", `${commit}:package.json`));
      expect(readlinkSync(join(source.root, "node_modules"))).toBe(join(REPO, "node_modules"));
    } finally {
      source.dispose();
    }
    expect(existsSync(source.root)).toBe(false);
  });

  it("takes a folder holding a checkout as it is, with its commit", async () => {
    const source = await workerSource(REPO);
    source.dispose();
    expect(source.root).toBe(REPO.replace(/\/$/, ""));
    expect(source.commit).toBe(git("rev-parse", "HEAD").trim());
    expect(existsSync(join(REPO, "wrangler.toml"))).toBe(true);
  });

  it("refuses what is neither a folder nor a revision", async () => {
    await expect(workerSource("no-such-revision-or-folder")).rejects.toThrow(/neither a folder nor a git revision/);
  });
});
