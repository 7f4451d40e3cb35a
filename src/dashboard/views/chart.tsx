/**
 * A sparkline: one series over a time window as a small inline SVG, with
 * its title and a description (latest, lowest, highest) for screen
 * readers. Gaps (null points) break the line rather than draw through
 * them. A pure function of its data.
 *
 * @example
 * <Sparkline id="hit-enam-a" label="Hit ratio, enam/enam-a" from={0} to={3_600_000}
 *   points={[{ at: 0, value: 0.5 }, { at: 60_000, value: 0.9 }]} format={formatPercent} max={1} />
 */
import type { FC } from "hono/jsx";

export interface SeriesPoint {
  at: number;
  value: number | null;
}

export const CHART_WIDTH = 160;
export const CHART_HEIGHT = 36;

/** The path's `d`: x by time over [from, to], y from 0 at the bottom to `top` at the top. */
export function sparkPath(points: SeriesPoint[], from: number, to: number, top: number): string {
  const span = Math.max(1, to - from);
  const x = (at: number) => (((at - from) / span) * CHART_WIDTH).toFixed(1);
  const y = (v: number) => (CHART_HEIGHT - (Math.min(v, top) / top) * CHART_HEIGHT).toFixed(1);
  let d = "";
  let drawing = false;
  for (const p of [...points].sort((a, b) => a.at - b.at)) {
    if (p.value === null || p.at < from || p.at > to) {
      drawing = false;
      continue;
    }
    d += `${drawing ? "L" : "M"}${x(p.at)} ${y(p.value)}`;
    drawing = true;
  }
  return d;
}

export function describeSeries(points: SeriesPoint[], format: (v: number) => string): string {
  const values = points
    .filter((p): p is { at: number; value: number } => p.value !== null)
    .sort((a, b) => a.at - b.at)
    .map((p) => p.value);
  if (values.length === 0) return "No data in the last hour.";
  return `Last hour: latest ${format(values[values.length - 1]!)}, lowest ${format(Math.min(...values))}, highest ${format(Math.max(...values))}.`;
}

export interface SparklineProps {
  id: string;
  label: string;
  points: SeriesPoint[];
  from: number;
  to: number;
  format: (v: number) => string;
  /** The top of the scale; the series' own highest value (at least 1) when not given. */
  max?: number;
}

export const Sparkline: FC<SparklineProps> = ({ id, label, points, from, to, format, max }) => {
  const top = max ?? Math.max(1, ...points.map((p) => p.value ?? 0));
  return (
    <svg
      class="spark"
      width={CHART_WIDTH}
      height={CHART_HEIGHT}
      viewBox={`0 0 ${CHART_WIDTH} ${CHART_HEIGHT}`}
      role="img"
      aria-labelledby={`${id}-t ${id}-d`}
    >
      <title id={`${id}-t`}>{label}</title>
      <desc id={`${id}-d`}>{describeSeries(points, format)}</desc>
      <line x1="0" y1={CHART_HEIGHT} x2={CHART_WIDTH} y2={CHART_HEIGHT} />
      <path d={sparkPath(points, from, to, top)} />
    </svg>
  );
};
