/**
 * The one backoff: exponential with full jitter, so retries from many
 * callers spread out instead of arriving together.
 *
 * @example
 * await sleep(backoffMs(attempt, 100, 30_000));
 */
export function backoffMs(attempt: number, baseMs: number, maxMs: number): number {
  return Math.random() * Math.min(maxMs, baseMs * 2 ** attempt);
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
