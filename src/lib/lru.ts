/**
 * The one LRU: a Map kept in use order, bounded by a total cost (bytes, or 1
 * per entry). Every in-memory cache in the project is one of these.
 *
 * @example
 * const lru = new Lru<string, Uint8Array>(1 << 20, (v) => v.byteLength);
 * lru.set("a", bytes);
 * lru.get("a"); // bytes, now the most recently used
 */
export class Lru<K, V> {
  readonly #items = new Map<K, { value: V; cost: number }>();
  #total = 0;

  /** `onEvict` hears of entries pushed out for room, for values that hold something to free. */
  constructor(
    private readonly maxCost: number,
    private readonly costOf: (value: V) => number = () => 1,
    private readonly onEvict?: (key: K, value: V) => void,
  ) {}

  /** Total cost of what is held. */
  get cost(): number {
    return this.#total;
  }

  get size(): number {
    return this.#items.size;
  }

  get(key: K): V | undefined {
    const item = this.#items.get(key);
    if (!item) return undefined;
    this.#items.delete(key);
    this.#items.set(key, item);
    return item.value;
  }

  /** Stores the value unless it alone costs more than the whole cache; evicts the least recently used. */
  set(key: K, value: V): void {
    this.delete(key);
    const cost = this.costOf(value);
    if (cost > this.maxCost) return;
    this.#items.set(key, { value, cost });
    this.#total += cost;
    for (const [oldest, item] of this.#items) {
      if (this.#total <= this.maxCost) break;
      this.#items.delete(oldest);
      this.#total -= item.cost;
      this.onEvict?.(oldest, item.value);
    }
  }

  delete(key: K): void {
    const item = this.#items.get(key);
    if (item) {
      this.#items.delete(key);
      this.#total -= item.cost;
    }
  }

  /** Drops every entry the predicate selects. */
  deleteWhere(predicate: (key: K, value: V) => boolean): void {
    for (const [key, item] of this.#items) if (predicate(key, item.value)) this.delete(key);
  }

  clear(): void {
    this.#items.clear();
    this.#total = 0;
  }
}
