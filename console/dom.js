// Building the page from data anyone may have sent (journal bodies, names):
// text only ever goes in as text nodes and attributes as plain values; no
// HTML string is parsed anywhere in the console, so a body carrying <script>
// or an onerror handler stays a string on screen.

/** An element: h("button", { type: "button", onclick: fn }, "text", child, ...). */
export function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith("on")) element.addEventListener(name.slice(2), value);
    else if (name === "href") element.setAttribute("href", sameOriginHref(value));
    else element.setAttribute(name, value === true ? "" : String(value));
  }
  append(element, children);
  return element;
}

function append(element, children) {
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    element.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** Links go to this server only: a path, never a `javascript:` or another site's URL. */
function sameOriginHref(value) {
  const url = new URL(String(value), location.origin);
  return url.origin === location.origin ? url.pathname + url.search + url.hash : "#";
}

/** Replaces an element's content. */
export function fill(element, ...children) {
  element.replaceChildren();
  append(element, children);
  return element;
}

/** A body for a <pre>: as compact as it was sent (numbers with their digits), indented when asked. */
export function pretty(value, indented = false) {
  if (value === undefined || value === null) return "(none)";
  return typeof value === "string" ? value : JSON.stringify(value, null, indented ? 2 : undefined);
}

/**
 * A table: columns [{ label, cell: row => node|text, class }], rows. In a box that scrolls
 * sideways on a narrow screen, so the page itself never does.
 */
export function table(caption, columns, rows, rowAttributes = () => ({})) {
  return h("div", { class: "scroll" }, h("table", {},
    h("caption", {}, caption),
    h("thead", {}, h("tr", {}, columns.map((column) => h("th", { scope: "col", class: column.class }, column.label)))),
    h("tbody", {}, rows.map((row) => h("tr", rowAttributes(row),
      columns.map((column) => h("td", { class: column.class }, column.cell(row))))))));
}

/** A date-time as the server sent it, shortened for reading. */
export function when(value) {
  return value ? String(value).replace("T", " ").replace(/\.\d+/, "").replace("Z", " UTC") : "";
}
