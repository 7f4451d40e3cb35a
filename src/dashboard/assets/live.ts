/**
 * The dashboard's only script, served as /dashboard/live.js (CSP
 * `script-src 'nonce-…'`: loaded under the page's nonce, no inline script). On a pending purge's page it
 * polls the purge's JSON and copies each tier's state into its row, until
 * the purge is complete. Without it, the page refreshes itself instead.
 * Text only (textContent), never markup.
 */
export const LIVE_JS = `"use strict";
(function () {
  var root = document.querySelector("[data-purge-status]");
  if (!root || root.getAttribute("data-state") === "complete") return;
  var url = root.getAttribute("data-purge-status");
  function set(el, text) { if (el && el.textContent !== text) el.textContent = text; }
  function apply(view) {
    view.rows.forEach(function (row) {
      var tr = root.querySelector('tr[data-tier="' + CSS.escape(row.tier) + '"]');
      if (!tr) return;
      var state = tr.querySelector("[data-field=state]");
      set(state, row.state);
      if (state) state.className = row.acknowledged ? "ok" : "pending";
      set(tr.querySelector("[data-field=after]"), row.after);
      set(tr.querySelector("[data-field=lastError]"), row.lastError);
    });
    set(root.querySelector("[data-field=progress]"), view.progress);
    var overall = root.querySelector("[data-field=overall]");
    set(overall, view.state);
    if (overall) overall.className = view.state === "complete" ? "ok" : "pending";
    if (view.took !== null) {
      var took = root.querySelector("[data-field=took]");
      set(took, view.took);
      if (took && took.parentElement) took.parentElement.hidden = false;
    }
    root.setAttribute("data-state", view.state);
  }
  function poll(delay) {
    setTimeout(function () {
      fetch(url, { headers: { accept: "application/json" }, credentials: "same-origin" })
        .then(function (res) { return res.ok ? res.json() : null; })
        .then(function (view) {
          if (view) apply(view);
          if (!view || view.state !== "complete") poll(1000);
        }, function () { poll(3000); });
    }, delay);
  }
  poll(500);
})();
`;
