/**
 * The revision text `palimpsest import` holds: every revision put in a page's
 * batch counts from then until its batch's request is done (stored, skipped
 * or given up after a failure). The bytes are the texts' own, in UTF-8, as
 * measured when each revision was put in (src/tools/import/request-body.ts),
 * and `peak` is the most held at once over the import.
 *
 * @example
 * const held = new HeldText();
 * held.take(1024); // a revision put in a batch
 * held.release(1024); // its batch's request is done
 * held.peak; // 1024
 */
export class HeldText {
  #held = 0;
  #peak = 0;

  /** Bytes held now. */
  get held(): number {
    return this.#held;
  }

  /** Most bytes held at once so far. */
  get peak(): number {
    return this.#peak;
  }

  /** A revision of `bytes` of text is held from now. */
  take(bytes: number): void {
    this.#held += bytes;
    if (this.#held > this.#peak) this.#peak = this.#held;
  }

  /** A batch's revisions, `bytes` of text in all, are no longer held. */
  release(bytes: number): void {
    this.#held -= bytes;
  }
}
