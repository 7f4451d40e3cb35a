import { env } from "cloudflare:test";

/** The Worker's env following `wiki` (the tests' wrangler config follows none). */
export const withWiki = (wiki: string) => ({ ...env, FOLLOW_WIKI_API: wiki }) as Env;
