/**
 * `GET /api/limits`: the LIMITS table, so clients (the importer) size their
 * requests from what this deployment accepts instead of guessing.
 *
 * @example
 * const { limits } = await (await fetch(`${url}/api/limits`)).json();
 * limits.storage.maxRequestBytes; // largest write body, in bytes
 */
import { Hono } from "hono";
import { LIMITS } from "../../../src/limits.ts";
import type { LimitsBody } from "../../../src/wire.ts";

export const limitsRoute = new Hono<{ Bindings: Env }>();

limitsRoute.get("/limits", (c) =>
  c.json({ limits: LIMITS } satisfies LimitsBody, 200, { "cache-control": "public, max-age=300" }),
);
