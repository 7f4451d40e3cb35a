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
import { formatBytes, formatCount, formatPercent, formatTime } from "../../ui/format.ts";
import { Sparkline, type SeriesPoint, type SparklineProps } from "./chart.tsx";
import { DataTable } from "../../ui/data-table.tsx";

const slug = (s: string) => s.replace(/[^A-Za-z0-9]+/g, "-");
const latest = (points: SeriesPoint[]) => [...points].reverse().find((p) => p.value !== null)?.value ?? null;
const perSecond = (v: number) => `${v.toFixed(1)}/s`;

/** A sparkline with its latest value beside it, or `empty` when the series has none. */
const Cell: FC<SparklineProps & { empty: string }> = ({ empty, ...spark }) => {
  const last = latest(spark.points);
  return (
    <td>
      <Sparkline {...spark} />
      <span>{last === null ? empty : spark.format(last)}</span>
    </td>
  );
};

/**
 * A column of sparklines: the field of a row's points it draws, how it
 * reads, its id, and its label before the row's name.
 */
interface Metric<P> {
  id: string;
  label: string;
  value: (point: P) => number | null;
  format: (v: number) => string;
  max?: number;
  empty: string;
}

type TierPoint = HealthSeries["tiers"][number]["points"][number];
type QueuePoint = HealthSeries["queues"][number]["points"][number];

const TIER_METRICS: Array<Metric<TierPoint>> = [
  { id: "hit", label: "Hit ratio of", value: (p) => p.hitRatio, format: formatPercent, max: 1, empty: "no reads" },
  { id: "stale", label: "Stale serves of", value: (p) => p.staleServes, format: formatCount, empty: "0" },
  { id: "lag", label: "Purge lag of", value: (p) => p.purgeLag, format: formatCount, empty: "0" },
];

const QUEUE_METRICS: Array<Metric<QueuePoint>> = [
  { id: "pool", label: "Queue pool size in", value: (p) => p.poolSize, format: formatCount, empty: "not sampled yet" },
  { id: "depth", label: "Queue depth in", value: (p) => p.depth, format: formatCount, empty: "0" },
  { id: "eps", label: "Purge events per second in", value: (p) => p.eventsPerSecond, format: perSecond, empty: "0/s" },
];

/** A row's cells, one per metric, over the row's points. */
function MetricCells<P extends { at: number }>(props: {
  metrics: Array<Metric<P>>;
  name: string;
  points: P[];
  from: number;
  to: number;
}) {
  const { metrics, name, points, from, to } = props;
  return (
    <>
      {metrics.map((m) => (
        <Cell
          id={`${m.id}-${slug(name)}`}
          label={`${m.label} ${name}`}
          points={points.map((p) => ({ at: p.at, value: m.value(p) }))}
          from={from}
          to={to}
          format={m.format}
          max={m.max}
          empty={m.empty}
        />
      ))}
    </>
  );
}

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
            <MetricCells metrics={TIER_METRICS} name={t.tier} points={t.points} from={from} to={to} />
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
            <MetricCells metrics={QUEUE_METRICS} name={q.region} points={q.points} from={from} to={to} />
          </tr>
        ))}
      </DataTable>
      <h2 id="pools-heading">Queue pools and the autoscaler</h2>
      <PoolsTable pools={pools} />
    </>
  );
};
