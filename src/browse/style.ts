/**
 * The browse pages' stylesheet: the shared one in src/ui (one look, one set of
 * contrast-checked colours) plus what only these pages need, inlined into
 * every page and allowed by its hash in the CSP, so a page is one request and
 * stays cacheable (a per-response nonce would not be).
 */
import { STYLE as BASE } from "../ui/style.ts";

const BROWSE = `
.lede{max-width:44rem}
form.search{display:flex;flex-wrap:wrap;gap:.5rem;align-items:end;max-width:40rem;margin:1rem 0}
form.search div{flex:1 1 16rem}
input[type=search]{display:block;width:100%;font:inherit;padding:.5rem;border:1px solid var(--muted);border-radius:4px}
header form.search{margin:0;flex-wrap:nowrap;align-items:center}
header form.search input{width:16rem}
ul.plain{list-style:none;padding:0;margin:0}
ul.plain li{padding:.35rem 0;border-bottom:1px solid var(--line)}
.meta{color:var(--muted)}
.year h2{position:sticky;top:0;background:var(--bg);padding:.25rem 0}
table.diff{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:.9rem;table-layout:fixed}
table.diff td.text{white-space:pre-wrap;overflow-wrap:anywhere;width:auto}
table.diff th.ln,table.diff td.ln{width:5rem;text-align:right;color:var(--muted)}
table.diff th.sign,table.diff td.sign{width:2rem;text-align:center}
tr.add td{background:#e6f4ea}
tr.del td{background:#fbe9ea}
tr.gap td{background:var(--panel);color:var(--muted);font-style:italic}
ins{background:#b7e1c1;text-decoration:none}
del{background:#f3c3c6;text-decoration:line-through}
pre.archived{white-space:pre-wrap;overflow-wrap:anywhere;background:var(--panel);border:1px solid var(--line);padding:1rem;font-size:.9rem;margin:0}
iframe.archived{display:block;width:100%;height:70vh;border:1px solid var(--line);background:#fff}
td.web code{overflow-wrap:anywhere}
ul.links{display:flex;flex-wrap:wrap;gap:.5rem 1.5rem;margin:.5rem 0 1rem;padding:0;list-style:none}
nav.edits ul{justify-content:space-between;margin:1rem 0}
nav.years ul{margin:.25rem 0 1rem}
form.asof{margin:1rem 0;max-width:44rem}
form.asof fieldset{display:flex;flex-wrap:wrap;gap:.75rem 1rem;align-items:end}
form.asof label{display:block}
form.asof input,form.asof select{font:inherit;padding:.4rem;border:1px solid var(--muted);border-radius:4px;background:var(--bg);color:var(--ink)}
form.asof input{width:7rem}
.note{border-left:4px solid var(--accent);background:var(--panel);padding:.5rem 1rem;margin:1rem 0}
footer{max-width:72rem;margin:0 auto;padding:1rem 1.5rem 2rem;color:var(--muted);border-top:1px solid var(--line)}
`;

export const BROWSE_STYLE = BASE + BROWSE;

let hash: Promise<string> | undefined;

/** The CSP source that allows exactly {@link BROWSE_STYLE} inline: `'sha256-…'`. */
export function styleHash(): Promise<string> {
  hash ??= crypto.subtle.digest("SHA-256", new TextEncoder().encode(BROWSE_STYLE)).then((d) => {
    let bin = "";
    for (const byte of new Uint8Array(d)) bin += String.fromCharCode(byte);
    return `'sha256-${btoa(bin)}'`;
  });
  return hash;
}
