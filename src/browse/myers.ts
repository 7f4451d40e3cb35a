/**
 * Myers' O((N + M) · D) diff ("An O(ND) Difference Algorithm and Its
 * Variations", 1986) over tokens interned as numbers, counting every step
 * against a caller's budget. Here rather than jsdiff's because jsdiff's
 * inner loop allocates a path object per diagonal and keeps them in an
 * array indexed by negative numbers: about 1 µs a step in workerd, against
 * a few nanoseconds here, so a budget measured in steps is also one in CPU
 * time. A step is one diagonal visited or one pair of tokens compared.
 *
 * @example
 * const budget = { steps: 1_000 };
 * diffIds(Int32Array.of(1, 2, 3), Int32Array.of(1, 4, 3), 10, budget);
 * // [{ count: 1 }, { count: 1, removed: true }, { count: 1, added: true }, { count: 1 }]
 */

/** A run of tokens: kept (neither flag), removed from the old sequence, or added from the new one. */
export interface Edit {
  count: number;
  added?: true;
  removed?: true;
}

/** Steps left to spend; the diff lowers it as it goes, across every call that shares it. */
export interface StepBudget {
  steps: number;
}

/**
 * The shortest edit script from `a` to `b`, removals before additions in each
 * changed run; `undefined` when it takes more than `maxEdits` insertions and
 * deletions, `"spent"` when the budget runs out first.
 */
export function diffIds(a: Int32Array, b: Int32Array, maxEdits: number, budget: StepBudget): Edit[] | undefined | "spent" {
  const [n, m] = [a.length, b.length];
  const max = Math.min(n + m, maxEdits);
  const offset = max + 1;
  const v = new Int32Array(2 * max + 3);
  // trace[d] holds v[-d..d] as round d left it: what backtracking needs.
  const trace: Int32Array[] = [];
  for (let d = 0; d <= max; d++) {
    for (let k = -d; k <= d; k += 2) {
      let x = k === -d || (k !== d && v[offset + k - 1]! < v[offset + k + 1]!) ? v[offset + k + 1]! : v[offset + k - 1]! + 1;
      let y = x - k;
      const start = x;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      // Counted per diagonal, so one round of long snakes cannot overrun the budget by more than one snake.
      budget.steps -= x - start + 1;
      if (budget.steps < 0) return "spent";
      v[offset + k] = x;
      if (x >= n && y >= m) {
        trace.push(v.slice(offset - d, offset + d + 1));
        return backtrack(trace, n, m);
      }
    }
    trace.push(v.slice(offset - d, offset + d + 1));
  }
  return undefined;
}

/** Walks the trace back from (n, m) to (0, 0), then orders each changed run removals first. */
function backtrack(trace: Int32Array[], n: number, m: number): Edit[] {
  const steps: Array<"keep" | "add" | "del"> = [];
  let [x, y] = [n, m];
  for (let d = trace.length - 1; d > 0; d--) {
    const prev = trace[d - 1]!;
    const at = (k: number) => prev[k + d - 1]!;
    const k = x - y;
    const down = k === -d || (k !== d && at(k - 1) < at(k + 1));
    const prevK = down ? k + 1 : k - 1;
    const prevX = at(prevK);
    const prevY = prevX - prevK;
    const snakeStart = down ? prevX : prevX + 1;
    for (; x > snakeStart; x--) steps.push("keep");
    steps.push(down ? "add" : "del");
    [x, y] = [prevX, prevY];
  }
  for (; x > 0; x--) steps.push("keep");
  steps.reverse();

  const edits: Edit[] = [];
  let [removed, added] = [0, 0];
  const flush = () => {
    if (removed > 0) edits.push({ count: removed, removed: true });
    if (added > 0) edits.push({ count: added, added: true });
    removed = added = 0;
  };
  for (const step of steps) {
    if (step === "del") removed++;
    else if (step === "add") added++;
    else {
      flush();
      const last = edits[edits.length - 1];
      if (last && !last.added && !last.removed) last.count++;
      else edits.push({ count: 1 });
    }
  }
  flush();
  return edits;
}
