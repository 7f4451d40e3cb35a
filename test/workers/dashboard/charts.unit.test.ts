import { jsx } from "hono/jsx";
import { describe, expect, it } from "vitest";
import { describeSeries, Sparkline, sparkPath } from "../../../src/dashboard/views/chart.tsx";
import { HealthView } from "../../../src/dashboard/views/health.tsx";
import { formatPercent } from "../../../src/ui/format.ts";
import type { HealthSeries } from "../../../src/dashboard/health-series.ts";
import type { TierOverview } from "../../../src/dashboard/tier-overview.ts";

const MIN = 60_000;
// The test files are .ts (vitest's include), so the components are called through jsx() rather than JSX syntax.
const render = async (node: unknown) => String(await (node as { toString(): string | Promise<string> }).toString());

describe("sparklines", () => {
  it("place points by time across the width and by value up the height", () => {
    // 160 × 36: t=0 at x=0, t=60 min at x=160; value 0 at y=36, the top at y=0.
    expect(
      sparkPath(
        [
          { at: 0, value: 0 },
          { at: 30 * MIN, value: 0.5 },
          { at: 60 * MIN, value: 1 },
        ],
        0,
        60 * MIN,
        1,
      ),
    ).toBe("M0.0 36.0L80.0 18.0L160.0 0.0");
  });

  it("break the line at a gap instead of drawing through it, and sort by time", () => {
    const d = sparkPath(
      [
        { at: 40 * MIN, value: 2 },
        { at: 0, value: 4 },
        { at: 20 * MIN, value: null },
        { at: 60 * MIN, value: 0 },
      ],
      0,
      60 * MIN,
      4,
    );
    expect(d).toBe("M0.0 0.0M106.7 18.0L160.0 36.0");
  });

  it("render as an SVG image with a title and a description of latest, lowest and highest", async () => {
    const html = await render(
      jsx(Sparkline, {
        id: "hit-x",
        label: "Hit ratio of enam/enam-a",
        from: 0,
        to: 2 * MIN,
        format: formatPercent,
        max: 1,
        points: [
          { at: 0, value: 0.25 },
          { at: MIN, value: 0.75 },
          { at: 2 * MIN, value: 0.5 },
        ],
      }),
    );
    expect(html).toContain('role="img" aria-labelledby="hit-x-t hit-x-d"');
    expect(html).toContain('<title id="hit-x-t">Hit ratio of enam/enam-a</title>');
    expect(html).toContain('<desc id="hit-x-d">Last hour: latest 50.0 %, lowest 25.0 %, highest 75.0 %.</desc>');
    expect(html).toContain('d="M0.0 27.0L80.0 9.0L160.0 18.0"');
    expect(describeSeries([{ at: 0, value: null }], formatPercent)).toBe("No data in the last hour.");
  });
});

describe("the tier health view", () => {
  const series: HealthSeries = {
    from: 0,
    to: 60 * MIN,
    stepMs: MIN,
    tiers: [
      {
        tier: "enam/enam-a",
        level: "regional",
        region: "enam",
        points: [
          { at: 0, hitRatio: 0.5, staleServes: 1, purgeLag: 0 },
          { at: MIN, hitRatio: 0.9, staleServes: 3, purgeLag: 7 },
        ],
      },
      {
        tier: "upper/enam-b",
        level: "upper",
        region: "enam",
        points: [{ at: 0, hitRatio: null, staleServes: 0, purgeLag: 0 }],
      },
    ],
    queues: [
      {
        region: "enam",
        points: [
          { at: 0, poolSize: 2, depth: 5, eventsPerSecond: 1.5 },
          { at: MIN, poolSize: 3, depth: 12, eventsPerSecond: 4.25 },
        ],
      },
    ],
  };
  const pools: TierOverview["pools"] = [
    {
      region: "enam",
      size: 3,
      min: 1,
      max: 8,
      queues: 3,
      lastTick: null,
      decisions: [{ at: MIN, region: "enam", from: 2, to: 3, reason: "busiest queue above the band", loads: [] }],
    },
  ];

  const tier = { level: "regional", region: "enam", purgeLag: 0, counters: {}, memoryBytes: 0, applied: {} };
  const tiers: TierOverview["tiers"] = [
    {
      ...tier,
      tier: "enam/enam-a",
      entries: 1_234,
      storedBytes: 192 * 1024 * 1024,
      budgetBytes: 256 * 1024 * 1024,
      evictions: 56,
      databaseBytes: 200 * 1024 * 1024,
    },
    {
      ...tier,
      tier: "upper/enam-b",
      level: "upper",
      entries: 0,
      storedBytes: 0,
      budgetBytes: 256 * 1024 * 1024,
      evictions: 0,
      databaseBytes: 64 * 1024,
    },
  ];

  it("plots each tier's hit ratio, stale serves and purge lag and each region's pool size, depth and load, with latest values as text", async () => {
    const html = await render(jsx(HealthView, { series, tiers, pools }));
    expect(html.match(/<svg /g)?.length).toBe(2 * 3 + 1 * 3);
    expect(html).toMatch(
      /<th scope="row">enam\/enam-a<\/th>.*?<\/svg><span>90.0 %<\/span>.*?<\/svg><span>3<\/span>.*?<\/svg><span>7<\/span>/s,
    );
    expect(html).toMatch(/<th scope="row">upper\/enam-b<\/th>.*?<\/svg><span>no reads<\/span>/s);
    expect(html).toMatch(
      /<th scope="row">enam<\/th>.*?<\/svg><span>3<\/span>.*?<\/svg><span>12<\/span>.*?<\/svg><span>4.3\/s<\/span>/s,
    );
    expect(html).toContain("2 → 3, busiest queue above the band");
    expect(html).toContain('<title id="lag-enam-enam-a-t">Purge lag of enam/enam-a</title>');
  });

  it("shows each tier's stored bytes against its budget, its entries and its evictions", async () => {
    const html = await render(jsx(HealthView, { series, tiers, pools }));
    const storage = html.slice(html.indexOf('id="storage-heading"'), html.indexOf('id="queues-heading"'));
    expect(storage).toMatch(
      /<th scope="row">enam\/enam-a<\/th><td class="n">192 MiB<\/td><td class="n">256 MiB<\/td><td><meter min="0" max="268435456" value="201326592"[^>]*><\/meter> 75.0 %<\/td><td class="n">1,234<\/td><td class="n">56<\/td><td class="n">200 MiB<\/td>/,
    );
    expect(storage).toMatch(
      /<th scope="row">upper\/enam-b<\/th><td class="n">0 B<\/td><td class="n">256 MiB<\/td>.*?0.0 %.*?<td class="n">64 KiB<\/td>/s,
    );
  });
});
