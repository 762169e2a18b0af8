// Segments: build a filter on built-in fields, custom fields, tags and message engagement (what the
// person did with a recent message, or any push opened lately), preview how many push
// subscriptions match (and a sample of them), save it with a name; the saved segments of the
// project, each with its preview and a delete. The server checks every filter (docs/segments.md).
import { api } from "./api.js";
import { h, clear, field, input, select, clearErrors, fieldError, showApiError, errorBox, table, announce, number } from "./ui.js";

const builtIns = [
  ["session_count", "Session count", "number"],
  ["app_version", "App version", "version"],
  ["foreground_time", "Foreground time (s)", "number"],
  ["last_session", "Last session", "time"],
  ["first_session", "First session", "time"],
  ["language", "Language", "text"],
];
const operators = {
  number: [["gte", "≥"], ["gt", ">"], ["eq", "="], ["ne", "≠"], ["lte", "≤"], ["lt", "<"], ["in", "one of"], ["exists", "exists"], ["not_exists", "does not exist"]],
  text: [["eq", "="], ["ne", "≠"], ["in", "one of"], ["exists", "exists"], ["not_exists", "does not exist"]],
  time: [["within_days", "within the last N days"], ["before", "before"], ["after", "after"], ["exists", "exists"], ["not_exists", "does not exist"]],
  custom: [["eq", "="], ["ne", "≠"], ["gt", ">"], ["gte", "≥"], ["lt", "<"], ["lte", "≤"], ["in", "one of"], ["exists", "exists"], ["not_exists", "does not exist"]],
  engagement: [["opened", "opened it"], ["not_opened", "was sent it and did not open it"], ["delivered", "received it"], ["sent", "was sent it"]],
  opened_any: [["within_days", "within the last N days"]],
};

export function render(main) {
  main.append(h("h1", { text: "Segments" }));
  const holder = h("div", {}, h("p", { class: "muted", text: "Loading…" }));
  main.append(holder);
  const load = async () => {
    try {
      const [projects, resources, messages] = await Promise.all([api("GET", "/projects"), api("GET", "/resources"), api("GET", "/messages?limit=50")]);
      clear(holder).append(builder(projects, resources, messages));
    } catch (error) {
      if (error.status !== 401) clear(holder).append(errorBox(error, load));
    }
  };
  load();
}

function kindOf(name) {
  const found = builtIns.find(([field]) => field === name);
  if (found) return found[2] === "version" ? "number" : found[2];
  return name.startsWith("tags.") ? "text" : "custom";
}

// A value typed in a row, as the API takes it: numbers for number fields (versions stay text).
function valueOf(name, op, text) {
  const kind = kindOf(name);
  const one = (part) => {
    const trimmed = part.trim();
    if (name === "app_version" || kind === "text") return trimmed;
    if (kind === "custom" && (trimmed === "true" || trimmed === "false")) return trimmed === "true";
    const parsed = Number(trimmed);
    return trimmed !== "" && Number.isFinite(parsed) ? parsed : trimmed;
  };
  if (op === "in") return text.split(",").map(one);
  if (op === "before" || op === "after") return text.trim();
  return one(text);
}

// A recent message as a choice: its title (as text) and id.
function messageChoice(m) {
  return [m.id, `${m.request?.title || m.request?.body || m.id} (${m.id})`];
}

// `recent()`: the project's recent messages, newest first, for a message engagement condition.
function conditionRow(onChange, remove, recent) {
  const subject = select("subject", [...builtIns.map(([name, label]) => [name, label]), ["fields.", "Custom field…"], ["tags.", "Tag…"], ["engagement", "Message engagement…"], ["opened_any", "Opened any push"]], { "aria-label": "Field" });
  const name = input("key", { placeholder: "name", "aria-label": "Field or tag name", hidden: true });
  const message = select("message", [], { "aria-label": "Message", hidden: true });
  const op = select("op", [], { "aria-label": "Comparison" });
  const value = input("value", { "aria-label": "Value", placeholder: "value" });
  const drop = h("button", { type: "button", class: "quiet", text: "Remove", "aria-label": "Remove this condition" });
  const row = h("div", { class: "row condition" }, subject, name, message, op, value, drop);
  const fieldName = () => (subject.value.endsWith(".") ? subject.value + name.value.trim() : subject.value);
  const fillOps = () => {
    const kind = operators[subject.value] ? subject.value : subject.value === "app_version" ? "number" : subject.value === "tags." ? "text" : subject.value === "fields." ? "custom" : kindOf(subject.value);
    const current = op.value;
    op.replaceChildren(...operators[kind].map(([v, label]) => h("option", { value: v, text: label })));
    if (operators[kind].some(([v]) => v === current)) op.value = current;
    name.hidden = !subject.value.endsWith(".");
    message.hidden = subject.value !== "engagement";
    if (!message.hidden) fillMessages();
    sync();
  };
  const fillMessages = () => {
    const current = message.value;
    const choices = recent().map(messageChoice);
    message.replaceChildren(...(choices.length ? choices : [["", "No message in this project yet"]]).map(([v, label]) => h("option", { value: v, text: label })));
    if (choices.some(([v]) => v === current)) message.value = current;
  };
  row.projectChanged = () => {
    if (!message.hidden) fillMessages();
    onChange();
  };
  const sync = () => {
    value.hidden = op.value === "exists" || op.value === "not_exists" || subject.value === "engagement";
    value.placeholder = op.value === "in" ? "a, b, c" : op.value === "within_days" ? "days" : op.value === "before" || op.value === "after" ? "2026-12-01T00:00:00Z" : "value";
    onChange();
  };
  subject.addEventListener("change", fillOps);
  op.addEventListener("change", sync);
  for (const control of [name, value]) control.addEventListener("input", onChange);
  message.addEventListener("change", onChange);
  drop.addEventListener("click", () => remove(row));
  row.condition = () => {
    if (subject.value === "engagement") return { message: message.value, op: op.value };
    if (subject.value === "opened_any") return { engagement: "opened_any", op: "within_days", value: valueOf("opened_any", "within_days", value.value) };
    const condition = { field: fieldName(), op: op.value };
    if (!value.hidden) condition.value = valueOf(condition.field, op.value, value.value);
    return condition;
  };
  row.focusFirst = () => subject.focus();
  fillOps();
  return row;
}

function builder(projects, resources, messages) {
  const project = select("project_id", projects.map((p) => [String(p.id), `${p.name} (#${p.id})`]));
  const resourceChoices = () => [["", "Every resource of the project"], ...resources.filter((r) => String(r.project_id) === project.value && (r.channels || []).includes("push")).map((r) => [String(r.id), `${r.name} (#${r.id})`])];
  const resource = select("resource_id", resourceChoices());
  const match = select("match", [["and", "all of these"], ["or", "any of these"]]);
  const rows = h("div", { class: "conditions" });
  const json = h("textarea", { name: "filter", rows: 4, spellcheck: "false" });
  const name = input("name", { placeholder: "e.g. Engaged on 2.x", maxlength: 128 });
  const result = h("div", { "aria-live": "polite" });
  let edited = false;
  const filter = () => {
    const parts = [...rows.children].map((row) => row.condition());
    return parts.length === 1 ? parts[0] : { [match.value]: parts };
  };
  const refresh = () => {
    if (!edited) json.value = JSON.stringify(filter(), null, 1);
  };
  const add = () => {
    const row = conditionRow(
      refresh,
      (gone) => {
        if (rows.children.length > 1) gone.remove();
        refresh();
      },
      () => messages.filter((m) => String(m.project_id) === project.value),
    );
    rows.append(row);
    refresh();
    return row;
  };
  json.addEventListener("input", () => {
    edited = true;
  });
  const addButton = h("button", { type: "button", class: "secondary", text: "Add a condition" });
  addButton.addEventListener("click", () => {
    edited = false;
    add().focusFirst();
  });
  const previewButton = h("button", { type: "button", class: "secondary", text: "Preview" });
  const saveButton = h("button", { type: "submit", text: "Save segment" });
  const list = h("div", {});
  const form = h(
    "form",
    { class: "panel", novalidate: true, "aria-label": "Build a segment" },
    h("div", { class: "row" }, field("Project", project, { api: "project_id" }), field("Resource", resource, { api: "resource_id" })),
    h("div", { class: "row" }, field("Match", match)),
    rows,
    h("div", { class: "actions" }, addButton),
    field("Filter (JSON; edit it for nested and/or)", json, { api: "filter", hint: "What the API receives. Refusals name the part, e.g. filter.and[1].op." }),
    field("Name", name, { api: "name" }),
    h("div", { class: "actions" }, previewButton, saveButton),
  );
  match.addEventListener("change", refresh);
  project.addEventListener("change", () => {
    resource.replaceChildren(...resourceChoices().map(([v, label]) => h("option", { value: v, text: label })));
    for (const row of rows.children) row.projectChanged();
    loadList();
  });
  add();
  const body = () => {
    let parsed;
    try {
      parsed = JSON.parse(json.value);
    } catch {
      fieldError(json, "The filter is not JSON.");
      json.focus();
      return null;
    }
    const out = { project_id: Number(project.value), filter: parsed };
    if (resource.value) out.resource_id = Number(resource.value);
    return out;
  };
  previewButton.addEventListener("click", async () => {
    clearErrors(form);
    const request = body();
    if (!request) return;
    clear(result).append(h("p", { class: "muted", text: "Counting…" }));
    try {
      clear(result).append(previewPanel(await api("POST", "/audience/preview", { ...request, sample: 10 })));
    } catch (error) {
      clear(result);
      if (error.status !== 401) showApiError(form, error);
    }
  });
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    clearErrors(form);
    if (!name.value.trim()) {
      fieldError(name, "Give the segment a name.");
      name.focus();
      return;
    }
    const request = body();
    if (!request) return;
    try {
      const saved = await api("POST", "/segments", { ...request, name: name.value.trim() });
      announce(`Segment ${saved.name} saved`);
      clear(result).append(h("p", { class: "note", role: "status", text: `Saved segment #${saved.id} “${saved.name}”. Send to it with tern send --segment ${saved.id}.` }));
      loadList();
    } catch (error) {
      if (error.status !== 401) showApiError(form, error);
    }
  });
  const loadList = async () => {
    try {
      const segments = await api("GET", `/segments?project_id=${encodeURIComponent(project.value)}`);
      clear(list).append(savedTable(segments, loadList));
    } catch (error) {
      if (error.status !== 401) clear(list).append(errorBox(error, loadList));
    }
  };
  loadList();
  return h("div", {}, form, result, h("h2", { text: "Saved segments" }), list);
}

function previewPanel(preview) {
  const rows = preview.sample.map((s) => [`#${s.id}`, s.profile_id, h("span", { class: "break", text: s.subscription_id }), String(s.fields?._app_ver ?? ""), String(s.fields?._session_count ?? ""), Object.entries(s.tags || {}).map(([k, v]) => `${k}=${v}`).join(", ")]);
  announce(`${preview.count} subscriptions match`);
  return h(
    "section",
    { class: "panel", "aria-label": "Preview" },
    h("h2", { class: "preview-count", text: `${number(preview.count)} push subscription${preview.count === 1 ? "" : "s"} match` }),
    h("p", { class: "muted", text: `Counted in ${preview.took_ms} ms.${preview.count === 0 ? " A send to it would be refused: nobody matches." : ""}` }),
    rows.length ? table("A sample of the matching subscriptions", ["Subscription", "Profile", "Token", "App version", "Sessions", "Tags"], rows) : null,
  );
}

function savedTable(segments, reload) {
  if (!segments.length) return h("p", { class: "muted", text: "No segment saved in this project yet." });
  return table(
    "Saved segments",
    ["Name", "Resource", "Filter", "Preview", ""],
    segments.map((segment) => {
      const count = h("span", {});
      const preview = h("button", { type: "button", class: "secondary", text: "Count", "aria-label": `count ${segment.name}` });
      preview.addEventListener("click", async () => {
        try {
          const answer = await api("GET", `/segments/${segment.id}/preview?sample=0`);
          count.textContent = `${number(answer.count)} match`;
        } catch (error) {
          if (error.status !== 401) count.textContent = error.reason;
        }
      });
      const remove = h("button", { type: "button", class: "quiet", text: "Delete", "aria-label": `delete ${segment.name}` });
      remove.addEventListener("click", async () => {
        try {
          await api("DELETE", `/segments/${segment.id}`);
          announce(`Segment ${segment.name} deleted`);
          reload();
        } catch (error) {
          if (error.status !== 401) count.textContent = error.reason;
        }
      });
      return [segment.name, segment.resource_id ? `#${segment.resource_id}` : "all", h("code", { class: "break", text: JSON.stringify(segment.filter) }), h("span", {}, preview, " ", count), remove];
    }),
  );
}
