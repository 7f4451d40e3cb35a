/**
 * One walk over a stored history as a browser makes it: every revision in
 * order, oldest first, each asked for four ways, one request at a time:
 *
 * | encoding | request headers |
 * |---|---|
 * | identity | `Accept-Encoding: identity` |
 * | gzip | `Accept-Encoding: gzip` |
 * | br | `Accept-Encoding: br, gzip;q=0.9` |
 * | dcb | `Accept-Encoding: dcb, br, gzip;q=0.9` and, when the revision before said `Use-As-Dictionary` with a `match` covering this URL, `Available-Dictionary: :base64(SHA-256 of that revision's body):` |
 *
 * br is listed first because the local Worker runs behind miniflare's
 * emulation of Cloudflare's front line, which re-encodes a br or gzip body
 * into the first of the two the client lists: with a browser's
 * `gzip, deflate, br` the br column would measure gzip made twice.
 *
 * Bodies are taken as they come off the wire (node:http: no decoding), then
 * decoded here and checked byte for byte against the identity body, which is
 * itself checked against the export's SHA-1: a smaller body that decodes to
 * anything else fails the bench. Each response's server CPU is the workerd
 * processes' CPU time across the request (harness/process-cpu.ts).
 *
 * @example
 * const walk = await walkHistory(url, "BIP_0340", imported.revisions, workerdCpu());
 * walk.responses.br.bytes; // body bytes of every br response, summed
 */
import { Agent } from "node:http";
import { createHash } from "node:crypto";
import { gunzipSync } from "node:zlib";
import "../../../codec/install-node.ts";
import { brotliDecompress, dcbDecompress } from "../../../codec/index.ts";
import { sha1Base36 } from "../../../lib/digests.ts";
import type { ProcessCpu } from "../harness/process-cpu.ts";
import { rawRequest, type RawResponse } from "../harness/raw-request.ts";
import type { RevisionRef } from "../store/importer.ts";

export const WIRE_ENCODINGS = ["identity", "gzip", "br", "dcb"] as const;
export type WireEncoding = (typeof WIRE_ENCODINGS)[number];

const ACCEPT: Record<WireEncoding, string> = {
  identity: "identity",
  gzip: "gzip",
  br: "br, gzip;q=0.9",
  dcb: "dcb, br, gzip;q=0.9",
};

/** What one encoding's responses cost over a walk. */
export interface EncodingFigures {
  /** Body bytes as sent, summed over the walk. */
  bytes: number;
  /** Server CPU ms of each response, in walk order. */
  cpuMs: number[];
  /** Requests sent again after the local dev proxy lost them (their CPU figure includes the lost attempt). */
  retries: number;
  /** How many responses came with each Content-Encoding (the dcb column falls back to br for the first revision and for unknown dictionaries). */
  contentEncodings: Record<string, number>;
}

export interface Walk {
  responses: Record<WireEncoding, EncodingFigures>;
  /** The page's content model, from the first revision's `x-content-model` or its media type. */
  mediaType: string;
}

export class WireVerificationError extends Error {}

/** Longer than any cold response takes here (a dcb body of a 1 MB revision: well under 5 s). */
const REQUEST_TIMEOUT_MS = 60_000;

function getOnce(agent: Agent, url: URL, headers: Record<string, string>): Promise<RawResponse> {
  return rawRequest(url, { headers, agent, timeoutMs: REQUEST_TIMEOUT_MS });
}

/**
 * The local dev stack (wrangler's proxy in front of workerd) once left a
 * request unanswered for good on a loaded machine, while the same request
 * sent again answered at once; so one retry after a timeout or a dropped
 * connection, counted in the rows (`retries`).
 */
async function get(agent: Agent, url: URL, headers: Record<string, string>, onRetry: () => void): Promise<RawResponse> {
  try {
    return await getOnce(agent, url, headers);
  } catch {
    onRetry();
    return getOnce(agent, url, headers);
  }
}

const header = (res: RawResponse, name: string) => {
  const v = res.headers[name];
  return Array.isArray(v) ? v.join(", ") : v;
};

/**
 * Whether a `Use-As-Dictionary` value's `match` covers `path`, as a browser
 * matches it: the structured-field string unescaped, then read as a URL
 * pattern in which `*` matches anything, `{…}` groups with an optional `?`
 * after it (the archive's `{/*}?` covers the latest and every revision), and
 * a backslash makes the next character literal (the archive escapes a
 * title's `(`, `)`, `:` … so).
 */
export function dictionaryMatches(useAsDictionary: string | undefined, path: string): boolean {
  const match =
    useAsDictionary === undefined ? null : /(?:^|[,;\s])match\s*=\s*"((?:[^"\\]|\\.)*)"/.exec(useAsDictionary);
  if (!match) return false;
  const pattern = match[1]!.replace(/\\(.)/g, "$1");
  let regex = "^";
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i]!;
    if (ch === "\\" && i + 1 < pattern.length) regex += escapeRegex(pattern[++i]!);
    else if (ch === "*") regex += ".*";
    else if (ch === "{") regex += "(?:";
    else if (ch === "}") {
      regex += ")";
      if (pattern[i + 1] === "?") regex += pattern[++i];
    } else regex += escapeRegex(ch);
  }
  return new RegExp(`${regex}$`).test(path);
}

const escapeRegex = (ch: string) => ch.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");

function decode(res: RawResponse, dictionary: Uint8Array | null): Promise<Uint8Array> | Uint8Array {
  const encoding = header(res, "content-encoding") ?? "identity";
  if (encoding === "identity") return res.body;
  if (encoding === "gzip") return gunzipSync(res.body);
  if (encoding === "br") return brotliDecompress(res.body);
  if (encoding === "dcb") {
    if (!dictionary) throw new WireVerificationError("a dcb response to a request that offered no dictionary");
    return dcbDecompress(res.body, dictionary);
  }
  throw new WireVerificationError(`unexpected Content-Encoding ${encoding}`);
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.byteLength === b.byteLength && Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(b);
}

export async function walkHistory(
  baseUrl: string,
  key: string,
  revisions: readonly RevisionRef[],
  cpu: ProcessCpu,
): Promise<Walk> {
  const responses = Object.fromEntries(
    WIRE_ENCODINGS.map((e) => [e, { bytes: 0, cpuMs: [], retries: 0, contentEncodings: {} }]),
  ) as unknown as Record<WireEncoding, EncodingFigures>;
  let mediaType = "";
  /** The revision before, as the browser would hold it: its body, if it said Use-As-Dictionary. */
  let held: { body: Uint8Array; useAsDictionary: string | undefined } | null = null;

  // One connection, kept alive: what a browser does, and no connection set-up in the server's figures.
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  try {
    for (const rev of revisions) {
      const path = `/page/${encodeURIComponent(key)}/${rev.id}`;
      const url = new URL(path, baseUrl);
      let identity: Uint8Array | null = null;
      for (const encoding of WIRE_ENCODINGS) {
        const headers: Record<string, string> = { "accept-encoding": ACCEPT[encoding] };
        const dictionary =
          encoding === "dcb" && held && dictionaryMatches(held.useAsDictionary, path) ? held.body : null;
        if (dictionary)
          headers["available-dictionary"] = `:${createHash("sha256").update(dictionary).digest("base64")}:`;
        const before = cpu.nanos();
        const res = await get(agent, url, headers, () => responses[encoding].retries++);
        const ms = (cpu.nanos() - before) / 1e6;
        if (res.status !== 200)
          throw new WireVerificationError(
            `GET ${path} (${encoding}) answered ${res.status}: ${res.body.toString("utf8", 0, 300)}`,
          );
        const body = await decode(res, dictionary);
        if (encoding === "identity") {
          if ((await sha1Base36(body)) !== rev.sha1)
            throw new WireVerificationError(`GET ${path}: the body is not revision ${rev.id} (SHA-1 differs)`);
          identity = body;
          mediaType ||= header(res, "content-type") ?? "";
        } else if (!sameBytes(body, identity!)) {
          throw new WireVerificationError(
            `GET ${path} (${encoding}, Content-Encoding ${header(res, "content-encoding") ?? "identity"}) decodes to other bytes than the identity body`,
          );
        }
        const figures = responses[encoding];
        figures.bytes += res.body.byteLength;
        figures.cpuMs.push(ms);
        const sent = header(res, "content-encoding") ?? "identity";
        figures.contentEncodings[sent] = (figures.contentEncodings[sent] ?? 0) + 1;
        // The browser keeps what its own (dcb-offering) request was told it may use as a dictionary.
        if (encoding === "dcb") held = { body: identity!, useAsDictionary: header(res, "use-as-dictionary") };
      }
    }
  } finally {
    agent.destroy();
  }
  return { responses, mediaType };
}
