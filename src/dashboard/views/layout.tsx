/**
 * The page every dashboard view sits in (the shared page shell, src/ui):
 * landmarks, a skip link, the navigation with the current page marked, the
 * logout form, the inline stylesheet (under the CSP nonce) and, only where a
 * page asks for it, the live script. A pending page refreshes itself when scripts are off
 * (the refresh sits in <noscript>, so with scripts on the live script
 * updates it in place instead).
 */
import type { Child, FC } from "hono/jsx";
import { raw } from "hono/html";
import { PageShell } from "../../ui/page-shell.tsx";
import { STYLE } from "../../ui/style.ts";
import type { Session } from "../session.ts";

export interface PageChrome {
  /** The CSP nonce of this response, for the inline stylesheet. */
  nonce: string;
  /** Signed in: who, and the CSRF token for the logout form. */
  session: { session: Session; csrf: string } | null;
}

export const NAV = [
  { href: "/dashboard", label: "Purge" },
  { href: "/dashboard/purges", label: "Purges and audit log" },
  { href: "/dashboard/takedowns", label: "Takedowns" },
  { href: "/dashboard/health", label: "Tier health" },
  { href: "/dashboard/storage", label: "Storage" },
  { href: "/dashboard/follow", label: "Wiki follower" },
] as const;

export const CsrfField: FC<{ token: string }> = ({ token }) => <input type="hidden" name="csrf" value={token} />;

export const Layout: FC<{
  title: string;
  chrome: PageChrome;
  current?: (typeof NAV)[number]["href"];
  /** Seconds between refreshes while the page shows something pending (scripts off). */
  refreshSeconds?: number;
  live?: boolean;
  children?: Child;
}> = ({ title, chrome, current, refreshSeconds, live, children }) => (
  <PageShell
    title={`${title} · Palimpsest dashboard`}
    description="Palimpsest operator dashboard: purges, tier health and storage."
    head={
      <>
        {refreshSeconds ? (
          <noscript>
            <meta http-equiv="refresh" content={String(refreshSeconds)} />
          </noscript>
        ) : null}
        <style nonce={chrome.nonce}>{raw(STYLE)}</style>
        {live ? <script nonce={chrome.nonce} src="/dashboard/live.js" defer></script> : null}
      </>
    }
    brand={{ href: "/dashboard", label: "Palimpsest operators" }}
    header={
      chrome.session ? (
        <>
          <nav aria-label="Dashboard">
            <ul>
              {NAV.map((item) => (
                <li>
                  <a href={item.href} aria-current={item.href === current ? "page" : undefined}>
                    {item.label}
                  </a>
                </li>
              ))}
            </ul>
          </nav>
          <form method="post" action="/dashboard/logout">
            <CsrfField token={chrome.session.csrf} />
            <span>
              <bdi>{chrome.session.session.name}</bdi>{" "}
            </span>
            <button type="submit" class="link">
              Log out
            </button>
          </form>
        </>
      ) : null
    }
  >
    {children}
  </PageShell>
);
