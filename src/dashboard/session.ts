/**
 * Dashboard sessions. The cookie, signed with the SESSION_SECRET secret
 * (Hono's signed cookies), carries only a random session id; the session
 * itself lives on the server (src/dashboard/session-store.ts, in the
 * DashboardSessions Durable Object). On every request the session is looked
 * up and its rights re-derived from the credential it was started with:
 *
 * - a token session lasts while the same token (by digest) is configured
 *   under the same name: rotating, removing or expiring the token ends it,
 *   and its scopes are the token's scopes now, so a cut applies at once;
 * - an Access session lasts only while Access is configured;
 * - logging out deletes it on the server, so a copied cookie stops working.
 *
 * Every form carries a CSRF token derived from the session id, so a page
 * from another site can neither read nor forge it.
 *
 * @example
 * const session = await startSession(c, secret, principal, credential);
 * const token = await csrfToken(secret, session.sid); // the hidden field of every form
 * await csrfMatches(secret, session.sid, form.csrf); // true
 */
import type { Context } from "hono";
import { deleteCookie, getSignedCookie, setSignedCookie } from "hono/cookie";
import type { CookieOptions } from "hono/utils/cookie";
import { dashboardSessionsOf } from "../bindings.ts";
import { tokenByCredential, type Principal } from "../http/tokens.ts";
import { accessConfig } from "./access.ts";

export const SESSION_COOKIE = "palimpsest_session";
/** A session outlives no working day; a token that expires sooner ends it sooner. */
export const SESSION_MS = 8 * 60 * 60 * 1000;

export interface Session {
  sid: string;
  name: string;
  scopes: Principal["scopes"];
  via: "session" | "access";
  /** When the session ends (ms): its own end or its token's, whichever is first. */
  expiresAt: number;
}

/** Known weak or placeholder secrets, refused whatever their length. */
const PLACEHOLDER_SECRETS = new Set([
  "changeme",
  "change-me",
  "secret",
  "password",
  "session-secret",
  "development",
  "test",
]);
/** The shortest secret accepted: 32 bytes' worth of a random base64url string is 43 characters. */
export const MIN_SECRET_CHARS = 32;
const MIN_SECRET_DISTINCT = 16;

export type SecretCheck = { ok: true; secret: string } | { ok: false; reason: "unset" | "weak"; detail: string };

/**
 * The secret, checked: a weak one would let anyone holding a cookie crack
 * it offline and forge sessions, so it is refused as if unset.
 */
export function sessionSecret(env: Env): SecretCheck {
  const secret = (env as { SESSION_SECRET?: string }).SESSION_SECRET?.trim() ?? "";
  const fix =
    "Set it to a random string of at least 32 characters: npx wrangler secret put SESSION_SECRET (locally, SESSION_SECRET=… in .dev.vars), with a value from: openssl rand -base64 32";
  if (!secret) return { ok: false, reason: "unset", detail: `SESSION_SECRET is not set. ${fix}` };
  if (
    secret.length < MIN_SECRET_CHARS ||
    new Set(secret).size < MIN_SECRET_DISTINCT ||
    PLACEHOLDER_SECRETS.has(secret.toLowerCase())
  ) {
    return {
      ok: false,
      reason: "weak",
      detail: `SESSION_SECRET is too weak to sign sessions (${secret.length} characters, ${new Set(secret).size} different). ${fix}`,
    };
  }
  return { ok: true, secret };
}

/** Browsers keep Secure cookies from plain-HTTP localhost only, so local development goes without. */
function cookieOptions(c: Context, expiresAt: number, now: number): CookieOptions {
  const host = new URL(c.req.url).hostname;
  const local = host === "localhost" || host === "127.0.0.1" || host === "[::1]";
  return {
    path: "/dashboard",
    httpOnly: true,
    sameSite: "Strict",
    secure: !local,
    maxAge: Math.max(0, Math.floor((expiresAt - now) / 1000)),
    expires: new Date(expiresAt),
  };
}

function randomId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(24));
  return btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, "-")
    .replace(/\//g, "_");
}

/**
 * Starts a session for `who` and sets its cookie. `credential` is what it is
 * re-derived from: the token's digest (from authenticateToken), or the
 * Access identity.
 */
export async function startSession<E extends { Bindings: Env }>(
  c: Context<E>,
  secret: string,
  who: Principal,
  credential: string,
  now = Date.now(),
): Promise<Session> {
  const expiresAt = Math.min(now + SESSION_MS, who.expiresAt ?? Infinity);
  const via = who.via === "access" ? "access" : "session";
  const session: Session = { sid: randomId(), name: who.name, scopes: who.scopes, via, expiresAt };
  await dashboardSessionsOf(c.env).create({ ...session, credential, createdAt: now });
  await setSignedCookie(c, SESSION_COOKIE, session.sid, secret, cookieOptions(c, expiresAt, now));
  return session;
}

/** The session id the request's cookie names, if the cookie is ours and unaltered. */
async function cookieSid(c: Context, secret: string): Promise<string | null> {
  const value = await getSignedCookie(c, secret, SESSION_COOKIE);
  return typeof value === "string" && /^[\w-]{32}$/.test(value) ? value : null;
}

/** The request's session, if it is live on the server and its credential still grants it. */
export async function readSession<E extends { Bindings: Env }>(
  c: Context<E>,
  secret: string,
  now = Date.now(),
): Promise<Session | null> {
  const sid = await cookieSid(c, secret);
  if (!sid) return null;
  const stored = await dashboardSessionsOf(c.env).get(sid);
  if (!stored) return null;
  const { name, via } = stored;
  if (via === "access") {
    // Never an Access session where Access is not (or no longer) configured.
    return accessConfig(c.env) ? { sid, name, via, scopes: stored.scopes, expiresAt: stored.expiresAt } : null;
  }
  const token = await tokenByCredential(c.env, name, stored.credential);
  if (!token || token.scopes.length === 0) return null;
  const expiresAt = Math.min(stored.expiresAt, token.expiresAt ?? Infinity);
  return expiresAt > now ? { sid, name, via, scopes: token.scopes, expiresAt } : null;
}

/** Ends the request's session on the server (every copy of the cookie) and clears the cookie. */
export async function endSession<E extends { Bindings: Env }>(
  c: Context<E>,
  secret: string,
  now = Date.now(),
): Promise<void> {
  const sid = await cookieSid(c, secret);
  if (sid) await dashboardSessionsOf(c.env).revoke(sid);
  deleteCookie(c, SESSION_COOKIE, cookieOptions(c, now, now));
}

async function hmac(secret: string, message: string): Promise<Uint8Array> {
  const key = await crypto.subtle.importKey(
    "raw",
    new TextEncoder().encode(secret),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  return new Uint8Array(await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(`csrf:${message}`)));
}

/** The hidden field every dashboard form carries: HMAC(SESSION_SECRET, session id), hex. */
export async function csrfToken(secret: string, sid: string): Promise<string> {
  return [...(await hmac(secret, sid))].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** Compares in constant time; anything but the session's own token is refused. */
export async function csrfMatches(secret: string, sid: string, presented: unknown): Promise<boolean> {
  if (typeof presented !== "string" || !/^[0-9a-f]{64}$/.test(presented)) return false;
  const expected = new TextEncoder().encode(await csrfToken(secret, sid));
  return crypto.subtle.timingSafeEqual(expected, new TextEncoder().encode(presented));
}
