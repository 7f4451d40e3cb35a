/**
 * The page every public browse view sits in: `lang`, landmarks (header with
 * the site search, main, footer), a skip link, one h1 per page (the view's),
 * and the inline stylesheet, in the shared page shell (src/ui). Unlike the
 * operator dashboard's layout: no session, no scripts.
 */
import type { Child, FC } from "hono/jsx";
import { raw } from "hono/html";
import { PageShell } from "../../ui/page-shell.tsx";
import { BROWSE_STYLE } from "../style.ts";

export const Layout: FC<{ title: string; description?: string; children?: Child }> = ({
  title,
  description,
  children,
}) => (
  <PageShell
    title={`${title} · Palimpsest`}
    description={description ?? "Palimpsest: an archive of page revisions you can browse, search and compare."}
    head={<style>{raw(BROWSE_STYLE)}</style>}
    brand={{ href: "/", label: "Palimpsest" }}
    header={
      <form class="search" method="get" action="/search" role="search" aria-label="Titles">
        <label for="site-q" class="visually-hidden">
          Search titles
        </label>
        <input type="search" id="site-q" name="q" placeholder="Title starts with…" autocomplete="off" />
        <button type="submit">Search</button>
      </form>
    }
    footer={
      <footer>
        <p>
          Every page here is also an API: <code>curl</code> the same URLs for JSON. Limits:{" "}
          <a href="/api/limits">/api/limits</a>.
        </p>
      </footer>
    }
  >
    {children}
  </PageShell>
);
