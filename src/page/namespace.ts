/**
 * A title's MediaWiki namespace number, from its prefix: `Help:Contents` is
 * 12, `User_talk:X` is 3, anything without a known prefix is the main
 * namespace, 0. These are MediaWiki's canonical (English) names, the ones
 * exports and URLs use; a wiki's own aliases are not known here.
 */
/** MediaWiki's namespaces by number, with their canonical names (as an export's <siteinfo> lists them). */
export const CANONICAL_NAMESPACES: ReadonlyArray<readonly [number, string]> = [
  [-2, "Media"],
  [-1, "Special"],
  [0, ""],
  [1, "Talk"],
  [2, "User"],
  [3, "User talk"],
  [4, "Project"],
  [5, "Project talk"],
  [6, "File"],
  [7, "File talk"],
  [8, "MediaWiki"],
  [9, "MediaWiki talk"],
  [10, "Template"],
  [11, "Template talk"],
  [12, "Help"],
  [13, "Help talk"],
  [14, "Category"],
  [15, "Category talk"],
  [828, "Module"],
  [829, "Module talk"],
];

/**
 * Prefixes a page key may start with (lower case, underscores), with `Image`, File's old name; Media and Special hold
 * no pages.
 */
const NAMESPACES: Record<string, number> = Object.fromEntries<number>([
  ...CANONICAL_NAMESPACES.filter(([n]) => n > 0).map(
    ([n, name]) => [name.toLowerCase().replace(/ /g, "_"), n] as const,
  ),
  ["image", 6],
]);

export function namespaceOf(pageKey: string): number {
  const colon = pageKey.indexOf(":");
  if (colon <= 0) return 0;
  return NAMESPACES[pageKey.slice(0, colon).toLowerCase()] ?? 0;
}
