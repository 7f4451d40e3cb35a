/**
 * The deployment's wiki follower (src/follow/cron-pass.ts): which wiki, where
 * its cursor is, the last pass's counts or error, and the pages the archive
 * refused, which the follower skipped and went on past. Every title and
 * reason came from the followed wiki or about it, so each sits in <bdi> and
 * is escaped as text. A retry is asked for with `POST /api/follow/retry`
 * (docs/api.md); the next pass runs it. A pure function of its data.
 */
import type { FC } from "hono/jsx";
import type { FollowStatusBody } from "../../follow/follower-store.ts";
import { formatCount, formatTime } from "../../ui/format.ts";
import { DataTable } from "../../ui/data-table.tsx";

type Status = Extract<FollowStatusBody, { wiki: string }>;

const LastPass: FC<{ pass: Status["lastPass"] }> = ({ pass }) => {
  if (!pass) return <dd>none yet</dd>;
  const o = pass.outcome;
  return (
    <dd>
      {formatTime(pass.startedMs)}:{" "}
      {o.ok ? (
        `${formatCount(o.changes)} changes, ${formatCount(o.revisions)} revisions stored on ${formatCount(o.pages)} pages, ${formatCount(o.refused)} refused and skipped${o.more ? ", more to read" : ""}`
      ) : (
        <>
          failed: <bdi>{o.error}</bdi>
        </>
      )}
    </dd>
  );
};

export const FollowView: FC<{ status: FollowStatusBody }> = ({ status }) => {
  if (status.wiki === null)
    return (
      <>
        <h1>Wiki follower</h1>
        <p>This archive follows no wiki (FOLLOW_WIKI_API is empty).</p>
      </>
    );
  return (
    <>
      <h1>Wiki follower</h1>
      <dl class="facts">
        <dt>Wiki</dt>
        <dd>
          <bdi>{status.wiki}</bdi>
        </dd>
        <dt>Cursor</dt>
        <dd>{status.cursor ? `${status.cursor.timestamp} (rcid ${status.cursor.rcid})` : "not started"}</dd>
        <dt>Running now</dt>
        <dd>{status.running ? `a pass, until ${formatTime(status.running.untilMs)}` : "no"}</dd>
        <dt>Last pass</dt>
        <LastPass pass={status.lastPass} />
      </dl>
      <h2 id="skipped-heading">Skipped pages</h2>
      {status.skipped.length === 0 ? (
        <p>None: the archive took every page the follower brought.</p>
      ) : (
        <>
          <p>
            The archive refused these; the follower skipped them and went on. Once the cause is fixed, ask for a retry
            with POST /api/follow/retry; the next pass runs it.
          </p>
          <DataTable
            labelledBy="skipped-heading"
            columns={["Page", { n: "Page id" }, "Revisions", "Code", "Reason", "When", "Retry"]}
          >
            {status.skipped.map((s) => (
              <tr data-skipped={s.title}>
                <th scope="row">
                  <bdi>{s.title}</bdi>
                </th>
                <td class="n">{s.pageId ?? "–"}</td>
                <td>{s.revisionIds.length === 0 ? "the whole page" : s.revisionIds.join(", ")}</td>
                <td>
                  <code>{s.code}</code>
                </td>
                <td>
                  <bdi>{s.reason}</bdi>
                </td>
                <td>{formatTime(s.atMs)}</td>
                <td>{s.retryAskedMs === null ? "–" : `asked ${formatTime(s.retryAskedMs)}`}</td>
              </tr>
            ))}
          </DataTable>
        </>
      )}
    </>
  );
};
