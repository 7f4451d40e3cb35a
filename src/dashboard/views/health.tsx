/**
 * Tier health over the last hour: per tier its hit ratio, stale serves and
 * purge lag; per region its purge queues' depth, pool size and load. Each
 * cell is a sparkline with its latest value written beside it, so the
 * table reads as text too. Then each tier's storage now against its budget
 * (`LIMITS.tiers.storedBytes`), and each region's queue pool now and its
 * autoscaler's latest decisions. A pure function of its data.
 */
import type { FC } from "hono/jsx";
import type { HealthSeries } from "../health-series.ts";
import type { TierOverview } from "../tier-overview.ts";
import { formatBytes, formatCount, formatPercent, formatTime } from "../format.ts";
import { Sparkline, type SeriesPoint } from "./chart.tsx";
import { DataTable } from "./data-table.tsx";

const slug = (s: string) => s.replace(/[^A-Za-z0-9]+/g, "-");
const latest = (points: SeriesPoint[]) => [...points].reverse().find((p) => p.value !== null)?.value ?? null;
const perSecond = (v: number) => `${v.toFixed(1)}/s`;

const Cell: FC<{
  id: string;
  label: string;
  points: SeriesPoint[];
  from: number;
  to: number;
  format: (v: number) => string;
  max?: number;
  empty: string;
}> = (p) => {
  const last = latest(p.points);
  return (
    <td>
      <Sparkline id={p.id} label={p.label} points={p.points} from={p.from} to={p.to} format={p.format} max={p.max} />
      <span>{last === null ? p.empty : p.format(last)}</span>
    </td>
  );
};

const PoolsTable: FC<{ pools: TierOverview["pools"] }> = ({ pools }) => (
  <DataTable labelledBy="pools-heading" columns={["Region", { n: "Queues taking purges" }, "Band", "Latest decisions"]}>
    {pools.map((p) => (
      <tr>
        <th scope="row">{p.region}</th>
        <td class="n">{p.size}</td>
        <td>
          {p.min} to {p.max}
        </td>
        <td>
          {p.decisions.length === 0 ? (
            p.lastTick ? (
              `held at ${p.lastTick.to}: ${p.lastTick.reason}`
            ) : (
              "none yet"
            )
          ) : (
            <ul>
              {p.decisions.slice(0, 3).map((d) => (
                <li>
                  {formatTime(d.at)}: {d.from} → {d.to}, {d.reason}
                </li>
              ))}
            </ul>
          )}
        </td>
      </tr>
    ))}
  </DataTable>
);

/** Per tier, now: what its SQLite holds against its budget, and what it evicted for room. */
const StorageTable: FC<{ tiers: TierOverview["tiers"] }> = ({ tiers }) => (
  <DataTable
    labelledBy="storage-heading"
    columns={[
      "Tier",
      { n: "Stored" },
      { n: "Budget" },
      "Use",
      { n: "Entries" },
      { n: "Evictions" },
      { n: "SQLite size" },
    ]}
  >
    {tiers.map((t) => (
      <tr>
        <th scope="row">{t.tier}</th>
        <td class="n">{formatBytes(t.storedBytes)}</td>
        <td class="n">{formatBytes(t.budgetBytes)}</td>
        <td>
          <meter
            min={0}
            max={t.budgetBytes}
            value={t.storedBytes}
            aria-label={`Storage of ${t.tier} against its budget`}
          />{" "}
          {formatPercent(t.budgetBytes > 0 ? t.storedBytes / t.budgetBytes : null)}
        </td>
        <td class="n">{formatCount(t.entries)}</td>
        <td class="n">{formatCount(t.evictions)}</td>
        <td class="n">{formatBytes(t.databaseBytes)}</td>
      </tr>
    ))}
  </DataTable>
);

export const HealthView: FC<{ series: HealthSeries; tiers: TierOverview["tiers"]; pools: TierOverview["pools"] }> = ({
  series,
  tiers,
  pools,
}) => {
  const { from, to } = series;
  return (
    <>
      <h1>Tier health</h1>
      <p>
        From {formatTime(from)} to {formatTime(to)}, one point every {Math.round(series.stepMs / 1000)} s. Beside each
        chart is its latest value.
      </p>
      <h2 id="tiers-heading">Tiers</h2>
      <DataTable
        labelledBy="tiers-heading"
        columns={["Tier", "Level", "Region", "Hit ratio", "Stale serves", "Purge lag (events)"]}
      >
        {series.tiers.map((t) => (
          <tr>
            <th scope="row">{t.tier}</th>
            <td>{t.level}</td>
            <td>{t.region}</td>
            <Cell
              id={`hit-${slug(t.tier)}`}
              label={`Hit ratio of ${t.tier}`}
              points={t.points.map((p) => ({ at: p.at, value: p.hitRatio }))}
              from={from}
              to={to}
              format={formatPercent}
              max={1}
              empty="no reads"
            />
            <Cell
              id={`stale-${slug(t.tier)}`}
              label={`Stale serves of ${t.tier}`}
              points={t.points.map((p) => ({ at: p.at, value: p.staleServes }))}
              from={from}
              to={to}
              format={formatCount}
              empty="0"
            />
            <Cell
              id={`lag-${slug(t.tier)}`}
              label={`Purge lag of ${t.tier}`}
              points={t.points.map((p) => ({ at: p.at, value: p.purgeLag }))}
              from={from}
              to={to}
              format={formatCount}
              empty="0"
            />
          </tr>
        ))}
      </DataTable>
      <h2 id="storage-heading">Tier storage</h2>
      <p>
        Each tier keeps what it serves in SQLite up to its budget, then evicts what was read least recently. Purge
        floors and marks are not counted and never evicted.
      </p>
      <StorageTable tiers={tiers} />
      <h2 id="queues-heading">Purge queues</h2>
      <DataTable labelledBy="queues-heading" columns={["Region", "Pool size (queues)", "Queue depth (events)", "Load"]}>
        {series.queues.map((q) => (
          <tr>
            <th scope="row">{q.region}</th>
            <Cell
              id={`pool-${slug(q.region)}`}
              label={`Queue pool size in ${q.region}`}
              points={q.points.map((p) => ({ at: p.at, value: p.poolSize }))}
              from={from}
              to={to}
              format={formatCount}
              empty="not sampled yet"
            />
            <Cell
              id={`depth-${slug(q.region)}`}
              label={`Queue depth in ${q.region}`}
              points={q.points.map((p) => ({ at: p.at, value: p.depth }))}
              from={from}
              to={to}
              format={formatCount}
              empty="0"
            />
            <Cell
              id={`eps-${slug(q.region)}`}
              label={`Purge events per second in ${q.region}`}
              points={q.points.map((p) => ({ at: p.at, value: p.eventsPerSecond }))}
              from={from}
              to={to}
              format={perSecond}
              empty="0/s"
            />
          </tr>
        ))}
      </DataTable>
      <h2 id="pools-heading">Queue pools and the autoscaler</h2>
      <PoolsTable pools={pools} />
    </>
  );
};
