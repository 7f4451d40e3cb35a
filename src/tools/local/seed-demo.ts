/**
 * Seeds the local archive with the generated demo pages, once: a page that
 * already has revisions is left alone.
 */
import { demoPages } from "../demo/history-generator.ts";
import { normalizeTitle } from "../../page/title.ts";
import { ArchiveClient } from "./archive-client.ts";

export async function seedDemo(url: string, token: string): Promise<string[]> {
  const client = new ArchiveClient({ url, token });
  const seeded: string[] = [];
  for (const page of demoPages()) {
    const t = normalizeTitle(page.title);
    if (!t.ok) continue;
    if ((await client.latestId(t.key)) !== null) continue;
    for (let i = 0; i < page.revisions.length; i += 50) await client.append(t.key, page.revisions.slice(i, i + 50));
    seeded.push(t.key);
  }
  return seeded;
}
