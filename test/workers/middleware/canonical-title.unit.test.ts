/** workers/middleware/canonical-title.ts: a non-canonical title is a 301 to the canonical path (rest and query kept); a canonical one is the route's `ref`. */
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import type { PageRef } from "../../../src/page/page-ref.ts";
import { canonicalTitle } from "../../../workers/middleware/canonical-title.ts";

type E = { Variables: { ref: PageRef } };
const app = new Hono<E>().get(
  "/page/:title/history",
  canonicalTitle<E>(() => "/history"),
  (c) => c.text(c.get("ref").key),
);

describe("canonicalTitle", () => {
  it("redirects a lower-case first letter to the canonical title, keeping the rest of the path and the query", async () => {
    const res = await app.request("http://localhost/page/bip_0340/history?limit=5");
    expect(res.status).toBe(301);
    expect(res.headers.get("location")).toBe("http://localhost/page/Bip_0340/history?limit=5");
  });

  it("sets the canonical page as ref", async () => {
    const res = await app.request("http://localhost/page/Bip_0340/history");
    expect(res.status).toBe(200);
    expect(await res.text()).toBe("Bip_0340");
  });
});
