/** workers/middleware/canonical-page.ts: a browse page's canonical URL first (a 301 before any colo is looked at), then its colo. */
import { env } from "cloudflare:test";
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { onError } from "../../../src/http/problem.ts";
import type { PageRef } from "../../../src/page/page-ref.ts";
import type { AppEnv } from "../../../workers/app-env.ts";
import { canonicalPage } from "../../../workers/middleware/canonical-page.ts";
import { expectProblemCode } from "../support/problems.ts";

const app = new Hono<AppEnv & { Variables: { ref: PageRef } }>()
  .get(
    "/view/:title",
    canonicalPage(() => "", "/view"),
    (c) => c.json({ ref: c.get("ref").key, ...c.get("colo") }),
  )
  .onError(onError);

/** The page at `path`, asked as if from `colo`. */
const ask = (path: string, colo: string) =>
  app.request(`http://localhost${path}`, { headers: { "x-palimpsest-colo": colo } }, env);

describe("canonicalPage", () => {
  it("redirects a non-canonical title under its prefix, before the colo is resolved", async () => {
    const res = await ask("/view/bip_0340?at=1", "NOWHERE");
    expect(res.status).toBe(301);
    expect(res.headers.get("location")).toBe("http://localhost/view/Bip_0340?at=1");
  });

  it("sets the page as ref and the colo the request arrived at", async () => {
    const res = await ask("/view/Bip_0340", "syd");
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ ref: "Bip_0340", colo: "SYD" });
  });

  it("refuses a colo the topology does not know, for a canonical title", async () => {
    const res = await ask("/view/Bip_0340", "NOWHERE");
    await expectProblemCode(res, 400, "unknown_colo");
  });
});
