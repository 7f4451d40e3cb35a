/** Renders a dashboard view inside the layout, with this response's nonce and session. */
import type { Context } from "hono";
import type { Child } from "hono/jsx";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { Layout, type NAV, type PageChrome } from "../../../src/dashboard/views/layout.tsx";
import type { DashboardEnv } from "../../app-env.ts";

export function chromeOf(c: Context<DashboardEnv>): PageChrome {
  const session = c.get("session");
  const csrf = c.get("csrf");
  return { nonce: c.get("secureHeadersNonce") ?? "", session: session && csrf ? { session, csrf } : null };
}

export interface PageOptions {
  status?: ContentfulStatusCode;
  current?: (typeof NAV)[number]["href"];
  refreshSeconds?: number;
  live?: boolean;
}

export function page(c: Context<DashboardEnv>, title: string, body: Child, options: PageOptions = {}) {
  c.header("cache-control", "no-store");
  return c.html(
    <Layout
      title={title}
      chrome={chromeOf(c)}
      current={options.current}
      refreshSeconds={options.refreshSeconds}
      live={options.live}
    >
      {body}
    </Layout>,
    options.status ?? 200,
  );
}
