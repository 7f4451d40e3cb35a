/**
 * What a writer controls must not let it deceive readers. A format cannot
 * pick the Content-Type a revision is served with (a `text` page as SVG or
 * HTML, a `css` page as HTML); titles cannot hide in directional or
 * invisible characters, and names shown in pages are isolated with <bdi>,
 * so a right-to-left override in a contributor's name cannot reorder a
 * history row.
 */
import { describe, expect, it } from "vitest";
import { append, linearHistory, request } from "../support/archive.ts";
import { expectProblemCode } from "../support/problems.ts";

const one = (over: Record<string, unknown> = {}) => [{ ...linearHistory(1)[0]!, ...over }];

describe("a revision's format", () => {
  it.each([
    ["text", "image/svg+xml", "text/plain"],
    ["text", "text/html", "text/plain"],
    ["css", "text/html", "text/css"],
    ["wikitext", "text/javascript", "text/x-wiki"],
  ])(
    "model %s with format %s is refused with 422 naming the allowed one, and nothing is stored",
    async (model, format, allowed) => {
      const page = `Format_${model}_${format.replace(/\W/g, "_")}`;
      const res = await append(page, one({ model, format, id: 7 }));
      expect(res.status).toBe(422);
      const body = await res.json<{ code: string; detail: string; field: string }>();
      expect(body.code).toBe("format_not_allowed");
      expect(body.field).toBe("revisions.0.format");
      expect(body.detail).toContain("revision 7");
      expect(body.detail).toContain(`allowed: ${allowed}`);
      expect((await request(`/page/${page}`)).status).toBe(404);
    },
  );

  it("the model's own format is accepted and decides the Content-Type, with nosniff", async () => {
    expect(
      (await append("Format_css_ok", one({ model: "css", format: "text/css", text: "body { color: red }" }))).status,
    ).toBe(201);
    const res = await request("/page/Format_css_ok");
    expect(res.headers.get("content-type")).toBe("text/css; charset=utf-8");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
  });
});

describe("titles and names", () => {
  it("strips directional controls from a title, as MediaWiki does: the override spells the same page", async () => {
    const res = await append("Invoice\u202Efdp.exe", linearHistory(1));
    expect(res.status).toBe(201);
    expect((await res.json<{ page: string }>()).page).toBe("Invoicefdp.exe");
    const read = await request(`/page/${encodeURIComponent("Invoice\u202Efdp.exe")}`);
    expect([301, 308]).toContain(read.status);
    expect(read.headers.get("location")).toContain("/page/Invoicefdp.exe");
  });

  it.each([
    ["zero-width space", "Pay\u200Bpal", "U+200B"],
    ["soft hyphen", "Pay\u00ADpal", "U+00AD"],
    ["ZWNJ between Latin letters", "Pay\u200Cpal", "U+200C"],
    ["byte-order mark", "\uFEFFPaypal", "U+FEFF"],
    ["left-to-right isolate (MediaWiki keeps it)", "Pay\u2066pal", "U+2066"],
    ["Arabic letter mark (MediaWiki keeps it)", "Paypal\u061C", "U+061C"],
    ["tag character", "Paypal\u{E0041}", "U+E0041"],
    ["variation selector after a letter", "Paypal\uFE0F", "U+FE0F"],
  ])("refuses a title holding a %s with 400 naming the code point", async (_, title, cp) => {
    const res = await append(title, linearHistory(1));
    expect(res.status).toBe(400);
    const body = await res.json<{ code: string; detail: string }>();
    expect(body.code).toBe("invalid_title");
    expect(body.detail).toContain(cp);
    expect((await request(`/page/${encodeURIComponent(title)}`)).status).toBe(400);
  });

  it("never folds a look-alike the wiki keeps apart into an archived page: Foo + U+2066 leaves Foo as it was", async () => {
    expect((await append("Lookalike_target", linearHistory(1))).status).toBe(201);
    const before = await (await request("/page/Lookalike_target")).text();
    const res = await append("Lookalike_target\u2066", [{ ...linearHistory(2)[1]!, parentId: 1, id: 90_001 }]);
    await expectProblemCode(res, 400, "invalid_title");
    expect(await (await request("/page/Lookalike_target")).text()).toBe(before);
    expect((await request("/page/Lookalike_target/90001")).status).toBe(404);
  });

  it("keeps ZWNJ where a script needs it (Persian)", async () => {
    const res = await append("می\u200Cخواهم", linearHistory(1));
    expect(res.status).toBe(201);
  });

  it("refuses a contributor name with an invisible character, and strips directional controls from one", async () => {
    const refused = await append("Names_invisible", one({ contributor: "Admin\u200B" }));
    await expectProblemCode(refused, 422, "invalid_contributor");
    expect(
      (await append("Names_bidi", one({ contributor: "Mallory\u202Egnp.exe", comment: "\u202Ereversed comment" })))
        .status,
    ).toBe(201);
    const history = await (
      await request("/page/Names_bidi/history")
    ).json<{
      revisions: Array<{ contributor: string }>;
    }>();
    expect(history.revisions[0]!.contributor).toBe("Mallorygnp.exe");
  });

  it("isolates contributor and comment with <bdi> in the history page", async () => {
    const html = await (await request("/page/Names_bidi/history", { headers: { accept: "text/html" } })).text();
    expect(html).toContain("<bdi>Mallorygnp.exe</bdi>");
    expect(html).toContain("<bdi>\u202Ereversed comment</bdi>");
    expect(html).toMatch(/History of <bdi>Names bidi<\/bdi>/);
  });
});
