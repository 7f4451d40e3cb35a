/**
 * The local write token. `npm start` writes one into `.dev.vars` (which
 * wrangler dev loads as secrets) if there is none, and the CLI reads it from
 * there, so a developer never copies tokens by hand.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { randomBytes } from "node:crypto";

export const DEV_VARS_FILE = ".dev.vars";
export const TOKEN_VAR = "WRITE_TOKENS";

function parseDevVars(text: string): Map<string, string> {
  const vars = new Map<string, string>();
  for (const line of text.split(/\r?\n/)) {
    const m = /^\s*([A-Za-z_][A-Za-z0-9_]*)\s*=\s*"?([^"]*)"?\s*$/.exec(line);
    if (m) vars.set(m[1]!, m[2]!);
  }
  return vars;
}

/** The dev token from `.dev.vars` in `dir`, if any. */
export function readDevToken(dir = process.cwd()): string | undefined {
  const file = `${dir}/${DEV_VARS_FILE}`;
  if (!existsSync(file)) return undefined;
  return parseDevVars(readFileSync(file, "utf8")).get(TOKEN_VAR)?.split(",")[0]?.trim() || undefined;
}

/** Makes sure `.dev.vars` holds a token; returns it and whether it was created now. */
export function ensureDevToken(dir = process.cwd()): { token: string; created: boolean } {
  const existing = readDevToken(dir);
  if (existing) return { token: existing, created: false };
  const token = `pal_dev_${randomBytes(24).toString("base64url")}`;
  const file = `${dir}/${DEV_VARS_FILE}`;
  const before = existsSync(file) ? readFileSync(file, "utf8").replace(/\n*$/, "\n") : "";
  writeFileSync(file, `${before}# Local write token for the archive (created by npm start; never commit).\n${TOKEN_VAR}="${token}"\n`, { mode: 0o600 });
  return { token, created: true };
}
