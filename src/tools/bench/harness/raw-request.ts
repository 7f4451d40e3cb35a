/**
 * One HTTP exchange as the benches that count bytes and server CPU make it
 * (`bench wire`, `bench hostile`): node:http, the body taken as it comes off
 * the wire (nothing decoded, so the figures are the server's alone), a
 * deadline after which the request is destroyed, and a request body, if
 * any, streamed in chunks without a Content-Length, as a client streaming a
 * big upload sends it.
 *
 * @example
 * const res = await rawRequest(new URL("/page/Vellum/1", url), { headers: { "accept-encoding": "br" }, agent, timeoutMs: 60_000 });
 * res.status; res.headers["content-encoding"]; res.body.byteLength;
 */
import { request, type Agent, type IncomingHttpHeaders } from "node:http";

export interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export interface RawRequestOptions {
  method?: string;
  headers: Record<string, string>;
  /** false: a connection of its own. */
  agent: Agent | false;
  timeoutMs: number;
  body?: Buffer;
  /** Chunk size for a streamed body; default 64 KiB. */
  chunkBytes?: number;
}

export function rawRequest(url: URL, options: RawRequestOptions): Promise<RawResponse> {
  const { method = "GET", headers, agent, timeoutMs, body, chunkBytes = 64 << 10 } = options;
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers, agent, timeout: timeoutMs }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on("error", reject);
    });
    req.on("timeout", () => req.destroy(new Error(`no answer in ${timeoutMs} ms`)));
    req.on("error", reject);
    if (!body) return void req.end();
    let at = 0;
    const pump = () => {
      while (at < body.byteLength) {
        const chunk = body.subarray(at, at + chunkBytes);
        at += chunk.byteLength;
        if (!req.write(chunk)) return void req.once("drain", pump);
      }
      req.end();
    };
    pump();
  });
}
