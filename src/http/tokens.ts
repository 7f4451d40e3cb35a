/**
 * API tokens and who holds them. Tokens are Worker secrets:
 *
 *   API_TOKENS    JSON: [{"name": "ops-alice", "token": "…", "scopes": ["purge"], "expires": "2027-01-01T00:00:00Z"}]
 *                 `name` is what the audit log records; `expires` is optional.
 *
 * Comparison hashes both sides first so it runs in constant time whatever
 * the lengths, and checks every candidate so timing does not reveal which
 * one matched.
 */
import { z } from "zod";
import { ProblemError } from "./problem.ts";

/** A token configuration this archive cannot use: every authenticated route answers 503 until it is fixed. */
function misconfigured(detail: string): ProblemError {
  return new ProblemError({ status: 503, code: "tokens_misconfigured", title: "Tokens misconfigured", detail });
}

/** `backup`: exports include suppressed revisions' content, marked as suppressed (src/origin/export-xml.ts). */
export const SCOPES = ["write", "purge", "backup"] as const;
export type Scope = (typeof SCOPES)[number];

/** Whoever a request acts for: a token's holder, a dashboard session, or a Cloudflare Access identity. */
export interface Principal {
  name: string;
  scopes: Scope[];
  via: "token" | "session" | "access";
  /** When the credential stops working (ms), if it does. */
  expiresAt: number | null;
}

interface TokenEntry {
  name: string;
  token: string;
  scopes: Scope[];
  expiresAt: number | null;
}

/**
 * A token must be too random to guess: at least 32 characters, at least 16
 * different ones, and at least 128 bits by its alphabet (32 hex digits, 22
 * base64url characters' worth). `openssl rand -base64 32` or the one
 * `npm start` writes pass; a word, a date or `aaaa…` does not.
 */
export const MIN_TOKEN_CHARS = 32;
const MIN_TOKEN_DISTINCT = 16;
const MIN_TOKEN_BITS = 128;

export function tokenStrength(token: string): { ok: true } | { ok: false; reason: string } {
  if (token.length < MIN_TOKEN_CHARS)
    return {
      ok: false,
      reason: `tokens are at least ${MIN_TOKEN_CHARS} characters (make one with: openssl rand -base64 32)`,
    };
  if (new Set(token).size < MIN_TOKEN_DISTINCT)
    return { ok: false, reason: `a token must use at least ${MIN_TOKEN_DISTINCT} different characters` };
  const alphabet =
    (/[a-z]/.test(token) ? 26 : 0) +
    (/[A-Z]/.test(token) ? 26 : 0) +
    (/[0-9]/.test(token) ? 10 : 0) +
    (/[^a-zA-Z0-9]/.test(token) ? 32 : 0);
  const bits = token.length * Math.log2(Math.max(alphabet, 2));
  return bits >= MIN_TOKEN_BITS
    ? { ok: true }
    : { ok: false, reason: `a token must carry at least ${MIN_TOKEN_BITS} bits (about ${Math.floor(bits)} here)` };
}

const strongToken = z.string().superRefine((t, ctx) => {
  const strength = tokenStrength(t);
  if (!strength.ok) ctx.addIssue({ code: "custom", message: strength.reason });
});

const tokenListSchema = z.array(
  z.object({
    name: z.string().regex(/^[\w.@-]{1,64}$/, "names are 1–64 letters, digits, _ . @ -"),
    token: strongToken,
    scopes: z.array(z.enum(SCOPES)).min(1),
    expires: z.iso.datetime({ offset: true }).optional(),
  }),
);

const parsed = new WeakMap<object, TokenEntry[]>();

/** Every configured token; a malformed API_TOKENS fails loudly, naming what is wrong. */
export function configuredTokens(env: Env): TokenEntry[] {
  const hit = parsed.get(env);
  if (hit) return hit;
  const raw = env as unknown as { API_TOKENS?: string };
  const entries: TokenEntry[] = [];
  if (raw.API_TOKENS?.trim()) {
    let json: unknown;
    try {
      json = JSON.parse(raw.API_TOKENS);
    } catch {
      throw misconfigured("the API_TOKENS secret is not JSON");
    }
    const result = tokenListSchema.safeParse(json);
    if (!result.success) {
      const issue = result.error.issues[0]!;
      throw misconfigured(`the API_TOKENS secret is invalid at ${issue.path.join(".") || "(root)"}: ${issue.message}`);
    }
    for (const t of result.data)
      entries.push({
        name: t.name,
        token: t.token,
        scopes: t.scopes,
        expiresAt: t.expires ? Date.parse(t.expires) : null,
      });
  }
  parsed.set(env, entries);
  return entries;
}

async function digest(value: string): Promise<ArrayBuffer> {
  return crypto.subtle.digest("SHA-256", new TextEncoder().encode(value));
}

export type TokenCheck =
  { ok: true; principal: Principal; credential: string } | { ok: false; reason: "unknown" | "expired" };

const hex = (buffer: ArrayBuffer) => [...new Uint8Array(buffer)].map((b) => b.toString(16).padStart(2, "0")).join("");

/**
 * The configured tokens' digests, computed once per configuration rather
 * than on every request. The results are kept, never a promise: a request
 * must not wait on one made in another request's context.
 */
const digests = new WeakMap<object, Array<{ entry: TokenEntry; digest: ArrayBuffer }>>();

async function configuredDigests(env: Env): Promise<Array<{ entry: TokenEntry; digest: ArrayBuffer }>> {
  const hit = digests.get(env);
  if (hit) return hit;
  const computed = await Promise.all(
    configuredTokens(env).map(async (entry) => ({ entry, digest: await digest(entry.token) })),
  );
  digests.set(env, computed);
  return computed;
}

/** Who a presented token belongs to, if anyone, and whether it still works. */
export async function authenticateToken(env: Env, presented: string, now = Date.now()): Promise<TokenCheck> {
  const got = await digest(presented);
  let match: TokenEntry | undefined;
  for (const { entry, digest: known } of await configuredDigests(env)) {
    if (crypto.subtle.timingSafeEqual(got, known) && !match) match = entry;
  }
  if (!match) return { ok: false, reason: "unknown" };
  if (match.expiresAt !== null && match.expiresAt <= now) return { ok: false, reason: "expired" };
  return {
    ok: true,
    principal: { name: match.name, scopes: match.scopes, via: "token", expiresAt: match.expiresAt },
    credential: hex(got),
  };
}

/**
 * The token a session was started with, as configured now: found by its
 * digest (the `credential` of a {@link TokenCheck}) and its holder's name.
 * Null once the token is rotated or removed; its scopes and expiry are
 * today's, so a scope cut or a new expiry applies at once.
 */
export async function tokenByCredential(
  env: Env,
  name: string,
  credential: string,
): Promise<{ scopes: Scope[]; expiresAt: number | null } | null> {
  for (const { entry, digest: known } of await configuredDigests(env)) {
    if (entry.name === name && hex(known) === credential) return { scopes: entry.scopes, expiresAt: entry.expiresAt };
  }
  return null;
}
