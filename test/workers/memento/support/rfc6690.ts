/**
 * A strict parser of RFC 6690 `application/link-format` (§2's ABNF, with
 * RFC 3986 URI-Reference, RFC 2616 quoted-string, RFC 5987 parmname and
 * RFC 4288 media types), written for the tests: no whitespace where the
 * ABNF has none, no trailing newline, every byte accounted for. A strict
 * client refused the archive's TimeMaps at "byte 38" (the space after the
 * first `;`); this parser refuses the same bytes, naming the offset.
 *
 * @example
 * parseLinkFormat('<http://a.example/x>;rel="original"'); // [{ uri: "http://a.example/x", params: [["rel", "original"]] }]
 * parseLinkFormat('<http://a.example/x>; rel="original"'); // throws: byte 21: expected a link-param name
 */

export interface LinkFormatValue {
  uri: string;
  /** Parameters in order, values unquoted (quoted-pairs resolved); null for a bare link-extension name. */
  params: Array<[name: string, value: string | null]>;
}

export class LinkFormatError extends Error {
  constructor(
    readonly offset: number,
    expected: string,
  ) {
    super(`byte ${offset}: expected ${expected}`);
  }
}

const URI_CHAR = /[A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=%]/;
const HEX = /[0-9A-Fa-f]/;
const ATTR_CHAR = /[A-Za-z0-9!#$&+\-.^_`|~]/;
const PTOKEN_CHAR = /[!#$%&'()*+\-./0-9:<=>?@A-Za-z[\]^_`{|}~]/;
const MEDIA_NAME = /^[A-Za-z0-9][A-Za-z0-9!#$&.+\-^_]{0,126}$/;
const REG_REL = /^[a-z][a-z0-9.-]*$/;
/** RFC 2616 TEXT less `"` and `\`: any octet but CTLs (LWS aside, which a link-format body has no use for). */
const QDTEXT = /[\t\x20-\x21\x23-\x5b\x5d-\x7e\x80-\uffff]/;

export function parseLinkFormat(body: string): LinkFormatValue[] {
  let at = 0;
  const fail = (expected: string): never => {
    throw new LinkFormatError(at, expected);
  };
  const eat = (ch: string): boolean => (body[at] === ch ? (at++, true) : false);
  const expect = (ch: string, what: string) => eat(ch) || fail(what);

  function uriReference(end: string): string {
    const start = at;
    while (at < body.length && body[at] !== end) {
      if (body[at] === "%") {
        if (!HEX.test(body[at + 1] ?? "") || !HEX.test(body[at + 2] ?? "")) fail("two hex digits after %");
        at += 3;
      } else if (URI_CHAR.test(body[at]!)) at++;
      else fail("a URI character (RFC 3986)");
    }
    const uri = body.slice(start, at);
    // An absolute URI must also be one a URL parser accepts.
    if (/^[A-Za-z][A-Za-z0-9+.-]*:/.test(uri)) {
      try {
        new URL(uri);
      } catch {
        at = start;
        fail("a valid absolute URI");
      }
    }
    return uri;
  }

  function quotedString(): string {
    expect('"', "a DQUOTE");
    let out = "";
    for (;;) {
      const ch = body[at];
      if (ch === undefined) fail("a closing DQUOTE");
      if (ch === '"') return (at++, out);
      if (ch === "\\") {
        const escaped = body[at + 1];
        if (escaped === undefined || escaped.charCodeAt(0) > 127) fail("a CHAR after \\");
        out += escaped;
        at += 2;
      } else if (QDTEXT.test(ch!)) {
        out += ch;
        at++;
      } else fail("qdtext (no control characters)");
    }
  }

  function token(re: RegExp, what: string): string {
    const start = at;
    while (at < body.length && re.test(body[at]!)) at++;
    if (at === start) fail(what);
    return body.slice(start, at);
  }

  function relationTypes(): string {
    const check = (rel: string, offset: number) => {
      if (REG_REL.test(rel)) return;
      try {
        new URL(rel);
      } catch {
        at = offset;
        fail("a relation-type (reg-rel-type or URI)");
      }
    };
    if (body[at] !== '"') {
      const start = at;
      const rel = token(/[^;,"\s]/, "a relation-type");
      check(rel, start);
      return rel;
    }
    const start = at + 1;
    const value = quotedString();
    // Inside the quotes: relation-type *( 1*SP relation-type ).
    let offset = start;
    for (const part of value.split(/( +)/)) {
      if (part.startsWith(" ")) offset += part.length;
      else if (part === "") fail("a relation-type, not an empty one or a space at either end");
      else {
        check(part, offset);
        offset += part.length;
      }
    }
    return value;
  }

  function mediaType(): string {
    const quoted = body[at] === '"';
    const start = at;
    const value = quoted ? quotedString() : token(/[A-Za-z0-9!#$&.+\-^_/]/, "a media-type");
    const [type, subtype, ...rest] = value.split("/");
    if (rest.length || !MEDIA_NAME.test(type ?? "") || !MEDIA_NAME.test(subtype ?? "")) {
      at = start;
      fail("a media-type (type-name/subtype-name)");
    }
    return value;
  }

  function param(): [string, string | null] {
    const name = token(ATTR_CHAR, "a link-param name");
    if (name.endsWith("*")) fail("no ext-value (this archive writes none)");
    if (!eat("=")) {
      if (["rel", "anchor", "rev", "hreflang", "media", "title", "type", "rt", "if", "sz"].includes(name))
        fail(`"=" after ${name}`);
      return [name, null];
    }
    switch (name) {
      case "rel":
      case "rev":
      case "rt":
      case "if":
        return [name, relationTypes()];
      case "anchor": {
        expect('"', "a DQUOTE before the anchor URI");
        const uri = uriReference('"');
        expect('"', "a DQUOTE after the anchor URI");
        return [name, uri];
      }
      case "title":
        return [name, quotedString()];
      case "type":
        return [name, mediaType()];
      case "sz":
        return [name, token(/[0-9]/, "a cardinal")];
      default:
        return [name, body[at] === '"' ? quotedString() : token(PTOKEN_CHAR, "a ptoken or quoted-string")];
    }
  }

  const values: LinkFormatValue[] = [];
  if (body.length === 0) return values;
  for (;;) {
    expect("<", '"<" opening a link-value');
    const uri = uriReference(">");
    expect(">", '">" closing the URI');
    const params: LinkFormatValue["params"] = [];
    while (eat(";")) params.push(param());
    values.push({ uri, params });
    if (at === body.length) return values;
    expect(",", '"," or the end of the body');
  }
}

/** A parsed link-value's first parameter of a name, or undefined. */
export function paramOf(value: LinkFormatValue, name: string): string | null | undefined {
  return value.params.find(([n]) => n === name)?.[1];
}
