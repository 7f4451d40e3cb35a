/**
 * The Worker's app: the middleware every request passes (workers/middleware/),
 * in order, then every route group mounted (workers/routes/). `index.ts`
 * only wires the app to the Workers runtime.
 *
 * @example
 * ```ts
 * const res = await app.request("/healthz");
 * await res.json(); // { status: "ok", version: "0.1.0", codec: { build: "…", … } }
 * ```
 */
import { Hono } from "hono";
import { requestId, type RequestIdVariables } from "hono/request-id";
import { version } from "../package.json";
import type { HealthBody } from "../src/wire.ts";
import { CODEC_BUILD } from "../src/codec/wasm/build-info.ts";
import { deploymentGuard } from "./middleware/deployment-guard.ts";
import { notFound, onError } from "../src/http/problem.ts";
import { compress } from "./middleware/compress.ts";
import { urlLength } from "./middleware/url-length.ts";
import { devCodecRoutes } from "./routes/admin/dev-codec-routes.ts";
import { devFaultRoutes } from "./routes/admin/dev-fault-routes.ts";
import { followRoutes } from "./routes/admin/follow-routes.ts";
import { purgeRoutes } from "./routes/admin/purge-routes.ts";
import { takedownRoutes } from "./routes/admin/takedown-routes.ts";
import { tierRoutes } from "./routes/admin/tier-routes.ts";
import { writeRoutes } from "./routes/admin/write-routes.ts";
import { browseRoutes } from "./routes/browse/index.tsx";
import { problemPages } from "./middleware/problem-pages.tsx";
import { dashboardRoutes } from "./routes/dashboard/index.ts";
import { exportRoutes } from "./routes/read/export-routes.ts";
import { limitsRoute } from "./routes/read/limits-route.ts";
import { mementoRoutes } from "./routes/memento/memento-routes.ts";
import { readRoutes } from "./routes/read/read-routes.ts";

export const app = new Hono<{ Bindings: Env; Variables: RequestIdVariables }>();

// A client-sent X-Request-Id is kept if it is short and plain; otherwise one is made.
app.use(requestId());
app.use(urlLength);

// Production: only PUBLIC_ORIGIN's host, and no debug headers for anonymous clients.
app.use(deploymentGuard);

// Every response a route builds in full is negotiated and compressed here (br, gzip), with its
// preconditions and Range answered against the coded body; see workers/middleware/compress.ts.
app.use(compress());

app.get("/healthz", (c) =>
  c.json({
    status: "ok",
    version,
    codec: { build: CODEC_BUILD.id, brotli: CODEC_BUILD.brotli, lz4: CODEC_BUILD.lz4 },
  } satisfies HealthBody),
);

// Browsers get errors as pages; the browse pages come before the read API, whose history URL they share.
app.use(problemPages);
app.route("/", browseRoutes);
app.route("/", exportRoutes);
app.route("/", readRoutes);
app.route("/", mementoRoutes);
app.route("/api", limitsRoute);
app.route("/api", writeRoutes);
app.route("/api", tierRoutes);
app.route("/api", followRoutes);
app.route("/api", purgeRoutes);
app.route("/api", takedownRoutes);
app.route("/api", devFaultRoutes);
app.route("/api", devCodecRoutes);
app.route("/dashboard", dashboardRoutes);

app.notFound(notFound);
app.onError(onError);
