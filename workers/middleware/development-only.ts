/**
 * Routes that exist only in development (`ENVIRONMENT=development`, as
 * `npm start` and the tests run): fault injection and codec probes. In
 * production they answer the app's own 404, as if they were not there.
 *
 * @example
 * devFaultRoutes.use("/dev/*", developmentOnly);
 */
import type { MiddlewareHandler } from "hono";
import { settingsOf } from "../../src/config/settings.ts";
import { notFound } from "../../src/http/problem.ts";

export const developmentOnly: MiddlewareHandler<{ Bindings: Env }> = async (c, next) =>
  settingsOf(c.env).development ? next() : notFound(c);
