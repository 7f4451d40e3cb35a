/**
 * Recent purges, newest first, from the audit log: who, what, when, how
 * many keys, what was dropped and the time to completion. Pages are
 * `?before=` cursors.
 */
import type { FC } from "hono/jsx";
import type { AuditEntry } from "../../purge/audit.ts";
import { formatCount, formatDuration, formatTime } from "../../ui/format.ts";
import { DataTable } from "../../ui/data-table.tsx";

const items = (list: string[]) =>
  list.length <= 3 ? list.join(", ") : `${list.slice(0, 3).join(", ")} and ${list.length - 3} more`;

export const PurgeTable: FC<{ entries: AuditEntry[]; caption: string }> = ({ entries, caption }) =>
  entries.length === 0 ? (
    <p>No purges yet.</p>
  ) : (
    <DataTable
      caption={caption}
      columns={["Purge", "When", "By", "What", { n: "Keys" }, { n: "Dropped" }, { n: "Time to completion" }]}
    >
      {entries.map((e) => (
        <tr>
          <th scope="row">
            <a href={`/dashboard/purges/${encodeURIComponent(e.id)}`}>{e.id}</a>
          </th>
          <td>{formatTime(e.createdAt)}</td>
          <td>
            <bdi>{e.by}</bdi>
          </td>
          <td>
            {e.soft ? "soft " : ""}
            {e.kind}
            {e.items.length > 0 ? ": " : ""}
            <bdi>{items(e.items)}</bdi>
          </td>
          <td class="n">{formatCount(e.keys)}</td>
          <td class="n">{formatCount(e.dropped)}</td>
          <td class="n">
            {e.completedAt === null ? (
              <span class="pending">pending</span>
            ) : (
              formatDuration(e.completedAt - e.createdAt)
            )}
          </td>
        </tr>
      ))}
    </DataTable>
  );

export const PurgeList: FC<{ entries: AuditEntry[]; next: string | null; first: boolean }> = ({
  entries,
  next,
  first,
}) => (
  <>
    <h1>Purges and audit log</h1>
    <PurgeTable entries={entries} caption="Purges, newest first" />
    <nav class="pager" aria-label="Audit log pages">
      {first ? null : <a href="/dashboard/purges">Newest purges</a>}
      {next ? <a href={`/dashboard/purges?before=${encodeURIComponent(next)}`}>Older purges</a> : null}
    </nav>
  </>
);
