/**
 * What the archive stores, in total and per page: revisions, raw bytes
 * (the texts as written, less suppressed ones), stored bytes (the live blobs in KV) and SQLite
 * metadata. Exact byte counts ride in <data value>, the shown ones are
 * rounded. Pages are `?after=` cursors in title order.
 */
import type { FC } from "hono/jsx";
import type { StorageOverview } from "../storage-report.ts";
import { formatBytes, formatCount, formatTime } from "../../ui/format.ts";
import { DataTable } from "../../ui/data-table.tsx";

const Bytes: FC<{ n: number }> = ({ n }) => <data value={String(n)}>{formatBytes(n)}</data>;
const ratio = (stored: number, raw: number) =>
  raw === 0 ? "–" : `${((stored / raw) * 100).toFixed(raw > 0 && stored / raw < 0.1 ? 2 : 1)} %`;

export const StorageView: FC<{ overview: StorageOverview; first: boolean }> = ({ overview, first }) => {
  const t = overview.totals;
  return (
    <>
      <h1>Storage</h1>
      <h2 id="totals-heading">In total</h2>
      <dl class="facts" aria-labelledby="totals-heading">
        <dt>Pages</dt>
        <dd>
          <data value={String(t.pages)}>{formatCount(t.pages)}</data>
          {t.deleted > 0 ? ` (${formatCount(t.deleted)} deleted)` : ""}
        </dd>
        <dt>Revisions</dt>
        <dd>
          <data value={String(t.revisions)}>{formatCount(t.revisions)}</data>
        </dd>
        <dt>Raw</dt>
        <dd>
          <Bytes n={t.rawBytes} />
        </dd>
        <dt>Stored (blobs)</dt>
        <dd>
          <Bytes n={t.blobBytes} /> ({ratio(t.blobBytes, t.rawBytes)} of raw)
        </dd>
        <dt>Metadata (SQLite)</dt>
        <dd>
          <Bytes n={t.metadataBytes} />
        </dd>
      </dl>
      {t.reported < t.pages ? (
        <p>
          {formatCount(t.pages - t.reported)} of the pages have not been changed since figures were first kept; their
          revisions and bytes are not in these totals yet.
        </p>
      ) : null}
      <h2 id="pages-heading">Per page</h2>
      {overview.pages.length === 0 ? (
        <p>No pages yet.</p>
      ) : (
        <DataTable
          labelledBy="pages-heading"
          columns={[
            "Page",
            { n: "Revisions" },
            { n: "Raw" },
            { n: "Stored" },
            { n: "Stored / raw" },
            { n: "Metadata" },
            "Measured",
          ]}
        >
          {overview.pages.map(({ key, figures: f }) => (
            <tr data-page={key}>
              <th scope="row">
                {f?.deleted ? (
                  <>
                    <bdi>{f.title}</bdi> (deleted)
                  </>
                ) : (
                  <a href={`/page/${encodeURIComponent(key)}`}>
                    <bdi>{f?.title ?? key.replace(/_/g, " ")}</bdi>
                  </a>
                )}
              </th>
              {f ? (
                <>
                  <td class="n" data-field="revisions">
                    {formatCount(f.revisions)}
                  </td>
                  <td class="n">
                    <Bytes n={f.rawBytes} />
                  </td>
                  <td class="n">
                    <Bytes n={f.blobBytes} />
                  </td>
                  <td class="n">{ratio(f.blobBytes, f.rawBytes)}</td>
                  <td class="n">
                    <Bytes n={f.metadataBytes} />
                  </td>
                  <td>{formatTime(f.reportedAt)}</td>
                </>
              ) : (
                <td colspan={6}>not measured yet (no change since figures were first kept)</td>
              )}
            </tr>
          ))}
        </DataTable>
      )}
      <nav class="pager" aria-label="Storage pages">
        {first ? null : <a href="/dashboard/storage">First pages</a>}
        {overview.next ? (
          <a href={`/dashboard/storage?after=${encodeURIComponent(overview.next)}`}>Next pages</a>
        ) : null}
      </nav>
    </>
  );
};
