/**
 * Gathers the pieces of one element's text as the reader gets them, holding
 * little more than the characters themselves. saxes hands text over in
 * pieces: one per write, CDATA section or stretch between comments, and
 * within each a concatenation node per line break. V8 keeps every
 * concatenation as a ~32-byte node, whatever its length, so a text of line
 * breaks or of one-character CDATA sections would cost 32 bytes a character.
 * Here pieces are joined into flat runs of up to 64 Ki characters, and the
 * text is a concatenation of those runs: no flat copy of the whole is made,
 * since measuring it or slicing it needs none.
 *
 * @example
 * const text = new TextBuffer();
 * text.append("a\nb");
 * text.append("c");
 * text.take(); // { text: "a\nbc", utf8Bytes: 4 }
 */
const RUN_CHARS = 1 << 16;
const RUN_PIECES = 4096;

export class TextBuffer {
  #runs = "";
  #pieces: string[] = [];
  #pieceChars = 0;
  #utf8Bytes = 0;

  append(piece: string): void {
    this.#pieces.push(piece);
    this.#pieceChars += piece.length;
    // saxes never ends a piece inside a surrogate pair, so pieces measure exactly.
    this.#utf8Bytes += Buffer.byteLength(piece);
    if (this.#pieceChars >= RUN_CHARS || this.#pieces.length >= RUN_PIECES) this.#run();
  }

  /** The text so far and its UTF-8 bytes; the buffer starts afresh. */
  take(): { text: string; utf8Bytes: number } {
    this.#run();
    const taken = { text: this.#runs, utf8Bytes: this.#utf8Bytes };
    this.#runs = "";
    this.#utf8Bytes = 0;
    return taken;
  }

  #run(): void {
    if (this.#pieces.length === 0) return;
    const run = this.#pieces.join("");
    // A lone piece comes back from join as it was; reading a character flattens it in place.
    run.charCodeAt(0);
    this.#runs += run;
    this.#pieces = [];
    this.#pieceChars = 0;
  }
}
