/**
 * Reads back one content of a layout written outside the PageStore (a bench
 * or a test driving LayoutWriter itself, with the commits' blobs, groups and
 * tails kept by hand): the blob that holds it found from what was kept, as
 * src/page-store/locate.ts finds it from a page's rows, and read cold (the
 * blob cache cleared first) through the same readContent the Worker runs.
 */
import { sha256Hex } from "../../../lib/digests.ts";
import { clearBlobCache } from "../../../storage/blob-cache.ts";
import type { BlobStore } from "../../../storage/blob-store.ts";
import { recordOf } from "../../../storage/layout.ts";
import { readContent } from "../../../storage/revision-reader.ts";

/** What the writer's commits left: the layout's state, and each closed group's blob. */
export interface WrittenLayout {
  contentCount: number;
  anchorsBlob: string | null;
  tails: Map<number, string>;
  groups: Map<number, string>;
}

/** Reads distinct content `u` (whose bytes are `content`, for its hash) of a layout of groups of `groupSize`. */
export async function readWrittenContent(
  store: BlobStore,
  layout: WrittenLayout,
  groupSize: number,
  u: number,
  content: Uint8Array,
): ReturnType<typeof readContent> {
  clearBlobCache();
  const { record, part, holder } = recordOf(u, layout.contentCount, groupSize);
  const blob =
    holder.kind === "anchors"
      ? layout.anchorsBlob!
      : holder.kind === "group"
        ? layout.groups.get(holder.group)!
        : layout.tails.get(holder.u)!;
  return readContent(store, { record, part, blob, anchorsBlob: layout.anchorsBlob!, sha256: await sha256Hex(content) });
}
