/**
 * Purge marks: what operator purges leave in a tier. A mark says "whatever
 * matches this selector and was produced by the origin before `at` is gone"
 * (hard) or "…is stale: serve it only while revalidating" (soft). Marks are
 * times, not deletions, so a tier that refills from a tier below that has
 * not caught up yet still refuses the old copy; and like floors they only
 * rise, so applying purges twice, or two queues' purges in either order,
 * gives the same result.
 *
 * Selectors: `all`; `key:<cache key>`; `tag:<cache tag>`; `prefix:<key
 * prefix>`. Prefixes match at path segments, as Cloudflare's purge by
 * prefix does (`/page/A` covers `/page/A`, `/page/A/12`, `/page/A?at=…`,
 * never `/page/AB`), so an entry has a handful of candidate prefixes and
 * checking one is a few map lookups, however many marks there are.
 */

import { variantBase } from "./cache-key.ts";

export interface Marked {
  key: string;
  tags: readonly string[];
  /** When the origin produced it (ms). */
  storedAt: number;
}

export type Verdict = "fresh" | "stale" | "purged";

export interface Mark {
  /** Produced before this (ms): gone. 0 for none. */
  hard: number;
  /** Produced before this (ms): stale, served only while revalidating. 0 for none. */
  soft: number;
}

export const ALL = "all";

/** The key's path prefixes at each `/` and before its query: `/page/A/1` → `/page`, `/page/A`, `/page/A/1`. */
export function pathPrefixes(key: string): string[] {
  const path = key.split("?", 1)[0]!;
  const out: string[] = [];
  for (let i = path.indexOf("/", 1); i !== -1; i = path.indexOf("/", i + 1)) out.push(path.slice(0, i));
  out.push(path);
  return out;
}

/** Every selector that can match an entry; a revision's dcb variant also answers to the revision's own key. */
export function selectorsOf(entry: Pick<Marked, "key" | "tags">): string[] {
  const base = variantBase(entry.key);
  return [
    ALL,
    `key:${entry.key}`,
    ...(base === undefined ? [] : [`key:${base}`]),
    ...entry.tags.map((t) => `tag:${t}`),
    ...pathPrefixes(entry.key).map((p) => `prefix:${p}`),
  ];
}

export class PurgeMarks {
  readonly #marks: Map<string, Mark>;

  constructor(marks: Iterable<[string, Mark]> = []) {
    this.#marks = new Map(marks);
  }

  get size(): number {
    return this.#marks.size;
  }

  get(selector: string): Mark | undefined {
    return this.#marks.get(selector);
  }

  entries(): IterableIterator<[string, Mark]> {
    return this.#marks.entries();
  }

  verdict(entry: Marked): Verdict {
    let stale = false;
    for (const selector of selectorsOf(entry)) {
      const mark = this.#marks.get(selector);
      if (!mark) continue;
      if (entry.storedAt < mark.hard) return "purged";
      if (entry.storedAt < mark.soft) stale = true;
    }
    return stale ? "stale" : "fresh";
  }

  /** Raises a selector's mark; returns the mark if it changed. */
  raise(selector: string, at: number, soft: boolean): Mark | undefined {
    const current = this.#marks.get(selector) ?? { hard: 0, soft: 0 };
    const next = soft
      ? { hard: current.hard, soft: Math.max(current.soft, at) }
      : { hard: Math.max(current.hard, at), soft: current.soft };
    if (next.hard === current.hard && next.soft === current.soft) return undefined;
    this.#marks.set(selector, next);
    return next;
  }

  /**
   * Keeps at most `max` marks: the oldest are folded into `all`, which then
   * forgets everything they covered and more. Over-purging is safe;
   * forgetting a mark is not.
   */
  fold(max: number): { removed: string[]; all: Mark } | undefined {
    if (this.#marks.size <= max) return undefined;
    const newest = (m: Mark) => Math.max(m.hard, m.soft);
    const oldest = [...this.#marks].filter(([s]) => s !== ALL).sort((a, b) => newest(a[1]) - newest(b[1]));
    const removed = oldest.slice(0, this.#marks.size - Math.floor(max * 0.75));
    let all = this.#marks.get(ALL) ?? { hard: 0, soft: 0 };
    for (const [selector, mark] of removed) {
      all = { hard: Math.max(all.hard, mark.hard), soft: Math.max(all.soft, mark.soft) };
      this.#marks.delete(selector);
    }
    this.#marks.set(ALL, all);
    return { removed: removed.map(([s]) => s), all };
  }
}
