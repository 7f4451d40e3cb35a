/**
 * Errors as pages for browsers. Every problem response (thrown and mapped by
 * src/http/problem.ts's onError, an unknown route's notFound, or an answer
 * the tiers carried, like a page nobody wrote) passes through here: when the
 * request prefers `text/html` to problem JSON, its body becomes a readable
 * page with the same status and the same facts (title, detail, code, limit,
 * request id), and the response's other headers (Retry-After,
 * WWW-Authenticate, x-request-id, caching) stay. API clients keep the JSON.
 * Either way it varies on Accept. This is the one place a problem becomes
 * HTML: the dashboard's pages show theirs here too, always as a page and in
 * the dashboard's layout (its error handler sets `problemFrame`), under
 * the dashboard's own Content-Security-Policy.
 *
 * @example
 * app.use(problemPages); // inside the compression middleware, before the routes
 */
import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../app-env.ts";
import { PROBLEM_CONTENT_TYPE } from "../../src/http/problem.ts";
import { prefersHtml } from "../../src/browse/negotiate.ts";
import { htmlResponse, varyAccept } from "../../src/browse/render.ts";
import { Layout } from "../../src/browse/views/layout.tsx";
import { ProblemView, type ProblemFacts } from "../../src/ui/problem.tsx";

/** Headers an HTML page sets itself. */
const REPLACED = new Set(["content-type", "content-length", "etag", "content-security-policy"]);

function factsOf(status: number, json: unknown, requestId: string | null): ProblemFacts {
  const body = (typeof json === "object" && json !== null ? json : {}) as Record<string, unknown>;
  const text = (v: unknown) => (typeof v === "string" ? v : undefined);
  const limit = body.limit as { name?: unknown; value?: unknown } | undefined;
  return {
    status,
    title: text(body.title) ?? "Error",
    detail: text(body.detail),
    code: text(body.code),
    limit:
      typeof limit?.name === "string" && typeof limit.value === "number"
        ? { name: limit.name, value: limit.value }
        : undefined,
    requestId: text(body.requestId) ?? requestId ?? undefined,
  };
}

export const problemPages: MiddlewareHandler<AppEnv> = async (c, next) => {
  await next();
  const res = c.res;
  if (!res.headers.get("content-type")?.startsWith(PROBLEM_CONTENT_TYPE)) return;
  const frame = c.get("problemFrame");
  if (
    (!frame && !prefersHtml(c, PROBLEM_CONTENT_TYPE, "application/json")) ||
    res.body === null ||
    res.headers.has("content-encoding")
  ) {
    const varied = varyAccept(res);
    if (varied !== res) {
      c.res = undefined;
      c.res = varied;
    }
    return;
  }
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    c.res = undefined;
    c.res = varyAccept(new Response(text, res));
    return;
  }
  // Not every problem response carries the id (an unknown route's does not): it is this request's.
  const requestId = res.headers.get("x-request-id") ?? c.get("requestId");
  const facts = factsOf(res.status, json, requestId);
  const headers: Record<string, string> = {};
  res.headers.forEach((value, name) => {
    if (!REPLACED.has(name)) headers[name] = value;
  });
  if (requestId) headers["x-request-id"] = requestId;
  const view = frame ? (
    frame(facts)
  ) : (
    <Layout title={facts.title} description={facts.detail}>
      <ProblemView problem={facts} />
    </Layout>
  );
  const page = await htmlResponse(view, {
    status: res.status,
    cacheControl: res.headers.get("cache-control") ?? "no-store",
    varyAccept: true,
    headers,
    ...(frame ? { contentSecurityPolicy: res.headers.get("content-security-policy") ?? undefined } : {}),
  });
  // Cleared first: Hono would otherwise copy the JSON response's headers onto the page.
  c.res = undefined;
  c.res = page;
};
