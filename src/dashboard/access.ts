/**
 * Cloudflare Access in front of the dashboard. When ACCESS_TEAM_DOMAIN and
 * ACCESS_AUD are both set, Access signs every request it lets through with
 * a `Cf-Access-Jwt-Assertion` (RS256); a valid one, for this application's
 * AUD and from this team, logs the operator in as its `email` with the
 * purge scope. Verification is Hono's `verifyWithJwks` against the team's
 * published keys.
 *
 * @example
 * const who = await accessPrincipal(env, c.req.raw); // null when unset, absent or invalid
 */
import { verifyWithJwks } from "hono/utils/jwt/jwt";
import { errorMessage } from "../lib/errors.ts";
import type { Principal } from "../http/tokens.ts";

export const ACCESS_HEADER = "cf-access-jwt-assertion";

export interface AccessConfig {
  /** `https://<team>.cloudflareaccess.com`: the tokens' issuer and where its keys are published. */
  issuer: string;
  aud: string;
}

export function accessConfig(env: Env): AccessConfig | null {
  const team: string = env.ACCESS_TEAM_DOMAIN ?? "";
  const aud: string = env.ACCESS_AUD ?? "";
  if (!team.trim() || !aud.trim()) return null;
  const issuer = (/^https:\/\//.test(team) ? team : `https://${team}`).replace(/\/+$/, "");
  return { issuer, aud: aud.trim() };
}

/** Who Access says sent the request, or null. */
export async function accessPrincipal(env: Env, request: Request): Promise<Principal | null> {
  const config = accessConfig(env);
  const assertion = request.headers.get(ACCESS_HEADER);
  if (!config || !assertion) return null;
  try {
    const payload = await verifyWithJwks(assertion, {
      jwks_uri: `${config.issuer}/cdn-cgi/access/certs`,
      allowedAlgorithms: ["RS256"],
      verification: { aud: config.aud, iss: config.issuer },
    });
    const email = payload.email;
    if (typeof email !== "string" || email === "") return null;
    return {
      name: email,
      scopes: ["purge"],
      via: "access",
      expiresAt: typeof payload.exp === "number" ? payload.exp * 1000 : null,
    };
  } catch (err) {
    // An expired or foreign assertion is an ordinary refusal; a certificate fetch failure is worth seeing.
    console.warn("Cloudflare Access assertion refused", errorMessage(err));
    return null;
  }
}
