/**
 * Seeds one page in a local Worker for the tests that then read it back
 * with real HTTP clients (curl, REDbot, Node's fetch): revisions 1..count in
 * a line, one a day from 2020-01-01, written through the archive's one HTTP
 * client (src/tools/local/archive-client.ts), once, with no retries.
 *
 * @example
 * await seedPage(worker, "Curl_compressed", 12, "Curl", (id) => `== Revision ${id} ==\n`);
 */
import type { NewRevision } from "../../../src/page/types.ts";
import { ArchiveClient } from "../../../src/tools/local/archive-client.ts";
import type { WriteBody } from "../../../src/wire.ts";

/** Throws the archive's problem detail if the write is refused. At most 31 revisions (one a day in January). */
export function seedPage(
  worker: { url: string; token: string },
  page: string,
  count: number,
  contributor: string,
  text: (id: number) => string,
): Promise<WriteBody> {
  if (count < 1 || count > 31) throw new RangeError(`seedPage writes 1 to 31 revisions, not ${count}`);
  const revisions: NewRevision[] = Array.from({ length: count }, (_, i) => i + 1).map((id) => ({
    id,
    parentId: id === 1 ? null : id - 1,
    timestamp: `2020-01-${String(id).padStart(2, "0")}T00:00:00Z`,
    contributor,
    comment: `edit ${id}`,
    model: "wikitext",
    text: text(id),
  }));
  return new ArchiveClient({ url: worker.url, token: worker.token, attempts: 1 }).append(page, revisions);
}
