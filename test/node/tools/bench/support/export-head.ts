/**
 * The head of a MediaWiki export as an export of its own: its siteinfo and
 * everything up to the end of its first `count` pages or revisions, with the
 * elements still open closed after it.
 */
export function exportHead(xml: string, count: number, unit: "page" | "revision"): string {
  const close = `</${unit}>`;
  let end = 0;
  for (let i = 0; i < count; i++) {
    end = xml.indexOf(close, end);
    if (end === -1) throw new Error(`the export has fewer than ${count} ${unit}s`);
    end += close.length;
  }
  return `${xml.slice(0, end)}\n${unit === "revision" ? "</page>\n" : ""}</mediawiki>\n`;
}
