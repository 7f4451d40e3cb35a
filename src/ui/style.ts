/**
 * The stylesheet every page shares, public and dashboard: the dashboard
 * inlines it under its CSP nonce, the public pages add their own rules
 * (src/browse/style.ts) and inline it under its hash, so the first paint
 * waits on no second request. Colours keep at least 4.5:1 contrast on their
 * backgrounds; focus is always visible.
 */
export const STYLE = `
:root{color-scheme:light;--ink:#1b1f24;--muted:#4d5661;--line:#c9d0d8;--accent:#0b57a4;--ok:#0a6b2e;--wait:#8a4600;--bad:#a4161a;--bg:#fff;--panel:#f4f6f8}
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--ink);background:var(--bg)}
a{color:var(--accent)}
:focus-visible{outline:3px solid var(--accent);outline-offset:2px}
.skip{position:absolute;left:-999px;top:0;background:var(--bg);padding:.5rem 1rem}
.skip:focus{left:0}
.visually-hidden{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
header{display:flex;flex-wrap:wrap;gap:1rem;align-items:center;justify-content:space-between;padding:.75rem 1.5rem;border-bottom:1px solid var(--line);background:var(--panel)}
header .brand{font-weight:700;text-decoration:none;color:var(--ink)}
nav ul{display:flex;flex-wrap:wrap;gap:1rem;margin:0;padding:0;list-style:none}
nav a[aria-current=page]{font-weight:700;color:var(--ink)}
main{max-width:72rem;margin:0 auto;padding:1rem 1.5rem 3rem}
h1{font-size:1.6rem;margin:.5rem 0 1rem}
h2{font-size:1.25rem;margin:2rem 0 .75rem}
table{border-collapse:collapse;width:100%;margin:.5rem 0 1rem;font-variant-numeric:tabular-nums}
caption{text-align:left;font-weight:600;padding:.25rem 0}
th,td{text-align:left;padding:.35rem .6rem;border-bottom:1px solid var(--line);vertical-align:middle}
td.n,th.n{text-align:right}
.scroll{overflow-x:auto}
form.stack{display:grid;gap:1rem;max-width:40rem}
fieldset{border:1px solid var(--line);padding:.5rem 1rem 1rem}
fieldset label{margin-right:1.25rem;white-space:nowrap}
label{font-weight:600}
input[type=password],input[type=text],textarea{display:block;width:100%;font:inherit;padding:.5rem;border:1px solid var(--muted);border-radius:4px}
textarea{min-height:8rem;font-family:ui-monospace,SFMono-Regular,Menlo,monospace}
[aria-invalid=true]{border-color:var(--bad);border-width:2px}
.hint{color:var(--muted);margin:.25rem 0 0;font-weight:400}
button{font:inherit;font-weight:600;padding:.5rem 1.25rem;border:2px solid var(--accent);border-radius:4px;background:var(--accent);color:#fff;cursor:pointer;justify-self:start}
button.link{background:none;border:none;color:var(--accent);padding:0;text-decoration:underline;font-weight:400}
.alert{border-left:4px solid var(--bad);background:#fdf0f0;padding:.5rem 1rem;margin:1rem 0}
.alert ul{margin:.25rem 0;padding-left:1.25rem}
.ok{color:var(--ok);font-weight:600}
.pending{color:var(--wait);font-weight:600}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:.25rem 1rem;margin:0 0 1rem}
dl.facts dt{font-weight:600}
dl.facts dd{margin:0}
dl.facts>div:not([hidden]){display:contents}
svg.spark{display:block;overflow:visible}
svg.spark path{fill:none;stroke:var(--accent);stroke-width:1.5}
svg.spark line{stroke:var(--line);stroke-width:1}
.pager{display:flex;gap:1.5rem;margin:1rem 0}
form.inline{display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:center}
form.inline .choice{white-space:nowrap}
form.inline .reason{display:flex;gap:.5rem;align-items:center;flex:1 1 14rem}
form.inline input[type=text]{display:inline-block;width:auto;flex:1;min-width:10rem}
.notice{border-left:4px solid var(--ok);background:#eef8f1;padding:.5rem 1rem;margin:1rem 0}
code{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:.95em}
`;
