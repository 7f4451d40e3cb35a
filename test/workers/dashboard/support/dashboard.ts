/**
 * Drives the dashboard as a browser would: form posts from its own origin,
 * the session cookie carried by hand, the CSRF token read from the page.
 * Calls the Hono app directly, as test/workers/support/archive.ts does;
 * `bindings` overrides the Worker's env for one request (a missing secret,
 * Cloudflare Access settings).
 */
import { createExecutionContext, env } from "cloudflare:test";
import "../../../../src/codec/install-worker.ts";
import { app } from "../../../../workers/app.ts";
import { TOKENS } from "../../support/tokens.ts";

export const ORIGIN = "http://archive.test";

export function dashboard(
  path: string,
  init: RequestInit = {},
  bindings: Record<string, unknown> = {},
  origin = ORIGIN,
): Promise<Response> {
  const envFor = Object.keys(bindings).length === 0 ? env : { ...env, ...bindings };
  return Promise.resolve(
    app.fetch(new Request(`${origin}${path}`, { redirect: "manual", ...init }), envFor, createExecutionContext()),
  );
}

let client = 0;
/** A fresh client address, so one test's logins never spend another's LOGIN_RATE allowance. */
export const newClient = () => `192.0.2.${++client % 250}`;

/** A form post from the dashboard's own pages. */
export function post(
  path: string,
  fields: Record<string, string>,
  headers: Record<string, string> = {},
  bindings: Record<string, unknown> = {},
  origin = ORIGIN,
): Promise<Response> {
  return dashboard(
    path,
    {
      method: "POST",
      headers: {
        origin,
        "content-type": "application/x-www-form-urlencoded",
        "cf-connecting-ip": newClient(),
        ...headers,
      },
      body: new URLSearchParams(fields),
    },
    bindings,
    origin,
  );
}

/** The same form posted from another site, with the session's cookie (and token, if `fields` carry it). */
export function crossSitePost(path: string, fields: Record<string, string>, s: Signed): Promise<Response> {
  return dashboard(path, {
    method: "POST",
    headers: {
      origin: "https://evil.example",
      "content-type": "application/x-www-form-urlencoded",
      cookie: s.cookie,
      "cf-connecting-ip": newClient(),
    },
    body: new URLSearchParams(fields),
  });
}

/** `name=value` of the session cookie a response set. */
export function sessionCookie(res: Response): string {
  const set = res.headers.get("set-cookie") ?? "";
  const m = /^(palimpsest_session=[^;]*)/.exec(set);
  if (!m) throw new Error(`no session cookie in ${res.status}: ${set}`);
  return m[1]!;
}

export function csrfOf(html: string): string {
  const m = /name="csrf" value="([0-9a-f]{64})"/.exec(html);
  if (!m) throw new Error("no CSRF field in the page");
  return m[1]!;
}

export interface Signed {
  cookie: string;
  csrf: string;
}

export async function login(token: string = TOKENS.operator): Promise<Signed> {
  const res = await post("/dashboard/login", { token });
  if (res.status !== 303) throw new Error(`login: ${res.status} ${await res.text()}`);
  const cookie = sessionCookie(res);
  const home = await dashboard("/dashboard", { headers: { cookie } });
  return { cookie, csrf: csrfOf(await home.text()) };
}

export const get = (path: string, s: Signed) => dashboard(path, { headers: { cookie: s.cookie } });

/** The CSRF fields a forged form carries: none, another session's token, and a made-up one. */
export async function forgedCsrfFields(): Promise<Array<Record<string, string>>> {
  const other = await login();
  return [{}, { csrf: other.csrf }, { csrf: "0".repeat(64) }];
}
