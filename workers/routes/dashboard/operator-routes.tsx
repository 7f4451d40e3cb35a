/**
 * What the archive is doing and holding (signed in).
 *
 *   GET /dashboard/health    tier health over the last hour, as small charts; each tier's storage against its budget
 *   GET /dashboard/storage   pages, revisions, raw and stored bytes (?after= cursor)
 *   GET /dashboard/follow    the followed wiki, the follower's cursor and last pass, the pages it skipped
 */
import { Hono } from "hono";
import { HealthView } from "../../../src/dashboard/views/health.tsx";
import { StorageView } from "../../../src/dashboard/views/storage.tsx";
import { FollowView } from "../../../src/dashboard/views/follow.tsx";
import { wikiFollowerOf } from "../../../src/bindings.ts";
import { followSettings } from "../../../src/follow/cron-pass.ts";
import { healthSeries } from "../../../src/dashboard/health-series.ts";
import { storageOverview } from "../../../src/dashboard/storage-report.ts";
import { tierOverview } from "../../../src/dashboard/tier-overview.ts";
import { formBody } from "../../middleware/form-body.ts";
import type { DashboardEnv } from "../../app-env.ts";
import { page } from "./render.tsx";
import { requireSession } from "../../middleware/require-session.ts";

const STORAGE_PAGE_SIZE = 50;

export const operatorRoutes = new Hono<DashboardEnv>();
// A POST here is refused, but its form is counted and parsed first, as requireSession reads it
// (workers/middleware/form-body.ts).
operatorRoutes.use("/health", formBody("http.maxSmallBodyBytes"), requireSession);
operatorRoutes.use("/storage", formBody("http.maxSmallBodyBytes"), requireSession);
operatorRoutes.use("/follow", formBody("http.maxSmallBodyBytes"), requireSession);

operatorRoutes.get("/health", async (c) => {
  const [series, overview] = await Promise.all([healthSeries(c.env), tierOverview(c.env)]);
  return page(c, "Tier health", <HealthView series={series} tiers={overview.tiers} pools={overview.pools} />, {
    current: "/dashboard/health",
  });
});

operatorRoutes.get("/storage", async (c) => {
  const after = c.req.query("after") ?? "";
  const overview = await storageOverview(c.env, { after, limit: STORAGE_PAGE_SIZE });
  return page(c, "Storage", <StorageView overview={overview} first={after === ""} />, {
    current: "/dashboard/storage",
  });
});

operatorRoutes.get("/follow", async (c) => {
  const settings = followSettings(c.env);
  const status = settings
    ? { wiki: settings.wiki, ...(await wikiFollowerOf(c.env, settings.wiki).status()) }
    : { wiki: null };
  return page(c, "Wiki follower", <FollowView status={status} />, { current: "/dashboard/follow" });
});
