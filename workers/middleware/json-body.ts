/**
 * JSON request bodies: the bytes counted as they arrive, chunked or not, so
 * an oversized body is refused with 413 before anything is written; the
 * media type parsed properly (parameters and case as RFC 9110 allows;
 * `text/plain; note=application/json` is not JSON); the structure bounded
 * while it streams in (json-scan.ts: nesting depth, values in all, and the
 * elements of a named array such as a write's `revisions`), so no request
 * makes JSON.parse build millions of objects; and a malformed body refused
 * with 400 before validation sees it. The body is parsed once: `c.req.json()`
 * answers the value parsed here.
 *
 * @example
 * ```ts
 * app.post("/purges", jsonBody("purge.maxRequestBytes"), async (c) => ingest(await c.req.json()));
 * app.post("/pages/:title/revisions", jsonBody("storage.maxRequestBytes", {
 *   values: "storage.maxJsonValues",
 *   arrays: { revisions: { limit: "storage.maxBatchRevisions", code: "batch_too_large", what: "revisions" } },
 * }), validated("json", schema, "revisions"), handler);
 * ```
 */
import { parse as parseContentType } from "content-type";
import type { MiddlewareHandler } from "hono";
import { limitValue, type LimitName } from "../../src/limits.ts";
import { tooLarge, type BytesLimit } from "./body-limit.ts";
import { JsonScanner, type JsonScanRefusal } from "../../src/http/json-scan.ts";
import { ProblemError } from "../../src/http/problem.ts";

export function isJson(contentType: string | undefined): boolean {
  if (!contentType) return false;
  try {
    const { type } = parseContentType(contentType);
    return type === "application/json" || /^application\/[!#$&^_.+\-a-z0-9]+\+json$/.test(type);
  } catch {
    return false;
  }
}

/** A top-level array counted element by element, and how passing its limit is reported (413). */
export interface CountedArray {
  limit: LimitName;
  code: string;
  /** What its elements are, for the detail: "revisions". */
  what: string;
}

/** The structure a route's body may have, beyond the depth every JSON body keeps to (http.maxJsonDepth). */
export interface JsonShape {
  /** Most values in the body; default http.maxJsonValues. */
  values?: LimitName;
  /** Arrays under top-level keys, counted element by element. */
  arrays?: Record<string, CountedArray>;
}

function refusalProblem(
  refusal: JsonScanRefusal,
  values: LimitName,
  arrays: Record<string, CountedArray>,
): ProblemError {
  const at = { offset: refusal.offset };
  if (refusal.kind === "depth") {
    const limit: LimitName = "http.maxJsonDepth";
    return new ProblemError({
      status: 400,
      code: "json_too_deep",
      detail: `the body nests more than ${limitValue(limit)} objects or arrays deep`,
      limit,
      extensions: at,
    });
  }
  if (refusal.kind === "values") {
    return new ProblemError({
      status: 413,
      code: "json_too_many_values",
      detail: `the body holds more than ${limitValue(values)} JSON values`,
      limit: values,
      extensions: at,
    });
  }
  const array = arrays[refusal.key]!;
  return new ProblemError({
    status: 413,
    code: array.code,
    detail: `more than ${limitValue(array.limit)} ${array.what} in one request`,
    limit: array.limit,
    extensions: at,
  });
}

/** Bytes a body is read in at least, where the stream has them: the socket's own chunks are a few KiB. */
const READ_BYTES = 256 * 1024;

/**
 * A body's chunks: of READ_BYTES at least (but the last) where the stream
 * reads into a buffer of ours, as workerd's request bodies do; else as the
 * stream makes them. Small chunks cost a read each: a 24 MiB write body took
 * thousands.
 */
function chunksOf(body: ReadableStream<Uint8Array>): {
  next(): Promise<{ done: true; value?: undefined } | { done: false; value: Uint8Array }>;
  release(): void;
} {
  let byob: ReadableStreamBYOBReader | null = null;
  try {
    byob = body.getReader({ mode: "byob" });
  } catch {
    // Not a byte stream (a body a test or a Worker built from its own ReadableStream).
  }
  if (!byob) {
    const reader = body.getReader();
    return {
      next: async () => {
        const { done, value } = await reader.read();
        return done ? { done: true } : { done: false, value };
      },
      release: () => reader.releaseLock(),
    };
  }
  const reader = byob;
  // Each read hands the buffer over and gives it back with the bytes read into it; a chunk is used up
  // (copied and scanned) before the next read.
  let space = new ArrayBuffer(READ_BYTES);
  let ended = false;
  return {
    next: async () => {
      if (ended) return { done: true };
      const { done, value } = await reader.readAtLeast(READ_BYTES, new Uint8Array(space));
      if (value) space = value.buffer;
      ended = done;
      return value && value.byteLength > 0 ? { done: false, value } : { done: true };
    },
    release: () => reader.releaseLock(),
  };
}

/**
 * Reads the body, scanning each chunk as it arrives. Once a bound is passed
 * nothing more is scanned or kept, and what was kept is let go; the rest of
 * the body is still read and dropped (up to the byte limit), because workerd
 * answers a client that is still sending only once its body has been read:
 * wrangler dev's proxy answers 503 "worker restarted" otherwise.
 */
async function readScanned(
  body: ReadableStream<Uint8Array> | null,
  bytes: BytesLimit,
  scanner: JsonScanner,
  refuse: (r: JsonScanRefusal) => ProblemError,
): Promise<string> {
  const maxSize = limitValue(bytes);
  let buffer = new Uint8Array(0);
  let size = 0;
  let seen = 0;
  let refusal: ProblemError | undefined;
  if (body) {
    const read = chunksOf(body);
    try {
      for (;;) {
        const { done, value } = await read.next();
        if (done) break;
        seen += value.byteLength;
        if (seen > maxSize) {
          refusal ??= tooLarge(bytes);
          break;
        }
        if (refusal) continue;
        const passed = scanner.push(value);
        if (passed) {
          refusal = refuse(passed);
          buffer = new Uint8Array(0);
          continue;
        }
        if (size + value.byteLength > buffer.byteLength) {
          // Grown by doubling, never far ahead of the bytes that came: a refused body allocates little.
          const grown = new Uint8Array(
            Math.min(maxSize, Math.max(size + value.byteLength, buffer.byteLength * 2, 64 * 1024)),
          );
          grown.set(buffer.subarray(0, size));
          buffer = grown;
        }
        buffer.set(value, size);
        size += value.byteLength;
      }
    } finally {
      read.release();
    }
  }
  if (refusal) throw refusal;
  return new TextDecoder().decode(buffer.subarray(0, size));
}

/**
 * A JSON body of at most `limit` bytes and of the given shape, parsed; read it
 * with `c.req.json()` or validate it next with `validated("json", …)`.
 */
export function jsonBody(limit: BytesLimit, shape: JsonShape = {}): MiddlewareHandler {
  const values = shape.values ?? "http.maxJsonValues";
  const arrays = shape.arrays ?? {};
  const counted = Object.fromEntries(Object.entries(arrays).map(([key, array]) => [key, limitValue(array.limit)]));
  return async (c, next) => {
    const declared = c.req.header("content-length");
    if (declared !== undefined && Number(declared) > limitValue(limit)) throw tooLarge(limit);
    if (!isJson(c.req.header("content-type"))) {
      throw new ProblemError({
        status: 415,
        code: "unsupported_media_type",
        title: "Unsupported Media Type",
        detail: "send the body as application/json",
      });
    }
    const scanner = new JsonScanner({
      maxDepth: limitValue("http.maxJsonDepth"),
      maxValues: limitValue(values),
      arrays: counted,
    });
    const text = await readScanned(c.req.raw.body, limit, scanner, (refusal) =>
      refusalProblem(refusal, values, arrays),
    );
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new ProblemError({
        status: 400,
        code: "malformed_json",
        detail: "the body is not valid JSON",
      });
    }
    // The stream is spent: c.req.text() reads the text from Hono's body cache, which holds promises
    // at run time (its declared type says plain values).
    (c.req.bodyCache as { text?: Promise<string> }).text = Promise.resolve(text);
    // Parsed once: what follows (the validator, the route) gets this value, where Hono's json() would
    // parse the text again (a write's body is up to storage.maxRequestBytes of JSON).
    Object.defineProperty(c.req, "json", { value: () => Promise.resolve(parsed) });
    await next();
  };
}
