// Requests: the tenant's journal, newest first, polled every 400 ms while
// shown; filters apply in the tab; an entry opens to its bodies.
import { call, document as openapi, session } from "./api.js";
import { curlCommand } from "./curl.js";
import { fill, h, pretty, when } from "./dom.js";

const POLL_MS = 400;
/** A busy journal's list is fetched about once a second (a suite sending thousands of
 * requests a second): a budget of two fetches, refilled one a second. */
const REFETCH_MS = 1000;
const REFETCH_BURST = 2;
const LIMIT = 1000;
/** Rows drawn until "Show all": a 1,000-row table costs Chromium ~70 ms a draw, 200 rows ~15 ms. */
const SHOWN = 200;

/** The served documents the journal's operations come from, with Swagger UI's names for them. */
const VENDOR_DOCUMENTS = [
  { file: "platform-v4", title: "platform v4" },
  { file: "partner-billing-v1", title: "partner billing v1" },
];

export function show(container, context) {
  let entries = [];
  let shownNewest = null;
  let budget = REFETCH_BURST;
  let budgetAt = performance.now();
  let showAll = false;
  let selected = null;
  let operations = new Map(); // operationId -> { tag, title }
  const filters = { operation: "", statusClass: "", text: "" };

  const operationSelect = h("select", { id: "filter-operation", onchange: () => { filters.operation = operationSelect.value; render(); } },
    h("option", { value: "" }, "every operation"));
  const statusSelect = h("select", { id: "filter-status", onchange: () => { filters.statusClass = statusSelect.value; render(); } },
    h("option", { value: "" }, "every status"),
    ["2", "3", "4", "5"].map((digit) => h("option", { value: digit }, `${digit}xx`)));
  const textInput = h("input", { id: "filter-text", type: "search", maxlength: 200, placeholder: "/api/billing/...",
    oninput: () => { filters.text = textInput.value; render(); } });
  const live = h("input", { id: "filter-live", type: "checkbox", checked: true });
  const count = h("p", { class: "muted", "aria-live": "polite" });
  const list = h("div", { class: "journal" });
  const detail = h("div", { class: "detail", id: "request-detail" });

  fill(container,
    h("h2", {}, "Requests"),
    h("form", { class: "filters", onsubmit: (event) => event.preventDefault() },
      h("label", { for: "filter-operation" }, "Operation"), operationSelect,
      h("label", { for: "filter-status" }, "Status"), statusSelect,
      h("label", { for: "filter-text" }, "Path contains"), textInput,
      h("label", { class: "inline" }, live, " live"),
      h("button", { type: "button", onclick: clearJournal }, "Clear the journal")),
    count,
    h("div", { class: "split" }, list, detail));

  function matches(entry) {
    return (!filters.operation || entry.operationId === filters.operation)
      && (!filters.statusClass || String(entry.status).startsWith(filters.statusClass))
      && (!filters.text || `${entry.path}?${entry.query || ""}`.toLowerCase().includes(filters.text.toLowerCase()));
  }

  function render() {
    // A live redraw keeps the keyboard focus on the entry it was on.
    const focused = list.contains(document.activeElement) ? document.activeElement.dataset.key : undefined;
    const matching = entries.filter(matches);
    const shown = showAll ? matching : matching.slice(0, SHOWN);
    fill(count, `${matching.length} of ${entries.length} requests (the last ${LIMIT} at most)`,
      shown.length < matching.length ? `; the newest ${shown.length} shown` : "");
    const rows = shown.map((entry) => h("tr", { class: entry === selected ? "selected" : "" },
      h("td", { title: when(entry.at), class: "nowrap" }, String(entry.at).slice(11, 23)),
      h("td", {}, h("button", { type: "button", class: "link", "data-key": keyOf(entry), onclick: () => open(entry) }, `${entry.method} ${entry.path}`)),
      h("td", {}, entry.operationId),
      h("td", { class: `status s${String(entry.status)[0]}` }, String(entry.status)),
      h("td", { class: "number" }, String(entry.durationMs)),
      // Test mode's own controls (a clock move, a fault armed or disarmed, a reset) say so.
      h("td", {}, [entry.kind && entry.kind !== "request" ? `test ${entry.kind}` : "", entry.fault ? `fault: ${entry.fault}` : "",
        entry.replayed ? "replayed" : ""].filter(Boolean).join(", "))));
    fill(list, h("table", { id: "journal" },
      h("caption", { class: "visually-hidden" }, "The journal, newest first"),
      h("thead", {}, h("tr", {}, ["Time (UTC)", "Request", "Operation", "Status", "ms", "Note"].map((label) => h("th", { scope: "col" }, label)))),
      h("tbody", {}, rows)),
    shown.length < matching.length
      ? h("button", { type: "button", class: "more", onclick: () => { showAll = true; render(); } }, `Show all ${matching.length}`)
      : "");
    if (focused) [...list.querySelectorAll("button[data-key]")].find((button) => button.dataset.key === focused)?.focus();
    if (!document.body.dataset.journalRenderedMs) document.body.dataset.journalRenderedMs = String(Math.round(performance.now()));
  }

  // Bodies as the journal kept them (compact, every digit), indented only when asked.
  let indented = false;
  function open(entry) {
    selected = entry;
    const target = `${entry.path}${entry.query ? `?${entry.query}` : ""}`;
    const operation = operations.get(entry.operationId);
    const curl = h("pre", { class: "body", id: "curl", hidden: true });
    fill(detail,
      h("h3", {}, `${entry.method} ${target}`),
      h("dl", {},
        h("dt", {}, "Status"), h("dd", {}, `${entry.status}${entry.fault ? ` (fault: ${entry.fault})` : ""}${entry.replayed ? " (replayed)" : ""}`),
        h("dt", {}, "Duration"), h("dd", {}, `${entry.durationMs} ms`),
        h("dt", {}, "Arrived"), h("dd", {}, when(entry.at)),
        h("dt", {}, "Operation"), h("dd", {}, entry.operationId, " ",
          operation ? h("a", { href: swaggerLink(operation, entry.operationId), target: "_blank", rel: "noopener" }, "in Swagger UI") : ""),
        h("dt", {}, "Idempotency key"), h("dd", {}, entry.idempotencyKey || "(none)"),
        h("dt", {}, "Request id"), h("dd", {}, h("code", {}, entry.requestId))),
      h("label", { class: "inline" },
        h("input", { type: "checkbox", id: "pretty-bodies", checked: indented, onchange: (event) => { indented = event.target.checked; open(entry); } }),
        "Indent the bodies"),
      h("h4", {}, "Request body"), h("pre", { class: "body" }, pretty(entry.requestBody, indented)),
      h("h4", {}, "Response body"), h("pre", { class: "body" }, pretty(entry.responseBody, indented)),
      h("button", { type: "button", onclick: () => copyCurl(entry, curl) }, "Copy as curl"),
      curl);
    render();
    detail.querySelector("h3").setAttribute("tabindex", "-1");
    detail.querySelector("h3").focus();
  }

  // Polled cheaply: the newest entry only; when it changed, what came since it
  // (`after`, ids grow with time), or the whole list when the journal shrank
  // (cleared, or a sandbox reset).
  let busy = false;
  async function refresh() {
    if (busy || (!live.checked && shownNewest !== null)) return;
    busy = true;
    try {
      const newest = (await call("GET", "/api/test/requests?limit=1"))[0]?.id || "";
      const now = performance.now();
      budget = Math.min(REFETCH_BURST, budget + (now - budgetAt) / REFETCH_MS);
      budgetAt = now;
      if (newest !== shownNewest && budget >= 1) {
        budget -= 1;
        if (shownNewest && newest > shownNewest) {
          const since = await call("GET", `/api/test/requests?after=${shownNewest}&limit=${LIMIT}`);
          entries = since.concat(entries).slice(0, LIMIT);
        } else {
          entries = await call("GET", `/api/test/requests?limit=${LIMIT}`);
        }
        shownNewest = entries[0]?.id || "";
        if (selected) selected = entries.find((entry) => entry.requestId === selected.requestId) || null;
        render();
      }
      context.clear();
    } catch (error) {
      context.report(error);
    } finally {
      busy = false;
    }
  }

  function clearJournal() {
    return context.attempt(async () => {
      await call("DELETE", "/api/test/requests");
      selected = null;
      fill(detail);
      await refresh();
    });
  }

  // The operations of the token's document, for the filter and Swagger UI's links.
  (async () => {
    const claims = session.claims;
    for (const { file, title } of VENDOR_DOCUMENTS) {
      const doc = await openapi(file).catch(() => null);
      for (const item of Object.values(doc?.paths || {})) {
        for (const op of Object.values(item)) {
          if (op && op.operationId) operations.set(op.operationId, { tag: (op.tags || [""])[0], title, file });
        }
      }
    }
    const own = claims.partnerId ? "partner-billing-v1" : "platform-v4";
    const names = [...operations].filter(([, op]) => op.file === own).map(([id]) => id).sort();
    operationSelect.append(...names.map((name) => h("option", { value: name }, name)));
    if (selected) open(selected);
  })();

  refresh();
  const timer = setInterval(() => { if (!document.hidden) refresh(); }, POLL_MS);
  return () => clearInterval(timer);
}

/** An entry's identity in the list (a client may send its own request ids, so not those alone). */
function keyOf(entry) {
  return `${entry.requestId} ${entry.at}`;
}

function swaggerLink({ tag, title }, operationId) {
  return `/docs/?urls.primaryName=${encodeURIComponent(title)}#/${encodeURIComponent(tag)}/${encodeURIComponent(operationId)}`;
}

/** curl for an entry (`curl.js`): the token as a variable, never its value; bodies as the journal kept them (secrets masked). */
function copyCurl(entry, output) {
  const text = curlCommand(entry, location.origin);
  fill(output, text);
  output.hidden = false;
  navigator.clipboard?.writeText(text).catch(() => {});
}
