/**
 * Dashboard sessions: a cookie signed with the SESSION_SECRET secret
 * (Hono's signed cookies) that names who logged in, their scopes, when the
 * session ends and a random session id. Every form carries a CSRF token
 * derived from that id, so a page from another site can neither read nor
 * forge it.
 *
 * @example
 * const session = await startSession(c, secret, principal);
 * const token = await csrfToken(secret, session.sid); // the hidden field of every form
 * await csrfMatches(secret, session.sid, form.csrf); // true
 */
import type { Context } from "hono";
import { deleteCookie, getSignedCookie, setSignedCookie } from "hono/cookie";
import type { CookieOptions } from "hono/utils/cookie";
import { z } from "zod";
import { SCOPES, type Principal } from "../http/tokens.ts";

export const SESSION_COOKIE = "palimpsest_session";
/** A session outlives no working day; a token that expires sooner ends it sooner. */
export const SESSION_MS = 8 * 60 * 60 * 1000;

export interface Session {
  sid: string;
  name: string;
  scopes: Principal["scopes"];
  via: Principal["via"];
  /** When the session ends (ms). */
  expiresAt: number;
}

const sessionSchema = z.object({
  sid: z.string().min(16),
  name: z.string().min(1),
  scopes: z.array(z.enum(SCOPES)),
  via: z.enum(["token", "session", "access"]),
  expiresAt: z.number(),
});

/** The secret, or null when the operator has not set one (the dashboard then refuses logins). */
export function sessionSecret(env: Env): string | null {
  const secret = (env as { SESSION_SECRET?: string }).SESSION_SECRET?.trim();
  return secret ? secret : null;
}

/** Browsers keep Secure cookies from plain-HTTP localhost only, so local development goes without. */
function cookieOptions(c: Context, expiresAt: number, now: number): CookieOptions {
  const host = new URL(c.req.url).hostname;
  const local = host === "localhost" || host === "127.0.0.1" || host === "[::1]";
  return { path: "/dashboard", httpOnly: true, sameSite: "Strict", secure: !local, maxAge: Math.max(0, Math.floor((expiresAt - now) / 1000)), expires: new Date(expiresAt) };
}

function randomId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(18));
  return btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_");
}

/** Starts a session for `who` and sets its cookie. */
export async function startSession(c: Context, secret: string, who: Principal, now = Date.now()): Promise<Session> {
  const expiresAt = Math.min(now + SESSION_MS, who.expiresAt ?? Infinity);
  const session: Session = { sid: randomId(), name: who.name, scopes: who.scopes, via: who.via, expiresAt };
  await setSignedCookie(c, SESSION_COOKIE, JSON.stringify(session), secret, cookieOptions(c, expiresAt, now));
  return session;
}

/** The request's session, if its cookie is ours, unaltered and unexpired. */
export async function readSession(c: Context, secret: string, now = Date.now()): Promise<Session | null> {
  const value = await getSignedCookie(c, secret, SESSION_COOKIE);
  if (!value) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    return null;
  }
  const session = sessionSchema.safeParse(parsed);
  return session.success && session.data.expiresAt > now ? session.data : null;
}

export function endSession(c: Context, now = Date.now()): void {
  deleteCookie(c, SESSION_COOKIE, cookieOptions(c, now, now));
}

async function hmac(secret: string, message: string): Promise<Uint8Array> {
  const key = await crypto.subtle.importKey("raw", new TextEncoder().encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
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
