/**
 * Development only: runs the Worker's own gzip (the platform's
 * built-in node:zlib, src/codec/gzip-platform.ts) on
 * a posted body `rounds` times, so `palimpsest bench codecs --worker-gzip`
 * can read its cost in workerd from outside: inside a Worker the clock stands
 * still while code runs, so the bench reads workerd's CPU time around a
 * request of N rounds and one of none. Refused (404) unless
 * `ENVIRONMENT = "development"`, and only with a write-scope token.
 *
 *   POST /api/dev/codec/gzip?op=compress|decompress&rounds=N   (body: the input)
 *   → {"op", "rounds", "bytesIn", "bytesOut"}
 *
 * @example
 * curl -X POST -H "authorization: Bearer $TOKEN" --data-binary @page.html \
 *   'localhost:8787/api/dev/codec/gzip?op=compress&rounds=20'
 */
import { Hono } from "hono";
import { z } from "zod";
import type { AppEnv } from "../../app-env.ts";
import { CodecError } from "../../../src/codec/errors.ts";
import { platformGunzip, platformGzip } from "../../../src/codec/gzip-platform.ts";
import { developmentOnly } from "../../middleware/development-only.ts";
import { requireScope } from "../../middleware/require-scope.ts";
import { limitBody } from "../../middleware/body-limit.ts";
import { ProblemError } from "../../../src/http/problem.ts";
import { validated } from "../../middleware/validated.ts";
import { LIMITS } from "../../../src/limits.ts";

export const devCodecRoutes = new Hono<AppEnv>();

// Before authentication: in production the route does not exist, whoever asks.
devCodecRoutes.use("/dev/codec/*", developmentOnly);

const query = z.strictObject({
  op: z.enum(["compress", "decompress"]),
  rounds: z.coerce.number().int().min(0).max(LIMITS.http.maxDevCodecRounds),
});

devCodecRoutes.post(
  "/dev/codec/gzip",
  requireScope("write"),
  limitBody("http.maxDevCodecBodyBytes"),
  validated("query", query, "codec timing"),
  async (c) => {
    const { op, rounds } = c.req.valid("query");
    const input = new Uint8Array(await c.req.arrayBuffer());
    const run =
      op === "compress"
        ? platformGzip
        : (body: Uint8Array) => platformGunzip(body, { maxOutputBytes: LIMITS.http.maxDevCodecOutputBytes });
    let bytesOut = 0;
    try {
      for (let i = 0; i < rounds; i++) bytesOut = (await run(input)).byteLength;
    } catch (err) {
      // Input the codec refuses is the caller's mistake, not the Worker's: say what the codec said.
      if (!(err instanceof CodecError)) throw err;
      if (err.code === "OUTPUT_LIMIT")
        throw new ProblemError({
          status: 413,
          code: "gzip_output_too_large",
          detail: err.message,
          limit: "http.maxDevCodecOutputBytes",
        });
      throw new ProblemError({
        status: 422,
        code: "invalid_gzip",
        detail: `${err.code}: ${err.message}`,
      });
    }
    return c.json({ op, rounds, bytesIn: input.byteLength, bytesOut });
  },
);
