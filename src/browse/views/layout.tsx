/**
 * The page every public browse view sits in: `lang`, landmarks (header with
 * the site search, main, footer), a skip link, one h1 per page (the view's),
 * and the inline stylesheet. Separate from the operator dashboard's layout:
 * no session, no scripts.
 */
import type { Child, FC } from "hono/jsx";
import { raw } from "hono/html";
import { BROWSE_STYLE } from "../style.ts";

export const Layout: FC<{ title: string; description?: string; children?: Child }> = ({
  title,
  description,
  children,
}) => (
  <>
    {raw("<!doctype html>")}
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{`${title} · Palimpsest`}</title>
        <meta
          name="description"
          content={description ?? "Palimpsest: an archive of page revisions you can browse, search and compare."}
        />
        <style>{raw(BROWSE_STYLE)}</style>
      </head>
      <body>
        <a class="skip" href="#main">
          Skip to content
        </a>
        <header>
          <a class="brand" href="/">
            Palimpsest
          </a>
          <form class="search" method="get" action="/search" role="search" aria-label="Titles">
            <label for="site-q" class="visually-hidden">
              Search titles
            </label>
            <input type="search" id="site-q" name="q" placeholder="Title starts with…" autocomplete="off" />
            <button type="submit">Search</button>
          </form>
        </header>
        <main id="main" tabindex={-1}>
          {children}
        </main>
        <footer>
          <p>
            Every page here is also an API: <code>curl</code> the same URLs for JSON. Limits:{" "}
            <a href="/api/limits">/api/limits</a>.
          </p>
        </footer>
      </body>
    </html>
  </>
);
