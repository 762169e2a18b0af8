// Templates: a message's content saved once under a name in its project (title, body, media,
// buttons, data, texts in other languages, ...), which the compose page starts from and tern send
// --template fills in. List, create, edit (the whole template is saved again, PUT) and delete; the
// server checks the content as a message's (docs/sending.md, "Templates").
import { api, sessionRole } from "./api.js";
import { h, clear, field, input, select, clearErrors, clearOnEdit, fieldError, showApiError, errorBox, table, announce, time, secondClick } from "./ui.js";

// The content fields this page edits, as [API name, label, hint]; the JSON ones are parsed.
const TEXTS = [
  ["title", "Title", "An alert needs a title or a body. Texts may name profile fields: Hi {{_fname|there}}."],
  ["subtitle", "Subtitle", ""],
  ["body", "Body", ""],
  ["media_url", "Media URL", "https image, GIF, audio or video the extension attaches."],
  ["click_url", "Click URL", "Opened when the notification is tapped."],
  ["sound", "Sound", "A sound file of the app, or default."],
  ["badge", "Badge", "0 to 999999; 0 clears it."],
  ["category", "Category", "A category of the resource the message goes to."],
  ["thread_id", "Thread id", ""],
  ["ios_category", "iOS category", "A category the app registered (aps.category); not with buttons."],
  ["interruption_level", "Interruption level", "passive, active, time-sensitive or critical."],
  ["relevance_score", "Relevance score (0 to 1)", ""],
];
const JSONS = [
  ["buttons", "Buttons (JSON array)", 'Up to three, e.g. [{"id": "shop", "title": "Shop", "action": "url", "url": "https://example.com"}].'],
  ["data", "Custom data (JSON object)", 'Top-level keys beside aps, e.g. {"screen": "home"}.'],
  ["localizations", "Texts in other languages (JSON object)", 'By language code, e.g. {"es": {"title": "Bienvenido"}}.'],
];
const NUMBERS = new Set(["badge", "relevance_score"]);

export function render(main) {
  main.append(
    h("h1", { text: "Templates" }),
    h("p", { class: "muted" }, "A template keeps a message's content for many sends: Compose starts from one, and ", h("code", { text: "tern send --template ID" }), " fills in what its options leave out. A message keeps the content it was made with, whatever later becomes of its template."),
  );
  const holder = h("div", {}, h("p", { class: "muted", text: "Loading…" }));
  main.append(holder);
  const load = async () => {
    try {
      clear(holder).append(page(await api("GET", "/projects")));
    } catch (error) {
      if (error.status !== 401) clear(holder).append(errorBox(error, load));
    }
  };
  load();
}

/** Every template of the project, page by page (the API's pages of up to 1,000). */
export async function allTemplates(projectId) {
  const found = [];
  for (;;) {
    const after = found.length ? found[found.length - 1].id : 0;
    const query = `after=${after}&limit=1000` + (projectId ? `&project_id=${encodeURIComponent(projectId)}` : "");
    const page = await api("GET", `/templates?${query}`);
    found.push(...page);
    if (page.length < 1000) return found;
  }
}

function page(projects) {
  const canWrite = sessionRole() !== "read";
  const project = select("project", projects.map((p) => [String(p.id), `${p.name} (#${p.id})`]), { "aria-label": "Project" });
  const list = h("div", {}, h("p", { class: "muted", text: "Loading…" }));
  const editor = h("div", {});
  const loadList = async () => {
    try {
      const templates = await allTemplates(project.value);
      clear(list).append(listTable(templates, canWrite, (template) => clear(editor).append(form(project.value, template, done)), loadList));
    } catch (error) {
      if (error.status !== 401) clear(list).append(errorBox(error, loadList));
    }
  };
  const done = (saved) => {
    clear(editor);
    if (saved) editor.append(h("p", { class: "note", id: "template-saved", role: "status", text: `Saved template #${saved.id} “${saved.name}”.` }));
    loadList();
  };
  const create = h("button", { type: "button", id: "new-template", text: "New template" });
  create.addEventListener("click", () => clear(editor).append(form(project.value, null, done)));
  project.addEventListener("change", () => {
    clear(editor);
    loadList();
  });
  loadList();
  return h(
    "div",
    {},
    projects.length > 1 ? h("div", { class: "panel" }, field("Project", project)) : null,
    canWrite ? h("div", { class: "actions" }, create) : null,
    editor,
    h("h2", { text: "Saved templates" }),
    list,
  );
}

function listTable(templates, canWrite, edit, reload) {
  if (!templates.length) return h("p", { class: "muted", text: "No template in this project yet." });
  return table(
    "Saved templates",
    ["Id", "Name", "Title", "Body", "Updated", ""],
    templates.map((template) => {
      const actions = h("div", { class: "actions" });
      if (canWrite) {
        const change = h("button", { type: "button", class: "secondary", text: "Edit", "aria-label": `edit ${template.name}` });
        change.addEventListener("click", () => edit(template));
        const remove = secondClick({
          label: "Delete",
          warning: `Delete “${template.name}”? Messages made from it keep their content.`,
          confirm: "Delete it",
          confirmLabel: `delete ${template.name} now`,
          back: "Keep it",
          act: async () => {
            await api("DELETE", `/templates/${encodeURIComponent(template.id)}`);
            announce(`Template ${template.name} deleted`);
            reload();
          },
        });
        actions.append(change, remove.element);
      }
      return [`#${template.id}`, template.name, template.title || "", template.body || "", time(template.updated_at), actions];
    }),
  );
}

/** The form that creates a template (`template` null) or saves one again (PUT). */
function form(projectId, template, done) {
  const t = template || {};
  const controls = {};
  const name = input("name", { value: t.name || "", maxlength: 128 });
  const fields = [field("Name", name, { api: "name", hint: "Unique in the project." })];
  for (const [key, label, hint] of TEXTS) {
    controls[key] = key === "interruption_level" ? select(key, [["", "the system's default"], ["passive", "passive"], ["active", "active"], ["time-sensitive", "time-sensitive"], ["critical", "critical"]]) : input(key, { inputmode: NUMBERS.has(key) ? "decimal" : undefined });
    controls[key].value = t[key] === undefined || t[key] === null ? "" : String(t[key]);
    fields.push(field(label, controls[key], { api: key, hint: hint || undefined }));
  }
  for (const [key, label, hint] of JSONS) {
    controls[key] = h("textarea", { name: key, rows: 3 });
    controls[key].value = t[key] === undefined ? "" : JSON.stringify(t[key]);
    fields.push(field(label, controls[key], { api: key, hint }));
  }
  const cancel = h("button", { type: "button", class: "secondary", text: "Cancel" });
  cancel.addEventListener("click", () => done(null));
  const node = h(
    "form",
    { class: "panel", novalidate: true, "aria-label": template ? `Edit template ${t.name}` : "New template" },
    h("h2", { text: template ? `Edit “${t.name}” (#${t.id})` : "New template" }),
    ...fields,
    h("div", { class: "actions" }, h("button", { type: "submit", id: "save-template", text: "Save template" }), cancel),
  );
  clearOnEdit(node);
  node.addEventListener("submit", async (event) => {
    event.preventDefault();
    clearErrors(node);
    const body = { name: name.value.trim() };
    let bad = null;
    if (!body.name) bad = [name, "Give the template a name."];
    for (const [key] of TEXTS) {
      const text = controls[key].value.trim();
      if (!text) continue;
      if (NUMBERS.has(key)) {
        const value = Number(text);
        if (!Number.isFinite(value)) bad = bad || [controls[key], "A number, please."];
        body[key] = value;
      } else body[key] = text;
    }
    for (const [key, label] of JSONS) {
      const text = controls[key].value.trim();
      if (!text) continue;
      try {
        body[key] = JSON.parse(text);
      } catch {
        bad = bad || [controls[key], `${label.replace(/ \(.*/, "")} is not JSON.`];
      }
    }
    if (bad) {
      fieldError(bad[0], bad[1]);
      bad[0].focus();
      return;
    }
    try {
      const saved = template ? await api("PUT", `/templates/${encodeURIComponent(t.id)}`, body) : await api("POST", "/templates", { ...body, project_id: Number(projectId) });
      announce(`Template ${saved.name} saved`);
      done(saved);
    } catch (error) {
      if (error.status !== 401) showApiError(node, error);
    }
  });
  setTimeout(() => name.focus());
  return node;
}
