// Faults: the tenant's armed faults, one armed from a form whose choices come
// from the test document (TestFaultInput), one disarmed.
import { call, document as openapi, session } from "./api.js";
import { fill, h, table, when } from "./dom.js";

export function show(container, context) {
  const list = h("div", { id: "fault-list" });
  const form = h("form", { id: "fault-form", class: "grid-form" });
  fill(container, h("h2", {}, "Faults"), list, h("h3", {}, "Arm a fault"), form);

  let shown = null;
  async function load() {
    try {
      const faults = await call("GET", "/api/test/faults");
      // Drawn again only when something changed: a redraw would take the keyboard focus away.
      const key = JSON.stringify(faults);
      if (key === shown) return;
      shown = key;
      fill(list, faults.length === 0 ? h("p", { class: "muted" }, "No fault is armed.") : table("Armed faults", [
        { label: "Operation", cell: (fault) => fault.operationId },
        { label: "Kind", cell: (fault) => fault.kind },
        { label: "Status", cell: (fault) => fault.status ?? "" },
        { label: "Delay (ms)", cell: (fault) => fault.delayMs ?? "" },
        { label: "Remaining of", cell: (fault) => `${fault.remaining} of ${fault.times}` },
        { label: "Armed", cell: (fault) => when(fault.createdTime) },
        { label: "", cell: (fault) => h("button", { type: "button", onclick: () => disarm(fault),
          "aria-label": `Disarm the ${fault.kind} fault of ${fault.operationId}` }, "Disarm") },
      ], faults));
    } catch (error) {
      context.report(error);
    }
  }

  function disarm(fault) {
    return context.attempt(async () => {
      await call("DELETE", `/api/test/faults/${encodeURIComponent(fault.id)}`);
      await load();
    });
  }

  async function buildForm() {
    const doc = await openapi("test-v1");
    const input = doc.components.schemas.TestFaultInput.properties;
    const kinds = doc.components.schemas.FaultKind.enum;
    // The caller's own document's operations: a partner token arms partner billing operations.
    const vendor = await openapi(session.claims.partnerId ? "partner-billing-v1" : "platform-v4");
    const own = new Set(Object.values(vendor.paths).flatMap((item) => Object.values(item).map((op) => op?.operationId)));
    const operations = input.operationId.enum.filter((id) => own.has(id));
    const number = (id, schema, value) => h("input", { id, name: id, type: "number", min: schema.minimum, max: schema.maximum, value });
    fill(form,
      h("label", { for: "fault-operation" }, "Operation"),
      h("select", { id: "fault-operation", name: "operationId" }, operations.map((id) => h("option", { value: id }, id))),
      h("label", { for: "fault-kind" }, "Kind"),
      h("select", { id: "fault-kind", name: "kind" }, kinds.map((kind) => h("option", { value: kind }, kind))),
      h("label", { for: "fault-status" }, "Status (kind status)"),
      number("fault-status", input.status, 503),
      h("label", { for: "fault-delay" }, "Delay in ms (kinds delay, slowBody)"),
      number("fault-delay", input.delayMs, 2000),
      h("label", { for: "fault-times" }, "Times"),
      number("fault-times", input.times, 1),
      h("button", { type: "submit" }, "Arm"));
  }

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const kind = form.elements.kind.value;
    const body = { operationId: form.elements.operationId.value, kind, times: Number(form.elements["fault-times"].value) };
    if (kind === "status") body.status = Number(form.elements["fault-status"].value);
    if (kind === "delay" || kind === "slowBody") body.delayMs = Number(form.elements["fault-delay"].value);
    await context.attempt(async () => {
      await call("POST", "/api/test/faults", { json: body });
      await load();
    });
  });

  buildForm().catch((error) => context.report(error));
  load();
  const timer = setInterval(() => { if (!document.hidden) load(); }, 2000);
  return () => clearInterval(timer);
}
