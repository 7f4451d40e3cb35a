/**
 * The local operator token. `npm start` writes one into `.dev.vars` (which
 * wrangler dev loads as secrets) if there is none, with every scope, and
 * a session secret for the dashboard; the CLI reads the token from there,
 * so a developer never copies tokens by hand.
 *
 * It also names the Worker's other secrets there, empty (unset), in
 * `.dev.vars.example`'s order: wrangler dev checks the committed
 * `worker-configuration.d.ts` against types it makes from `.dev.vars`
 * (ignoring the `--env-file=.dev.vars.example` they were made with), and
 * would otherwise say on every start that the types may be out of date.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { SCOPES, type Scope } from "../../http/tokens.ts";

export const DEV_VARS_FILE = ".dev.vars";
export const TOKEN_VAR = "API_TOKENS";
const SESSION_VAR = "SESSION_SECRET";
const OPERATOR = "local-operator";

/** One entry of API_TOKENS (see src/http/tokens.ts). */
export interface ApiToken {
  name: string;
  token: string;
  scopes: Scope[];
}

/** API_TOKENS naming one token with every scope, then any `others`. */
export function operatorTokens(token: string, others: readonly ApiToken[] = []): string {
  return JSON.stringify([{ name: OPERATOR, token, scopes: [...SCOPES] }, ...others]);
}

function parseDevVars(text: string): Map<string, string> {
  const vars = new Map<string, string>();
  for (const line of text.split(/\r?\n/)) {
    const m = /^\s*([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(?:'([^']*)'|"([^"]*)"|(.*?))\s*$/.exec(line);
    if (m) vars.set(m[1]!, m[2] ?? m[3] ?? m[4] ?? "");
  }
  return vars;
}

function tokenIn(vars: Map<string, string>): string | undefined {
  try {
    const list = JSON.parse(vars.get(TOKEN_VAR) ?? "[]") as Array<{ name?: string; token?: string }>;
    return list.find((t) => t.name === OPERATOR)?.token;
  } catch {
    // A hand-edited API_TOKENS that is not JSON: the worker will say so.
    return undefined;
  }
}

/** The dev token from `.dev.vars` in `dir`, if any. */
export function readDevToken(dir = process.cwd()): string | undefined {
  const file = `${dir}/${DEV_VARS_FILE}`;
  if (!existsSync(file)) return undefined;
  return tokenIn(parseDevVars(readFileSync(file, "utf8")));
}

/** The Worker's secret names, in the order `.dev.vars.example` lists them (the repository's, beside src/). */
export function secretNames(example: string | URL = new URL("../../../.dev.vars.example", import.meta.url)): string[] {
  return [...parseDevVars(readFileSync(example, "utf8")).keys()];
}

/**
 * Makes sure `.dev.vars` holds an operator token and a session secret, and names every other secret
 * (empty: unset); returns the token, whether it was created now, and the file.
 */
export function ensureDevToken(dir = process.cwd()): { token: string; created: boolean; file: string } {
  const file = `${dir}/${DEV_VARS_FILE}`;
  const vars = existsSync(file) ? parseDevVars(readFileSync(file, "utf8")) : new Map<string, string>();
  const existing = vars.has(TOKEN_VAR) ? tokenIn(vars) : undefined;
  const token = existing ?? `pal_dev_${randomBytes(24).toString("base64url")}`;
  const others = secretNames().filter((name) => name !== TOKEN_VAR && name !== SESSION_VAR && !vars.has(name));
  const lines = [
    ...(existing
      ? []
      : [
          "# Local operator token, every scope (created by npm start; never commit).",
          `${TOKEN_VAR}='${operatorTokens(token)}'`,
        ]),
    ...(vars.get(SESSION_VAR)
      ? []
      : ["# Signs dashboard sessions.", `${SESSION_VAR}="${randomBytes(32).toString("base64url")}"`]),
    ...(others.length
      ? ["# The Worker's other secrets, unset (.dev.vars.example names them all).", ...others.map((name) => `${name}=`)]
      : []),
  ];
  if (lines.length === 0) return { token, created: false, file };
  const before = existsSync(file) ? readFileSync(file, "utf8").replace(/\n*$/, "\n") : "";
  writeFileSync(file, `${before}${lines.join("\n")}\n`, { mode: 0o600 });
  return { token, created: !existing, file };
}
