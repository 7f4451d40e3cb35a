/** Parsing what Memento responses carry, as a Memento client would. */

export interface Link {
  uri: string;
  rels: string[];
  attrs: Record<string, string>;
}

/** RFC 8288 link-values (header or application/link-format body); attribute values are quoted, as this archive writes them. */
export function parseLinks(value: string | null): Link[] {
  const links: Link[] = [];
  for (const m of (value ?? "").matchAll(/<([^>]*)>((?:\s*;\s*[a-z_-]+="[^"]*")*)/g)) {
    const attrs: Record<string, string> = {};
    for (const a of m[2]!.matchAll(/;\s*([a-z_-]+)="([^"]*)"/g)) attrs[a[1]!] = a[2]!;
    links.push({ uri: m[1]!, rels: (attrs.rel ?? "").split(" ").filter(Boolean), attrs });
  }
  return links;
}

/** The one link whose rel values include every one given. */
export function linkWith(links: Link[], ...rels: string[]): Link | undefined {
  const found = links.filter((l) => rels.every((r) => l.rels.includes(r)));
  if (found.length > 1) throw new Error(`${found.length} links with rel ${rels.join(" ")}`);
  return found[0];
}

/** IMF-fixdate of the n-th second of 2020, the timestamps linearHistory gives. */
export const second = (n: number) => new Date(Date.UTC(2020, 0, 1) + n * 1000).toUTCString();

/** A body as UTF-8 text, whatever its media type (workerd warns when .text() meets application/link-format). */
export const text = async (res: Response) => new TextDecoder().decode(await res.arrayBuffer());
