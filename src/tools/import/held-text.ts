/**
 * The revision text `palimpsest import` holds, under one budget shared by
 * every page in flight: each revision put in a page's batch counts from then
 * until its batch's request is done (stored, skipped or given up after a
 * failure). The bytes are the texts' own, in UTF-8, as measured when each
 * revision was put in (src/tools/import/request-body.ts), and `peak` is the
 * most held at once over the import. A revision that would take the held text
 * past the budget waits for room (its page's writer first sends the batch it
 * is filling), unless nothing is held: then it goes alone, whatever its size.
 *
 * @example
 * const held = new HeldText(8 * 1024 * 1024);
 * if (!held.fits(bytes)) await held.room(bytes);
 * held.take(bytes); // a revision put in a batch
 * held.release(bytes); // its batch's request is done
 * held.peak; // bytes
 */
export class HeldText {
  #held = 0;
  #peak = 0;
  /** Those waiting for room, in order, each with the bytes it needs. */
  readonly #waiting: Array<{ bytes: number; resolve: () => void }> = [];

  /** `budget`: most bytes of text held at once, but for one revision bigger than it, held alone. */
  constructor(readonly budget: number) {}

  /** Bytes held now. */
  get held(): number {
    return this.#held;
  }

  /** Most bytes held at once so far. */
  get peak(): number {
    return this.#peak;
  }

  /** Whether `bytes` more may be held now. */
  fits(bytes: number): boolean {
    return this.#held === 0 || this.#held + bytes <= this.budget;
  }

  /** Resolves once `bytes` more fit (when batches held now are released). */
  room(bytes: number): Promise<void> {
    if (this.fits(bytes)) return Promise.resolve();
    return new Promise((resolve) => this.#waiting.push({ bytes, resolve }));
  }

  /** A revision of `bytes` of text is held from now. */
  take(bytes: number): void {
    this.#held += bytes;
    if (this.#held > this.#peak) this.#peak = this.#held;
  }

  /** A batch's revisions, `bytes` of text in all, are no longer held. */
  release(bytes: number): void {
    this.#held -= bytes;
    while (this.#waiting.length > 0 && this.fits(this.#waiting[0]!.bytes)) this.#waiting.shift()!.resolve();
  }
}
