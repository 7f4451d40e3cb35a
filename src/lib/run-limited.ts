/**
 * The one worker pool: runs `job` over `items` with at most `limit` in
 * flight, as an invocation's connection limit (and a benchmark's chosen
 * concurrency) demands. Items start in order; each job learns its index.
 *
 * @example
 * await runLimited(targets, 6, async (target, i) => deliver(target, i));
 */
export async function runLimited<T>(
  items: readonly T[],
  limit: number,
  job: (item: T, index: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      await job(items[i]!, i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(Math.max(1, limit), items.length) }, worker));
}
