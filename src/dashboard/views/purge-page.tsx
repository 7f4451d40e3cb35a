/**
 * One purge, tier by tier: each colo's lower tier and each regional and
 * upper TierCache, pending or acknowledged and how long after the purge
 * was logged. While pending, the live script updates the rows (or, with
 * scripts off, the page refreshes); once complete it shows the time to
 * completion.
 */
import type { FC } from "hono/jsx";
import type { PurgeDisplay } from "../purge-display.ts";
import { DataTable } from "../../ui/data-table.tsx";

export const PurgePage: FC<{ purge: PurgeDisplay }> = ({ purge }) => (
  <div data-purge-status={`/dashboard/api/purges/${encodeURIComponent(purge.id)}`} data-state={purge.state}>
    <h1>
      Purge <code>{purge.id}</code>
    </h1>
    <dl class="facts">
      <dt>What</dt>
      <dd>{purge.what}</dd>
      {purge.by ? (
        <>
          <dt>By</dt>
          <dd>
            <bdi>{purge.by}</bdi>
          </dd>
        </>
      ) : null}
      <dt>Logged</dt>
      <dd>{purge.created}</dd>
      <dt>State</dt>
      <dd>
        <span role="status">
          <span data-field="overall" class={purge.state === "complete" ? "ok" : "pending"}>
            {purge.state}
          </span>
          : <span data-field="progress">{purge.progress}</span>
        </span>
      </dd>
      <div hidden={purge.took === null}>
        <dt>Time to completion</dt>
        <dd data-field="took">{purge.took ?? ""}</dd>
      </div>
    </dl>
    <DataTable
      caption="Every tier that must apply this purge"
      columns={["Tier", "Level", "Region", "State", { n: "Acknowledged after" }, "Last delivery error"]}
    >
      {purge.rows.map((r) => (
        <tr data-tier={r.tier}>
          <th scope="row">{r.tier}</th>
          <td>{r.level}</td>
          <td>{r.region}</td>
          <td data-field="state" class={r.acknowledged ? "ok" : "pending"}>
            {r.state}
          </td>
          <td data-field="after" class="n">
            {r.after}
          </td>
          <td data-field="lastError">{r.lastError}</td>
        </tr>
      ))}
    </DataTable>
  </div>
);
