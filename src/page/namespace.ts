/**
 * A title's MediaWiki namespace number, from its prefix: `Help:Contents` is
 * 12, `User_talk:X` is 3, anything without a known prefix is the main
 * namespace, 0. These are MediaWiki's canonical (English) names, the ones
 * exports and URLs use; a wiki's own aliases are not known here.
 */
const NAMESPACES: Record<string, number> = {
  talk: 1,
  user: 2,
  user_talk: 3,
  project: 4,
  project_talk: 5,
  file: 6,
  image: 6,
  file_talk: 7,
  mediawiki: 8,
  mediawiki_talk: 9,
  template: 10,
  template_talk: 11,
  help: 12,
  help_talk: 13,
  category: 14,
  category_talk: 15,
  module: 828,
  module_talk: 829,
};

export function namespaceOf(pageKey: string): number {
  const colon = pageKey.indexOf(":");
  if (colon <= 0) return 0;
  return NAMESPACES[pageKey.slice(0, colon).toLowerCase()] ?? 0;
}
