/**
 * Decodes anchors out of a parsed anchors blob, each at most once per reader,
 * following every record's dictionary back to anchor 0.
 */
import type { ParsedBlob } from "./blob-format.ts";
import { decodeRecord, RecordCorruptError } from "./record-codec.ts";

export class AnchorDecoder {
  readonly #decoded = new Map<string, Promise<Uint8Array>>();
  decodes = 0;
  decodedBytes = 0;

  constructor(private readonly blob: ParsedBlob | null) {}

  /** Seeds an anchor whose bytes are already known (a writer's own new anchor). */
  seed(id: string, bytes: Uint8Array): void {
    this.#decoded.set(id, Promise.resolve(bytes));
  }

  anchor(id: string): Promise<Uint8Array> {
    let p = this.#decoded.get(id);
    if (!p) {
      p = this.#decode(id);
      this.#decoded.set(id, p);
    }
    return p;
  }

  dictionary(ids: readonly string[]): Promise<Uint8Array[]> {
    return Promise.all(ids.map((id) => this.anchor(id)));
  }

  async #decode(id: string): Promise<Uint8Array> {
    const meta = this.blob?.records.get(id);
    if (!meta || !this.blob) throw new RecordCorruptError(`anchor ${id} is not in the anchors blob`);
    const dict = await this.dictionary(meta.dict);
    const bytes = await decodeRecord(meta, this.blob.payload(meta), dict);
    this.decodes++;
    this.decodedBytes += bytes.byteLength;
    return bytes;
  }
}
