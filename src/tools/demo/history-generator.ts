/**
 * Generates demo pages with realistic revision histories from a seeded PRNG,
 * so `npm start` shows a working archive without shipping anyone's text.
 * Edits follow the shapes real histories have: typo fixes, added sentences,
 * new sections, vandalism and its revert (which makes a duplicate content).
 */
import type { NewRevision } from "../../page/types.ts";
import { mulberry32 } from "../../lib/mulberry32.ts";

const SYLLABLES = [
  "pal",
  "imp",
  "sest",
  "ar",
  "chi",
  "ve",
  "re",
  "vi",
  "sion",
  "lo",
  "ra",
  "tel",
  "mon",
  "dra",
  "ke",
  "stor",
  "via",
  "quen",
  "tor",
  "lex",
];
const LINKS = ["Archive", "Revision", "Edge cache", "Brotli", "Manuscript", "Vellum", "Scribe", "Library"];

class Writer {
  constructor(private readonly rand: () => number) {}
  pick<T>(xs: readonly T[]): T {
    return xs[Math.floor(this.rand() * xs.length)]!;
  }
  word(): string {
    let w = "";
    const n = 1 + Math.floor(this.rand() * 3);
    for (let i = 0; i < n; i++) w += this.pick(SYLLABLES);
    return w;
  }
  sentence(): string {
    const n = 6 + Math.floor(this.rand() * 12);
    const words = Array.from({ length: n }, () => (this.rand() < 0.08 ? `[[${this.pick(LINKS)}]]` : this.word()));
    const s = words.join(" ");
    return `${s[0]!.toUpperCase()}${s.slice(1)}.`;
  }
  paragraph(): string {
    return Array.from({ length: 3 + Math.floor(this.rand() * 4) }, () => this.sentence()).join(" ");
  }
}

export interface DemoPage {
  title: string;
  revisions: NewRevision[];
}

export function generateDemoPage(title: string, seed: number, revisionCount: number, firstId: number): DemoPage {
  const rand = mulberry32(seed);
  const w = new Writer(rand);
  let sections: Array<{ heading: string; paragraphs: string[] }> = [
    { heading: "Overview", paragraphs: [w.paragraph()] },
  ];
  const render = () =>
    `'''${title}''' is a page of the Palimpsest demo archive.\n\n` +
    sections.map((s) => `== ${s.heading} ==\n${s.paragraphs.join("\n\n")}\n`).join("\n");
  const authors = ["Aldhelm", "Brigid", "Cuthbert", "Dymphna", "Egbert", "203.0.113.7"];
  const revisions: NewRevision[] = [];
  let time = Date.UTC(2012, 0, 1) / 1000 + Math.floor(rand() * 86400 * 30);
  let previous = "";
  let beforeVandalism: typeof sections | null = null;
  for (let i = 0; i < revisionCount; i++) {
    let comment: string;
    const r = rand();
    if (beforeVandalism) {
      sections = beforeVandalism;
      beforeVandalism = null;
      comment = "Reverted vandalism";
    } else if (i === 0) comment = "Created page";
    else if (r < 0.35) {
      const s = w.pick(sections);
      s.paragraphs[s.paragraphs.length - 1] += ` ${w.sentence()}`;
      comment = `Expanded ${s.heading}`;
    } else if (r < 0.6) {
      const s = w.pick(sections);
      const p = Math.floor(rand() * s.paragraphs.length);
      s.paragraphs[p] = s.paragraphs[p]!.replace(/\b(\w+)\b/, () => w.word());
      comment = "Copyedit";
    } else if (r < 0.8) {
      sections.push({
        heading: w.word().replace(/^./, (c) => c.toUpperCase()),
        paragraphs: [w.paragraph(), w.paragraph()],
      });
      comment = "New section";
    } else if (r < 0.9) {
      w.pick(sections).paragraphs.push(w.paragraph());
      comment = "Added a paragraph";
    } else {
      beforeVandalism = structuredClone(sections);
      sections = [{ heading: "LOL", paragraphs: ["this page is rubbish"] }, ...sections.slice(1)];
      comment = "";
    }
    const text = render();
    if (text === previous) continue;
    previous = text;
    time += 3600 + Math.floor(rand() * 86400 * 20);
    revisions.push({
      id: firstId + revisions.length,
      parentId: revisions.length === 0 ? null : firstId + revisions.length - 1,
      timestamp: new Date(time * 1000).toISOString().replace(".000Z", "Z"),
      contributor: w.pick(authors),
      comment,
      model: "wikitext",
      text,
    });
  }
  return { title, revisions };
}

/** The demo archive: a few pages of different lengths, deterministic across machines. */
export function demoPages(): DemoPage[] {
  return [
    generateDemoPage("Palimpsest demo", 1, 40, 1_000_001),
    generateDemoPage("Vellum", 2, 120, 2_000_001),
    generateDemoPage("Scriptorium", 3, 12, 3_000_001),
  ];
}
