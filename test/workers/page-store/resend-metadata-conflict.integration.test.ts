/**
 * A re-send is idempotent only when it is the same revision: the same id and text with another contributor, timestamp, parent,
 * comment, content model or tags is refused with 409 naming each field and both
 * values, and the stored metadata stays as it was. Driven through the write
 * API as a writer holding a token would.
 */
import { describe, expect, it } from "vitest";
import { append, appendOk, linearHistory, request } from "../support/archive.ts";

interface Difference {
  field: string;
  stored: unknown;
  sent: unknown;
}

/** The stored metadata a refused re-send must leave as it was. */
interface StoredMetadata {
  id: number;
  parentId: number | null;
  timestamp: string;
  contributor: string;
  comment: string;
  tags: string[];
}

async function historyOf(key: string): Promise<StoredMetadata[]> {
  const res = await request(`/page/${key}/history`);
  expect(res.status).toBe(200);
  return (await res.json<{ revisions: StoredMetadata[] }>()).revisions;
}

describe("re-sending a stored revision", () => {
  it("answers 200 existing for the very same revision, even with its tags in another order", async () => {
    const key = "Resend_same";
    const base = linearHistory(3).map((r) => ({ ...r, tags: ["alpha", "beta"] }));
    await appendOk(key, base);
    const res = await append(key, [base[1]!, { ...base[2]!, tags: ["beta", "alpha"] }]);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ created: [], existing: [2, 3] });
  });

  it("refuses other metadata with 409, naming every field that differs with both values, and keeps what was stored", async () => {
    const key = "Resend_other";
    const base = linearHistory(3);
    await appendOk(key, base);
    const before = await historyOf(key);
    const forged = {
      ...base[1]!,
      contributor: "Mallory",
      timestamp: "2001-01-01T00:00:00Z",
      parentId: null,
      comment: "not what was said",
    };
    const res = await append(key, [forged]);
    expect(res.status).toBe(409);
    const problem = await res.json<{ code: string; revision: number; detail: string; differences: Difference[] }>();
    expect(problem).toMatchObject({ code: "revision_metadata_conflict", revision: 2 });
    expect(problem.differences).toEqual([
      { field: "parentId", stored: 1, sent: null },
      { field: "timestamp", stored: base[1]!.timestamp, sent: "2001-01-01T00:00:00Z" },
      { field: "contributor", stored: base[1]!.contributor, sent: "Mallory" },
      { field: "comment", stored: base[1]!.comment, sent: "not what was said" },
    ]);
    expect(problem.detail).toContain('contributor "Editor 1" stored, "Mallory" sent');
    expect(await historyOf(key)).toEqual(before);
  });

  it("refuses a changed content model or tags, and a batch that carries one commits nothing", async () => {
    const key = "Resend_fields";
    const base = linearHistory(2).map((r) => ({ ...r, tags: ["kept"] }));
    await appendOk(key, base);
    const model = await append(key, [{ ...base[1]!, model: "text" }]);
    expect(model.status).toBe(409);
    expect((await model.json<{ differences: Difference[] }>()).differences).toEqual([
      { field: "model", stored: "wikitext", sent: "text" },
      { field: "format", stored: "text/x-wiki", sent: "text/plain" },
    ]);

    const next = linearHistory(3)[2]!;
    const tags = await append(key, [{ ...base[1]!, tags: ["kept", "added"] }, next]);
    expect(tags.status).toBe(409);
    expect((await tags.json<{ differences: Difference[] }>()).differences).toEqual([
      { field: "tags", stored: ["kept"], sent: ["kept", "added"] },
    ]);
    expect((await historyOf(key)).map((r) => r.id)).toEqual([2, 1]);
  });

  it("refuses a re-send whose given SHA-1 does not match its text", async () => {
    const key = "Resend_sha1";
    const base = linearHistory(2);
    await appendOk(key, base);
    const res = await append(key, [{ ...base[1]!, sha1: "0".repeat(31) }]);
    expect(res.status).toBe(422);
    expect(await res.json()).toMatchObject({ code: "sha1_mismatch", revision: 2 });
  });
});
