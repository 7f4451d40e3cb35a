/**
 * JSON request bodies: the bytes counted as they arrive, chunked or not, so
 * an oversized body is refused with 413 before anything is written (Hono's
 * body-limit); the media type parsed properly (parameters and case as RFC
 * 9110 allows; `text/plain; note=application/json` is not JSON); and a
 * malformed body refused with 400 before validation sees it.
 */
import { parse as parseContentType } from "content-type";
import type { MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { every } from "hono/combine";
import { LIMITS, type LimitName } from "../limits.ts";
import { ProblemError } from "./problem.ts";

/** Counts the body's bytes against `limit` (a LIMITS entry) as they are read. */
export function limitBody(limit: LimitName & `${string}Bytes`): MiddlewareHandler {
  const [group, key] = limit.split(".") as [keyof typeof LIMITS, string];
  const maxSize = (LIMITS[group] as Record<string, number>)[key]!;
  return bodyLimit({
    maxSize,
    onError: () => {
      throw new ProblemError({ status: 413, code: "request_too_large", title: "Content Too Large", detail: `the request body is larger than ${maxSize} bytes`, limit });
    },
  });
}

export function isJson(contentType: string | undefined): boolean {
  if (!contentType) return false;
  try {
    const { type } = parseContentType(contentType);
    return type === "application/json" || /^application\/[!#$&^_.+\-a-z0-9]+\+json$/.test(type);
  } catch {
    return false;
  }
}

/** Requires a JSON body and parses it once (Hono keeps the parse for the validator that follows). */
const parsedJson: MiddlewareHandler = async (c, next) => {
  if (!isJson(c.req.header("content-type"))) {
    throw new ProblemError({ status: 415, code: "unsupported_media_type", title: "Unsupported Media Type", detail: "send the body as application/json" });
  }
  try {
    await c.req.json();
  } catch {
    throw new ProblemError({ status: 400, code: "malformed_json", title: "Bad Request", detail: "the body is not valid JSON" });
  }
  await next();
};

/** A JSON body of at most `limit` bytes, parsed; validate it next with `validated("json", …)`. */
export function jsonBody(limit: LimitName & `${string}Bytes`): MiddlewareHandler {
  return every(limitBody(limit), parsedJson);
}
