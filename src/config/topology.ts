/**
 * The tier topology from wrangler.toml (`[vars.TOPOLOGY]`): regions, which
 * colo belongs to which, each region's weighted pool of TierCache instances,
 * the upper tier's region, the refresh/TTL defaults and each region's purge
 * queue pool with the load band its autoscaler keeps it in. Checked once per
 * isolate; a bad configuration fails every request with a 500 that says
 * exactly what is wrong, rather than half-working.
 */
import { z } from "zod";
import { errorMessage } from "../lib/errors.ts";
import { ProblemError } from "../http/problem.ts";

export const REGIONS = ["wnam", "enam", "sam", "weur", "eeur", "apac", "oc", "afr", "me"] as const;
export type Region = (typeof REGIONS)[number];

const regionSchema = z.object({
  colos: z.array(z.string().regex(/^[A-Z]{3}$/, "colos are three-letter IATA codes")).min(1),
  tiers: z
    .record(z.string().regex(/^[a-z0-9-]+$/), z.number().positive())
    .refine((t) => Object.keys(t).length > 0, "a region needs at least one tier"),
});

/**
 * A region's purge queue pool: between `min` and `max` queues, resized one
 * queue at a time so each stays inside the band (events/s per queue, and
 * events a queue holds that not every tier has acknowledged).
 */
const queuePoolSchema = z
  .object({
    min: z.number().int().min(1),
    /** Purge ids name a queue index below this, so lowering it strands the ids of the queues above. */
    max: z.number().int().min(1).max(64),
    lowEventsPerSecond: z.number().min(0),
    highEventsPerSecond: z.number().positive(),
    maxBacklog: z.number().int().min(1),
    /** How often a region's autoscaler samples its queues and tiers, while the region is in use. */
    sampleIntervalMs: z.number().int().min(1_000).max(300_000),
  })
  .strict()
  .superRefine((p, ctx) => {
    if (p.max < p.min)
      ctx.addIssue({ code: "custom", path: ["max"], message: `max (${p.max}) must be at least min (${p.min})` });
    if (p.lowEventsPerSecond >= p.highEventsPerSecond) {
      ctx.addIssue({
        code: "custom",
        path: ["lowEventsPerSecond"],
        message: `must be below highEventsPerSecond (${p.highEventsPerSecond}), or the pool would resize on every sample`,
      });
    }
  });

export type QueuePoolConfig = z.infer<typeof queuePoolSchema>;

const topologySchema = z
  .object({
    upperRegion: z.enum(REGIONS),
    refreshSeconds: z.number().int().min(1),
    ttlSeconds: z.number().int().min(1),
    maxStaleSeconds: z.number().int().min(1),
    notFoundSeconds: z.number().int().min(0).max(3600),
    queuePool: queuePoolSchema,
    purgeDelivery: z.enum(["fanout", "direct"]),
    enabled: z.boolean(),
    interRegionLatencyMs: z.number().min(0).max(10_000),
    regions: z.record(z.enum(REGIONS), regionSchema),
  })
  .superRefine((t, ctx) => {
    for (const region of REGIONS)
      if (!t.regions[region])
        ctx.addIssue({ code: "custom", path: ["regions", region], message: `region ${region} is missing` });
    const seen = new Map<string, string>();
    for (const [region, r] of Object.entries(t.regions)) {
      for (const colo of r.colos) {
        if (seen.has(colo))
          ctx.addIssue({
            code: "custom",
            path: ["regions", region, "colos"],
            message: `colo ${colo} is in both ${seen.get(colo)} and ${region}`,
          });
        seen.set(colo, region);
      }
    }
    if (t.maxStaleSeconds < t.refreshSeconds)
      ctx.addIssue({ code: "custom", path: ["maxStaleSeconds"], message: "must be at least refreshSeconds" });
  });

export type Topology = z.infer<typeof topologySchema> & {
  /** colo → region, derived. */
  regionOfColo: Map<string, Region>;
};

/**
 * Parsed once per configuration object. Keyed by the object, not one slot: the Worker and each
 * Durable Object class in an isolate hold their own copy of TOPOLOGY, and a slot taken in turn
 * by each was parsed again on nearly every request (3 % of the Worker's CPU in an import).
 */
const parsed = new WeakMap<object, Topology>();

export function parseTopology(source: unknown): Topology {
  // The old fixed pool size would otherwise be dropped without a word, leaving the pool at its defaults' mercy.
  if (typeof source === "object" && source !== null && "queuesPerRegion" in source) {
    throw new Error(
      "TOPOLOGY in wrangler.toml is invalid at queuesPerRegion: replaced by queuePool = { min, max, lowEventsPerSecond, highEventsPerSecond, maxBacklog, sampleIntervalMs }",
    );
  }
  const result = topologySchema.safeParse(source);
  if (!result.success) {
    const issue = result.error.issues[0]!;
    throw new Error(`TOPOLOGY in wrangler.toml is invalid at ${issue.path.join(".") || "(root)"}: ${issue.message}`);
  }
  const regionOfColo = new Map<string, Region>();
  for (const [region, r] of Object.entries(result.data.regions))
    for (const colo of r.colos) regionOfColo.set(colo, region as Region);
  return { ...result.data, regionOfColo };
}

/** The validated topology of this isolate's configuration. */
export function topologyOf(env: Env): Topology {
  const source = (env as unknown as { TOPOLOGY?: unknown }).TOPOLOGY;
  const hit = typeof source === "object" && source !== null ? parsed.get(source) : undefined;
  if (hit) return hit;
  try {
    const topology = parseTopology(source);
    if (typeof source === "object" && source !== null) parsed.set(source, topology);
    return topology;
  } catch (err) {
    throw new ProblemError({
      status: 500,
      code: "bad_topology",
      title: "Tier topology misconfigured",
      detail: errorMessage(err),
    });
  }
}

export function tierMembers(t: Topology, region: Region): Array<{ id: string; weight: number }> {
  return Object.entries(t.regions[region].tiers).map(([id, weight]) => ({ id, weight }));
}
