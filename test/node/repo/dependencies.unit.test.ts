/**
 * The architecture as docs/architecture.md states it, checked on
 * the source of every top-level folder (src/, workers/, durable-objects/ and
 * test/), type-only imports included: dependencies run one way between
 * those folders and between the folders inside them, src/ never imports the
 * Worker's routes or the Durable Object classes (the classes are shells over
 * src/, and the wire types live in src/), product
 * code never reaches into the tools (everything under src/tools/: the CLI,
 * the benchmarks, the importer, the dictionary trainer, the demo content and
 * the local-run helpers), and only the address book (src/bindings.ts) names or builds Durable Object stubs.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = resolve(import.meta.dirname, "../../..");
const PRODUCT = ["src", "workers", "durable-objects"];
const TOP = [...PRODUCT, "test"];
// Tools run on a developer's machine or in CI, never in the Worker bundle.
const TOOLS = ["src/tools"];

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sources(path) : /\.tsx?$/.test(name) && !name.endsWith(".d.ts") ? [path] : [];
  });
}

/** Relative imports (static and dynamic) and re-exports of a file, resolved to repository paths. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, "utf8");
  const stated = [...text.matchAll(/^(?:import|export)[^;]*?from\s+"(\.[^"]+)"/gms)].map((m) => m[1]!);
  const dynamic = [...text.matchAll(/\bimport\(\s*"(\.[^"]+)"\s*\)/g)].map((m) => m[1]!);
  return [...stated, ...dynamic].map((path) => relative(ROOT, resolve(dirname(file), path)));
}

/**
 * A file's folder: under src/ (`src/tiers`, or `src/tools/bench` for a
 * tool), under workers/ (`workers/middleware`, or `workers/routes/read` for a
 * route group), under test/ (`test/workers`), or the file itself for a
 * top-level folder's own files (`src/bindings.ts`).
 */
function folderOf(path: string): string {
  const parts = path.split("/");
  const depth =
    (parts[0] === "src" && parts[1] === "tools") || (parts[0] === "workers" && parts[1] === "routes") ? 3 : 2;
  return parts.length > depth ? parts.slice(0, depth).join("/") : path;
}

const topOf = (path: string) => path.split("/")[0]!;

const files = PRODUCT.flatMap((d) => sources(join(ROOT, d))).map((f) => relative(ROOT, f));
const everyFile = TOP.flatMap((d) => sources(join(ROOT, d))).map((f) => relative(ROOT, f));
const isTool = (path: string) => TOOLS.some((t) => path.startsWith(`${t}/`));
const isSource = (path: string) => TOP.includes(topOf(path));

/** The graph of `group(file) → group(import)` over every file, edges within a group left out. */
function graphOf(group: (path: string) => string): Map<string, Set<string>> {
  const edges = new Map<string, Set<string>>();
  for (const file of everyFile) {
    for (const target of importsOf(join(ROOT, file)).filter(isSource)) {
      const [a, b] = [group(file), group(target)];
      if (a !== b) edges.set(a, (edges.get(a) ?? new Set()).add(b));
    }
  }
  return edges;
}

/** Every cycle a depth-first walk meets, as `a → b → a`. */
function cyclesIn(edges: Map<string, Set<string>>): string[] {
  const cycles: string[] = [];
  const state = new Map<string, "open" | "done">();
  const path: string[] = [];
  const visit = (node: string) => {
    state.set(node, "open");
    path.push(node);
    for (const next of edges.get(node) ?? []) {
      if (state.get(next) === "open") cycles.push([...path.slice(path.indexOf(next)), next].join(" → "));
      else if (!state.has(next)) visit(next);
    }
    path.pop();
    state.set(node, "done");
  };
  for (const node of edges.keys()) if (!state.has(node)) visit(node);
  return cycles;
}

describe("source dependencies", () => {
  it("run one way between the top-level folders", () => {
    const edges = graphOf(topOf);
    expect(cyclesIn(edges)).toEqual([]);
    // The walk saw the folders: the Worker and the tests reach the classes, the classes reach src/.
    expect([...(edges.get("durable-objects") ?? [])]).toEqual(["src"]);
  });

  it("run one way between the folders inside every top-level folder, src/ and its tools included", () => {
    expect(cyclesIn(graphOf(folderOf))).toEqual([]);
  });

  it("never take src/ into workers/ or durable-objects/", () => {
    const reaching = everyFile
      .filter((f) => f.startsWith("src/"))
      .flatMap((f) =>
        importsOf(join(ROOT, f))
          .filter((t) => t.startsWith("workers/") || t.startsWith("durable-objects/"))
          .map((t) => `${f} → ${t}`),
      );
    expect(reaching).toEqual([]);
  });

  it("never take product code into the tools", () => {
    const reaching = files
      .filter((f) => !isTool(f))
      .flatMap((f) =>
        importsOf(join(ROOT, f))
          .filter(isTool)
          .map((t) => `${f} → ${t}`),
      );
    expect(reaching).toEqual([]);
  });

  it("keep the public pages and the dashboard apart: what both use is in the UI kit (src/ui)", () => {
    const areas = {
      public: ["src/browse/", "workers/routes/browse/"],
      dashboard: ["src/dashboard/", "workers/routes/dashboard/"],
    };
    const inArea = (path: string, area: readonly string[]) => area.some((prefix) => path.startsWith(prefix));
    const crossing = files.flatMap((f) => {
      const other = inArea(f, areas.public) ? areas.dashboard : inArea(f, areas.dashboard) ? areas.public : null;
      if (other === null) return [];
      return importsOf(join(ROOT, f))
        .filter((t) => inArea(t, other))
        .map((t) => `${f} → ${t}`);
    });
    expect(crossing).toEqual([]);
    // The walk saw both areas take the kit.
    const kitUsers = files.filter((f) => importsOf(join(ROOT, f)).some((t) => t.startsWith("src/ui/")));
    expect(kitUsers.some((f) => inArea(f, areas.public))).toBe(true);
    expect(kitUsers.some((f) => inArea(f, areas.dashboard))).toBe(true);
  });

  it("name and build Durable Object stubs only in the address book", () => {
    const stubbing = files.filter(
      (f) =>
        f !== "src/bindings.ts" && /\b(getByName|idFromName|newUniqueId)\(/.test(readFileSync(join(ROOT, f), "utf8")),
    );
    expect(stubbing).toEqual([]);
  });
});
