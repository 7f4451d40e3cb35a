/**
 * Which reduced static-dictionary table a body gets, by its media type:
 * HTML, CSS and JavaScript each have one, trained on web content
 * (`npm run build:dict`, src/tools/dict/) and committed (./tables.generated.ts);
 * anything else gets stock brotli. Each table is prepared in the brotli heap
 * once per isolate, on first use, and reused by every response after.
 *
 * @example
 * staticDictTypeFor("text/html; charset=utf-8"); // "html"
 * staticDictTypeFor("application/json");         // undefined: stock brotli
 * brotliCompress(page, { quality: 5, reducedDictionary: reducedDictionaryFor("text/css") });
 */
import { cachedReducedDictionary, type ReducedDictionary } from "../brotli/reduced-dictionary.ts";
import { TABLES_BASE64 } from "./tables.generated.ts";

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

/** The committed table's bytes (PSD1). */
export function staticDictTable(type: StaticDictType): Uint8Array {
  const text = atob(TABLES_BASE64[type]);
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
  return bytes;
}

/** The isolate's prepared table for `type`. */
export function reducedDictionary(type: StaticDictType): ReducedDictionary {
  return cachedReducedDictionary(`static-dict:${type}`, () => staticDictTable(type));
}

/** The prepared table for a Content-Type, or undefined (stock brotli) for types without one. */
export function reducedDictionaryFor(contentType: string | null | undefined): ReducedDictionary | undefined {
  const type = staticDictTypeFor(contentType);
  return type === undefined ? undefined : reducedDictionary(type);
}
