/**
 * Entity tags per representation: a coded body is a different
 * representation from the identity one (RFC 9110 §8.8.3), so it has its own
 * strong tag, the identity tag with the coding appended inside the quotes.
 * A revision's identity tag is the SHA-256 of its body.
 *
 * @example
 * codedEtag('"ab12"', "br");    // '"ab12-br"'
 * codedEtag('W/"ab12"', "gzip"); // 'W/"ab12-gzip"'
 */
export function codedEtag(identityEtag: string, coding: string): string {
  if (coding === "identity") return identityEtag;
  const weak = identityEtag.startsWith("W/");
  const quoted = weak ? identityEtag.slice(2) : identityEtag;
  const opaque = quoted.startsWith('"') && quoted.endsWith('"') ? quoted.slice(1, -1) : quoted;
  return `${weak ? "W/" : ""}"${opaque}-${coding}"`;
}
