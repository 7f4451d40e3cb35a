/**
 * A public export validates against MediaWiki's own schema, export-0.11.xsd
 * as Debian's mediawiki package ships it, with xmllint (libxml2-utils):
 * every `<page>` has its `<id>` (the wiki's page id when an import or the
 * follower gave it, a stable id of the archive's otherwise), and hidden
 * contributors, comments and texts are written as XmlDumpWriter writes them.
 * Cache tags and a backup's content are our own namespace's elements, which
 * the schema has no place for: this file exports pages without tags, as
 * anyone reading a followed wiki would.
 */
import { execFile } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { gunzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import type { NewRevision } from "../../../../src/page/types.ts";
import { commandMissing, fileMissing, present } from "../../support/requirements.ts";
import { importHarnessForThisFile } from "../import/support/import-cli-harness.ts";
import { clientOf, exportSummaryOf, runExport } from "./support/export-harness.ts";

const run = promisify(execFile);
const XSD_GZ = "/usr/share/doc/mediawiki/docs/export-0.11.xsd.gz";

/**
 * The XML namespace's attributes as the XML 1.0 specification defines them. MediaWiki's schema imports
 * them from www.w3.org, which the tests never reach (xmllint --nonet): this declares the two it uses.
 */
const XML_NAMESPACE_XSD = `<?xml version="1.0"?>
<xs:schema targetNamespace="http://www.w3.org/XML/1998/namespace" xmlns:xs="http://www.w3.org/2001/XMLSchema" xml:lang="en">
  <xs:attribute name="lang" type="xs:language"/>
  <xs:attribute name="space">
    <xs:simpleType>
      <xs:restriction base="xs:NCName">
        <xs:enumeration value="default"/>
        <xs:enumeration value="preserve"/>
      </xs:restriction>
    </xs:simpleType>
  </xs:attribute>
</xs:schema>
`;

function history(count: number, firstId: number): NewRevision[] {
  return Array.from({ length: count }, (_, i) => ({
    id: firstId + i,
    parentId: i === 0 ? null : firstId + i - 1,
    timestamp: new Date(Date.UTC(2022, 1, 1) + i * 60_000).toISOString().replace(".000Z", "Z"),
    contributor: i % 2 ? "203.0.113.9" : `Schema writer ${i}`,
    comment: i % 3 ? `edit ${i} <&>` : "",
    model: "wikitext",
    text: `== ${i} ==\nText & more <b>${i}</b>\r\n`,
  }));
}

describe("a public export validates against MediaWiki's export-0.11.xsd", () => {
  const h = importHarnessForThisFile();

  it("with page ids, hidden texts, comments and contributors", async () => {
    if (!present(commandMissing("xmllint"), "xmllint (Debian libxml2-utils)")) return;
    if (!present(fileMissing(XSD_GZ, "MediaWiki's export-0.11.xsd (Debian mediawiki)"), "export-0.11.xsd")) return;
    const client = clientOf(h);
    await client.append("Schema_plain", history(3, 10));
    await client.append("Talk:Schema_hidden", history(4, 20));
    await client.setSuppressed("Talk:Schema_hidden", 21, true, "schema test");
    await client.setHidden("Talk:Schema_hidden", 22, { comment: true, contributor: true }, "schema test");
    // A page from a wiki: its own page id.
    await client.append("Schema_from_wiki", history(2, 30), { wikiPageId: 4242 });

    const dir = h.scratch;
    const xsd = join(dir, "export-0.11.xsd");
    await writeFile(join(dir, "xml.xsd"), XML_NAMESPACE_XSD);
    await writeFile(
      xsd,
      gunzipSync(await readFile(XSD_GZ))
        .toString("utf8")
        .replace('schemaLocation="http://www.w3.org/2001/xml.xsd"', 'schemaLocation="xml.xsd"'),
    );
    const file = join(dir, "public.xml");
    exportSummaryOf(await runExport(h, file, [], { token: null }));
    const xml = await readFile(file, "utf8");
    expect(xml).toContain("<id>4242</id>");
    expect(xml.match(/<page>\n {4}<title>[^<]*<\/title>\n {4}<ns>\d+<\/ns>\n {4}<id>\d+<\/id>\n/g)).toHaveLength(3);
    expect(xml).toContain('<contributor deleted="deleted" />');
    expect(xml).toContain('<comment deleted="deleted" />');
    expect(xml).toContain('<text deleted="deleted" />');

    const checked = await run("xmllint", ["--nonet", "--noout", "--schema", xsd, file]).then(
      (r) => ({ code: 0, stderr: r.stderr }),
      (err: { code: number; stderr: string }) => ({ code: err.code, stderr: err.stderr }),
    );
    expect(checked.stderr.trim()).toBe(`${file} validates`);
    expect(checked.code).toBe(0);

    // The same export of the same archive, twice: the ids are stable.
    const again = join(dir, "again.xml");
    exportSummaryOf(await runExport(h, again, [], { token: null }));
    expect(await readFile(again, "utf8")).toBe(xml);
  });
});
