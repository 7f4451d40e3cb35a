/**
 * Concurrent asks for one key share one piece of work: the first starts it,
 * the rest join it while it runs, and once it settles (either way) the next
 * ask starts afresh. What is kept after that is the caller's cache, not this.
 *
 * @example
 * const fills = new SingleFlight<string, Answer>();
 * const answer = await fills.run(key, () => fetchFromBelow(key));
 */
export class SingleFlight<K, V> {
  readonly #running = new Map<K, Promise<V>>();

  /** Whether work for `key` is under way (an ask now would join it). */
  has(key: K): boolean {
    return this.#running.has(key);
  }

  /** The work under way for `key`, or `start()`'s, shared until it settles. */
  run(key: K, start: () => Promise<V>): Promise<V> {
    let running = this.#running.get(key);
    if (!running) {
      running = start().finally(() => this.#running.delete(key));
      this.#running.set(key, running);
    }
    return running;
  }
}
