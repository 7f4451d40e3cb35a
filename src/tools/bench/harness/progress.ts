/**
 * Progress lines for a long bench run: a line at most every few seconds, so
 * a run of thousands of steps says where it is without flooding its log.
 * The line is built only when it is printed.
 *
 * @example
 * const progress = throttledLog(log);
 * for (const r of revisions) progress(() => `${done}/${revisions.length} revisions`);
 */
export function throttledLog(log: (line: string) => void, everyMs = 5000): (line: () => string) => void {
  let last = performance.now();
  return (line) => {
    if (performance.now() - last < everyMs) return;
    last = performance.now();
    log(line());
  };
}
