/**
 * Resolves the data centre a request arrived at once (src/config/colo.ts:
 * `request.cf.colo`, or the development header), for the routes that read
 * or purge through the tiers (`c.get("colo")`). A header production refuses
 * or a colo the topology does not know is a 400 from here.
 *
 * @example
 * readRoutes.use("/page/*", withColo);
 */
import type { MiddlewareHandler } from "hono";
import { coloOf, type Colo } from "../../src/config/colo.ts";

export const withColo: MiddlewareHandler<{ Bindings: Env; Variables: { colo: Colo } }> = async (c, next) => {
  c.set("colo", coloOf(c.req.raw, c.env));
  await next();
};
