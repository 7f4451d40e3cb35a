/**
 * Validation at the route, on @hono/zod-validator: the handler reads typed
 * data with `c.req.valid(target)`, and a failure is the problem
 * src/http/invalid.ts makes, naming the field and why (422 `invalid_field`
 * unless `fields` gives the field its own code); off the JSON body, it
 * names the page the route was asked about.
 *
 * @example
 * readRoutes.get("/page/:title/history", validated("query", historyQuery, "history"), handler);
 */
import { zValidator } from "@hono/zod-validator";
import type { ValidationTargets } from "hono";
import type { z } from "zod";
import { invalid, type FieldRefusal } from "../../src/http/invalid.ts";

export function validated<T extends keyof ValidationTargets, S extends z.ZodType>(
  target: T,
  schema: S,
  what: string,
  fields: Record<string, FieldRefusal> = {},
) {
  return zValidator(target, schema, (result, c) => {
    if (!result.success)
      throw invalid(result.error.issues, what, fields, target === "json" ? {} : { page: c.req.param("title") });
  });
}
