// Inbox: put a message in the inboxes of a person or of a topic's followers, read a person's inbox
// and preferences, and see the project's topics and how long its inbox messages stay.
import { api, sessionRole } from "./api.js";
import { h, clear, field, input, select, clearErrors, clearOnEdit, fieldError, showApiError, errorBox, time, table, number, announce } from "./ui.js";

const maxExpiryDays = 3650;

export function render(main, [profileId] = []) {
  main.append(h("h1", { text: "Inbox" }));
  const holder = h("div", {}, h("p", { class: "muted", text: "Loading…" }));
  main.append(holder);
  const load = async () => {
    try {
      const projects = await api("GET", "/projects");
      const person = personPanel(profileId);
      const role = sessionRole();
      clear(holder).append(role === "read" ? null : putForm(projects, person), person.node, projectPanel(projects, role, person));
      if (profileId) person.show(profileId);
    } catch (error) {
      if (error.status !== 401) clear(holder).append(errorBox(error, load));
    }
  };
  load();
}

function projectOptions(projects) {
  return projects.map((p) => [String(p.id), `${p.name} (#${p.id})`]);
}

/** The form that puts one message in the inboxes of a profile or a topic's followers. */
function putForm(projects, person) {
  const project = select("project_id", projectOptions(projects));
  const kind = select("audience_type", [["profile", "One person (profile id)"], ["topic", "A topic's followers"]]);
  const who = input("audience_value", { required: true, spellcheck: "false" });
  const title = input("title", { maxlength: 1024 });
  const body = h("textarea", { name: "body", rows: 3, maxlength: 4096 });
  const image = input("image_url", { type: "url", placeholder: "https://…" });
  const link = input("link", { type: "url", placeholder: "https://… or yourapp://…" });
  const days = input("expires_in_days", { type: "number", min: 1, max: maxExpiryDays, inputmode: "numeric", placeholder: "the project's expiry" });
  const whoField = field("Profile id", who, { api: "audience" });
  const result = h("div", { "aria-live": "polite" });
  const form = clearOnEdit(
    h(
      "form",
      { class: "panel", novalidate: true, "aria-label": "Put a message in inboxes" },
      h("h2", { text: "Put a message in inboxes" }),
      h("div", { class: "row" }, field("Project", project, { api: "project_id" }), field("To", kind), whoField),
      field("Title", title, { api: "title" }),
      field("Body", body, { api: "body" }),
      h("div", { class: "row" }, field("Image", image, { api: "image_url", hint: "An https URL." }), field("Link", link, { api: "link", hint: "What a tap opens." })),
      field("Stays for (days)", days, { api: "expires_in_days", hint: `1 to ${maxExpiryDays}; empty: the project's expiry.` }),
      h("div", { class: "actions" }, h("button", { type: "submit", text: "Put in inboxes" })),
      result,
    ),
  );
  kind.addEventListener("change", () => {
    whoField.querySelector("label").textContent = kind.value === "topic" ? "Topic" : "Profile id";
  });
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    clearErrors(form);
    clear(result);
    const value = who.value.trim();
    const dayText = days.value.trim();
    const dayCount = Number(dayText);
    if (!value) return invalid(who, kind.value === "topic" ? "Name the topic." : "Paste the person's profile id.");
    if (!title.value.trim() && !body.value.trim()) return invalid(title, "An inbox message needs a title or a body.");
    if (dayText && !(Number.isInteger(dayCount) && dayCount >= 1 && dayCount <= maxExpiryDays)) {
      return invalid(days, `A whole number of days from 1 to ${maxExpiryDays}, or empty.`);
    }
    const request = {
      project_id: Number(project.value),
      audience: kind.value === "topic" ? { type: "topic", topic: value } : { type: "profile", profile_id: value },
    };
    for (const [name, control] of [["title", title], ["body", body], ["image_url", image], ["link", link]]) {
      if (control.value.trim()) request[name] = control.value.trim();
    }
    if (dayText) request.expires_in_days = dayCount;
    const button = form.querySelector("button[type='submit']");
    button.disabled = true;
    try {
      const answer = await api("POST", "/inbox", request);
      const summary = `In ${number(answer.profiles)} inbox${answer.profiles === 1 ? "" : "es"}, until ${time(answer.expires_at)}.`;
      result.append(h("p", { class: "note", role: "status", text: summary }));
      announce(summary);
      if (kind.value === "profile") person.show(value);
    } catch (error) {
      if (error.status !== 401) showApiError(form, error);
    } finally {
      button.disabled = false;
    }
  });
  return form;
}

function invalid(control, message) {
  fieldError(control, message);
  control.focus();
}

/** A person's inbox (newest first, read or not) and preferences, looked up by profile id. */
function personPanel(initial) {
  const id = input("profile_id", { type: "search", required: true, spellcheck: "false", value: initial || undefined });
  const results = h("div", { "aria-live": "polite" });
  const form = h(
    "form",
    { class: "panel", novalidate: true, role: "search", "aria-label": "A person's inbox" },
    h("h2", { text: "A person's inbox" }),
    field("Profile id", id, { api: "profile_id" }),
    h("div", { class: "actions" }, h("button", { type: "submit", text: "Show" })),
  );
  const show = async (profileId) => {
    id.value = profileId;
    clearErrors(form);
    clear(results).append(h("p", { class: "muted", text: "Loading…" }));
    try {
      const path = `/profiles/${encodeURIComponent(profileId)}`;
      const [inbox, preferences] = await Promise.all([api("GET", `${path}/inbox`), api("GET", `${path}/preferences`)]);
      clear(results).append(inboxView(inbox), preferencesView(preferences));
      announce(`${inbox.messages.length} message${inbox.messages.length === 1 ? "" : "s"}, ${inbox.unread} unread`);
    } catch (error) {
      clear(results);
      if (error.status === 404) fieldError(id, error.reason);
      else if (error.status !== 401) showApiError(form, error);
    }
  };
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const value = id.value.trim();
    if (!value) return invalid(id, "Paste a profile id.");
    show(value);
  });
  return { node: h("div", {}, form, results), show };
}

function inboxView(inbox) {
  const section = h("section", { class: "panel inbox", "aria-label": `Inbox of ${inbox.profile_id}` });
  section.append(h("h3", {}, "Inbox of ", h("span", { class: "break", text: inbox.profile_id }), ` · ${number(inbox.unread)} unread`));
  if (!inbox.messages.length) {
    section.append(h("p", { class: "muted", text: "The inbox is empty." }));
    return section;
  }
  section.append(
    table(
      "Inbox messages",
      ["Put", "Title", "Body", "Link", "State", "Leaves"],
      inbox.messages.map((m) => [
        time(m.created_at),
        h("span", { class: "inbox-title break", text: m.title || "" }),
        h("span", { class: "break", text: m.body || "" }),
        m.link ? h("span", { class: "break", text: m.link }) : "",
        h("span", { class: `badge ${m.read ? "" : "good"}`, text: m.read ? "read" : "unread" }),
        time(m.expires_at),
      ]),
    ),
  );
  return section;
}

function preferencesView(answer) {
  const rows = [];
  for (const [channel, categories] of Object.entries(answer.preferences || {}).sort(([a], [b]) => a.localeCompare(b))) {
    for (const [category, on] of Object.entries(categories).sort(([a], [b]) => a.localeCompare(b))) {
      rows.push([channel, category, h("span", { class: `badge ${on ? "good" : "warn"}`, text: on ? "on" : "off" })]);
    }
  }
  return h(
    "section",
    { class: "panel", "aria-label": "Preferences" },
    h("h3", { text: "Preferences" }),
    rows.length
      ? table("Preferences", ["Channel", "Category", "Takes it"], rows)
      : h("p", { class: "muted", text: "None set: every category is on (transactional always is)." }),
  );
}

/** A project's topics with their followers, and how long its inbox messages stay. */
function projectPanel(projects, role, person) {
  const project = select("topics_project", projectOptions(projects));
  const holder = h("div", { "aria-live": "polite" });
  const load = async () => {
    clear(holder).append(h("p", { class: "muted", text: "Loading…" }));
    try {
      const id = encodeURIComponent(project.value);
      const [topics, settings] = await Promise.all([api("GET", `/projects/${id}/topics`), api("GET", `/projects/${id}/inbox`)]);
      clear(holder).append(expiryForm(project.value, settings, role), topicsView(project.value, topics, person));
    } catch (error) {
      if (error.status !== 401) clear(holder).append(errorBox(error, load));
    }
  };
  project.addEventListener("change", load);
  if (projects.length) load();
  return h("section", { class: "panel", "aria-label": "Topics and expiry" }, h("h2", { text: "Topics and expiry" }), field("Project", project), holder);
}

function expiryForm(projectId, settings, role) {
  const days = input("expiry_days", { type: "number", min: 1, max: maxExpiryDays, inputmode: "numeric", value: String(settings.expiry_days) });
  const canChange = role === "server" || role === "full";
  if (!canChange) days.setAttribute("readonly", "");
  const form = clearOnEdit(
    h(
      "form",
      { novalidate: true, "aria-label": "Inbox expiry" },
      field("Inbox messages stay (days)", days, { api: "expiry_days", hint: "For messages put from now on." }),
      canChange ? h("div", { class: "actions" }, h("button", { type: "submit", class: "secondary", text: "Save expiry" })) : null,
    ),
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    clearErrors(form);
    const value = Number(days.value.trim());
    if (!(Number.isInteger(value) && value >= 1 && value <= maxExpiryDays)) return invalid(days, `A whole number of days from 1 to ${maxExpiryDays}.`);
    try {
      const saved = await api("PUT", `/projects/${encodeURIComponent(projectId)}/inbox`, { expiry_days: value });
      days.value = String(saved.expiry_days);
      announce(`Inbox messages now stay ${saved.expiry_days} days`);
    } catch (error) {
      if (error.status !== 401) showApiError(form, error);
    }
  });
  return form;
}

function topicsView(projectId, topics, person) {
  if (!topics.length) return h("p", { class: "muted", text: "No topics yet: a topic exists once someone follows it (follow(topic:) in the SDK)." });
  const followers = h("div", { "aria-live": "polite" });
  const list = table(
    "Topics",
    ["Topic", "Followers#", "Since", ""],
    topics.map((t) => {
      const button = h("button", { type: "button", class: "quiet", text: "Followers" });
      button.setAttribute("aria-label", `Followers of ${t.name}`);
      button.addEventListener("click", async () => {
        clear(followers).append(h("p", { class: "muted", text: "Loading…" }));
        try {
          const view = await api("GET", `/projects/${encodeURIComponent(projectId)}/topics/${encodeURIComponent(t.name)}/followers`);
          clear(followers).append(
            h("h3", { text: `Followers of ${t.name}` }),
            view.profile_ids.length
              ? h(
                  "ul",
                  {},
                  view.profile_ids.map((id) => {
                    const open = h("button", { type: "button", class: "quiet break", text: id });
                    open.addEventListener("click", () => person.show(id));
                    return h("li", {}, open);
                  }),
                )
              : h("p", { class: "muted", text: "Nobody follows it now." }),
            view.next ? h("p", { class: "muted", text: "The first page only: tern topics followers lists the rest." }) : null,
          );
        } catch (error) {
          if (error.status !== 401) clear(followers).append(errorBox(error));
        }
      });
      return [t.name, number(t.followers), time(t.created_at), button];
    }),
  );
  return h("div", {}, list, followers);
}
