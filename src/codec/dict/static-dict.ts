/**
 * Which reduced static-dictionary table a body gets, by its media type:
 * HTML, CSS and JavaScript each have one, trained on web content
 * (`npm run build:dict`, src/dict/); anything else gets stock brotli.
 *
 * @example
 * staticDictTypeFor("text/html; charset=utf-8"); // "html"
 * staticDictTypeFor("application/json");         // undefined: stock brotli
 */

export const STATIC_DICT_TYPES = ["html", "css", "js"] as const;
export type StaticDictType = (typeof STATIC_DICT_TYPES)[number];

const BY_MEDIA_TYPE: Record<string, StaticDictType> = {
  "text/html": "html",
  "application/xhtml+xml": "html",
  "text/css": "css",
  "text/javascript": "js",
  "application/javascript": "js",
  "application/x-javascript": "js",
  "application/ecmascript": "js",
  "text/ecmascript": "js",
};

/** The table for a Content-Type header value (parameters ignored), or undefined for stock brotli. */
export function staticDictTypeFor(contentType: string | null | undefined): StaticDictType | undefined {
  if (!contentType) return undefined;
  const essence = contentType.split(";", 1)[0]!.trim().toLowerCase();
  return BY_MEDIA_TYPE[essence];
}

export function isStaticDictType(name: string): name is StaticDictType {
  return (STATIC_DICT_TYPES as readonly string[]).includes(name);
}
