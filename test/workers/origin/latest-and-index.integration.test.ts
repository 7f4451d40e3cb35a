/**
 * A page's latest and its memento index are rendered together (src/origin/latest-and-index.ts), so
 * a tier that missed one keeps the other. A latest bigger than a tier entry could not be kept, so an
 * index miss does not read it.
 */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import "../../../src/codec/install-worker.ts";
import { HopTimer } from "../../../src/http/server-timing.ts";
import { LIMITS } from "../../../src/limits.ts";
import { renderWithCompanions } from "../../../src/origin/latest-and-index.ts";
import { pageRef } from "../../../src/page/page-ref.ts";
import { appendOk, linearHistory } from "../support/archive.ts";

describe("an index miss and the page's latest", () => {
  it("renders the latest beside the index when a tier can keep it", async () => {
    await appendOk("Small_latest", linearHistory(3));
    const timer = new HopTimer();
    const { answer, also } = await renderWithCompanions(env, { kind: "mementos", ref: pageRef("Small_latest") }, timer);
    expect(answer.status).toBe(200);
    expect(also.map((c) => c.query.kind)).toEqual(["latest"]);
    expect(Object.keys(timer.timings)).toContain("decode");
  });

  it("does not read a latest bigger than a tier entry: the index goes alone, nothing decoded", async () => {
    const line = "A line of a page far bigger than any tier entry holds, 0123456789.\n";
    const big = line.repeat(Math.ceil((LIMITS.tiers.maxEntryBytes + 64 * 1024) / line.length));
    await appendOk(
      "Huge_latest",
      linearHistory(2, 1, (i) => (i === 0 ? "A short first revision.\n" : big)),
    );
    const timer = new HopTimer();
    const { answer, also } = await renderWithCompanions(env, { kind: "mementos", ref: pageRef("Huge_latest") }, timer);
    expect(answer.status).toBe(200);
    expect(also).toEqual([]);
    expect(Object.keys(timer.timings)).not.toContain("blob");
    expect(Object.keys(timer.timings)).not.toContain("decode");
    // Asked for, the latest is still read and answered.
    const latest = await renderWithCompanions(env, { kind: "latest", ref: pageRef("Huge_latest") });
    expect(latest.answer.status).toBe(200);
    expect(latest.answer.body.byteLength).toBe(new TextEncoder().encode(big).byteLength);
  });
});
