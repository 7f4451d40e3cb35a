/**
 * The document every HTML page sits in, public or dashboard: doctype, `lang`,
 * the head's charset, viewport, title and description, a skip link, a header
 * that opens with the site's brand link, one `main` to skip to, and an
 * optional footer. Each area passes what is its own: the stylesheet (under a
 * hash or a nonce) and any scripts in `head`, its search or navigation in
 * `header`.
 *
 * @example
 * <PageShell title="Home · Palimpsest" description="…" head={<style>{raw(css)}</style>}
 *   brand={{ href: "/", label: "Palimpsest" }}>
 *   <h1>Home</h1>
 * </PageShell>
 */
import type { Child, FC } from "hono/jsx";
import { raw } from "hono/html";

export const PageShell: FC<{
  /** The whole `<title>`. */
  title: string;
  description: string;
  /** What follows the description in `<head>`: the stylesheet, any script. */
  head: Child;
  brand: { href: string; label: string };
  /** What follows the brand in `<header>`. */
  header?: Child;
  footer?: Child;
  children?: Child;
}> = ({ title, description, head, brand, header, footer, children }) => (
  <>
    {raw("<!doctype html>")}
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{title}</title>
        <meta name="description" content={description} />
        {head}
      </head>
      <body>
        <a class="skip" href="#main">
          Skip to content
        </a>
        <header>
          <a class="brand" href={brand.href}>
            {brand.label}
          </a>
          {header}
        </header>
        <main id="main" tabindex={-1}>
          {children}
        </main>
        {footer}
      </body>
    </html>
  </>
);
