/**
 * The one error vocabulary. Expected failures throw a {@link ProblemError}
 * with a status and a stable `code`; {@link onError} turns it into an
 * RFC 9457 `application/problem+json` response. Anything else is logged and
 * becomes a bare 500 that reveals nothing about the internals.
 *
 * @example
 * ```ts
 * import { Hono } from "hono";
 * import { ProblemError, notFound, onError } from "./problem.ts";
 *
 * const app = new Hono();
 * app.get("/pages/:title", () => {
 *   throw new ProblemError({ status: 409, code: "revision_conflict", title: "Revision conflict" });
 * });
 * app.notFound(notFound);
 * app.onError(onError);
 * ```
 */
import type { ErrorHandler, NotFoundHandler } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ClientErrorStatusCode, ServerErrorStatusCode } from "hono/utils/http-status";
import { limitValue, type LimitName } from "../limits.ts";

export const PROBLEM_CONTENT_TYPE = "application/problem+json";

export type ProblemStatus = ClientErrorStatusCode | ServerErrorStatusCode;

/** The titles a problem takes from its status when it names none: the status's reason phrase (RFC 9110). */
const STATUS_TITLES = {
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  409: "Conflict",
  410: "Gone",
  413: "Content Too Large",
  422: "Unprocessable Content",
  429: "Too Many Requests",
  500: "Internal Server Error",
  503: "Service Unavailable",
} as const satisfies Partial<Record<ProblemStatus, string>>;

/** A status whose problem may leave its title to the status's reason phrase. */
export type TitledStatus = keyof typeof STATUS_TITLES;

type ProblemFields = {
  /** Stable, machine-readable identifier, e.g. `"url_too_long"`. Never reworded. */
  code: string;
  /** Human-readable explanation of this occurrence. */
  detail?: string;
  /** The `LIMITS` entry that was exceeded; the body names it and gives its value. */
  limit?: LimitName;
  /** Further RFC 9457 extension members, e.g. `{ field: "title" }`. */
  extensions?: Record<string, unknown>;
};

/**
 * A problem's parts. The title is a short human-readable summary, the same for every occurrence of `code`; a
 * {@link TitledStatus} may leave it out for its reason phrase.
 */
export type ProblemInit = ProblemFields &
  ({ status: TitledStatus; title?: string } | { status: ProblemStatus; title: string });

/** The JSON body of a problem response (RFC 9457 members plus our extensions). */
export interface ProblemBody {
  type: string;
  title: string;
  status: ProblemStatus;
  detail?: string;
  code: string;
  limit?: { name: LimitName; value: number };
  [extension: string]: unknown;
}

export class ProblemError extends Error {
  override readonly name = "ProblemError";
  readonly status: ProblemStatus;
  readonly code: string;
  readonly title: string;
  readonly detail: string | undefined;
  readonly limit: LimitName | undefined;
  readonly extensions: Record<string, unknown>;

  constructor(init: ProblemInit) {
    super(init.detail ?? init.title);
    this.status = init.status;
    this.code = init.code;
    this.title = init.title ?? STATUS_TITLES[init.status as TitledStatus];
    this.detail = init.detail;
    this.limit = init.limit;
    this.extensions = init.extensions ?? {};
  }

  toJSON(): ProblemBody {
    return {
      ...this.extensions,
      type: `urn:palimpsest:problem:${this.code}`,
      title: this.title,
      status: this.status,
      ...(this.detail === undefined ? {} : { detail: this.detail }),
      code: this.code,
      ...(this.limit === undefined ? {} : { limit: { name: this.limit, value: limitValue(this.limit) } }),
    };
  }

  /** The same problem with more extension members. */
  withExtensions(extensions: Record<string, unknown>): ProblemError {
    return new ProblemError({
      status: this.status,
      code: this.code,
      title: this.title,
      detail: this.detail,
      limit: this.limit,
      extensions: { ...this.extensions, ...extensions },
    });
  }

  /** The response; a `retryAfterSeconds` extension is also sent as Retry-After. */
  toResponse(): Response {
    const headers: Record<string, string> = { "content-type": PROBLEM_CONTENT_TYPE, "cache-control": "no-store" };
    const retryAfter = this.extensions.retryAfterSeconds;
    if (typeof retryAfter === "number") headers["retry-after"] = String(retryAfter);
    return new Response(JSON.stringify(this), { status: this.status, headers });
  }
}

/**
 * Hono `onError` handler: the single place errors become responses. An
 * unexpected error is logged with the request id, and the client gets only
 * that id: never a stack, a storage key or an object id.
 */
export const onError: ErrorHandler = (err, c) => {
  const requestId = (c.get as (key: string) => unknown)("requestId") as string | undefined;
  let problem: ProblemError;
  if (err instanceof HTTPException && err.res?.headers.get("content-type") === PROBLEM_CONTENT_TYPE) {
    // Already a problem (our refusal through a Hono middleware, e.g. bearer-auth's), with that middleware's headers.
    const res = new Response(err.res.body, err.res);
    if (requestId) res.headers.set("x-request-id", requestId);
    return res;
  }
  if (err instanceof ProblemError) problem = err;
  else if (err instanceof HTTPException && err.status >= 400 && err.status < 500) {
    // Raised by Hono itself (malformed JSON, invalid mount path): the client's fault.
    const status = err.status as ClientErrorStatusCode;
    problem = new ProblemError({ status, code: `http_${status}`, title: err.message || "Request rejected" });
  } else {
    console.error("unhandled error", { requestId, method: c.req.method, path: c.req.path }, err);
    problem = new ProblemError({
      status: 500,
      code: "internal",
      detail: "quote the request id when reporting this",
    });
  }
  if (problem.status >= 500 && requestId) problem = problem.withExtensions({ requestId });
  const res = problem.toResponse();
  if (requestId) res.headers.set("x-request-id", requestId);
  return res;
};

/** Hono `notFound` handler: an unknown route is a 404 problem. */
export const notFound: NotFoundHandler = (c) =>
  new ProblemError({
    status: 404,
    code: "not_found",
    detail: `No route for ${c.req.method} ${c.req.path}`,
  }).toResponse();
