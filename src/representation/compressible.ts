/**
 * Which media types are worth compressing on the wire: text of every kind
 * (Hono's list: text/*, JSON, XML, JavaScript, `+json`/`+xml` such as
 * problem+json and SVG) and RFC 6690 link-format, which Memento TimeMaps use.
 * Images, archives and other already-compressed types are sent as they are.
 *
 * @example
 * isCompressible("application/problem+json");   // true
 * isCompressible("image/png");                  // false
 */
import { COMPRESSIBLE_CONTENT_TYPE_REGEX } from "hono/utils/compress";

const ALSO = /^\s*application\/link-format(?:[;\s]|$)/i;

export function isCompressible(contentType: string | null | undefined): boolean {
  if (!contentType) return false;
  return COMPRESSIBLE_CONTENT_TYPE_REGEX.test(contentType) || ALSO.test(contentType);
}
