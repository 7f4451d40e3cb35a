/**
 * Form request bodies, for the dashboard's POSTs: counted against a limit
 * as JSON bodies are (./json-body.ts), then parsed once, so a body
 * the platform cannot read as a form (multipart/form-data without its
 * boundary, or broken inside) is a 400 naming the problem rather than an
 * unhandled TypeError. Hono keeps the parse for `c.req.parseBody()` after.
 *
 * @example
 * loginRoutes.post("/login", formBody("http.maxSmallBodyBytes"), async (c) => c.req.parseBody());
 */
import type { Context, MiddlewareHandler } from "hono";
import { every } from "hono/combine";
import type { LimitName } from "../../src/limits.ts";
import { limitBody } from "./body-limit.ts";
import { ProblemError } from "../../src/http/problem.ts";

const parsedForm: MiddlewareHandler = async (c, next) => {
  if (c.req.method === "POST") {
    try {
      await c.req.parseBody();
    } catch (err) {
      if (err instanceof ProblemError) throw err;
      throw new ProblemError({
        status: 400,
        code: "malformed_form",
        detail:
          "the body is not a readable form: send application/x-www-form-urlencoded, or multipart/form-data with its boundary",
      });
    }
  }
  await next();
};

/** Requests whose form was already counted and parsed: a path two `use` patterns match runs this once. */
const done = new WeakSet<Context>();

/** A form body of at most `limit` bytes, parsed; read it next with `c.req.parseBody()`. */
export function formBody(limit: LimitName & `${string}Bytes`): MiddlewareHandler {
  const counted = every(limitBody(limit), parsedForm);
  return async (c, next) => {
    if (done.has(c)) return next();
    done.add(c);
    return counted(c, next);
  };
}
