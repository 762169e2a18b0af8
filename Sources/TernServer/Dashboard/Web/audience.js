// Audience: find profiles and subscriptions by profile id, email, phone or push token; show their
// fields, subscriptions (categories, tags, fields) and push events; mark a profile, or one of its
// push subscriptions, as a test device; set a profile's field (send, full and server keys); erase a
// profile, import and export devices (full and server keys).
import { api, sessionRole } from "./api.js";
import { h, clear, field, input, select, clearErrors, fieldError, showApiError, errorBox, time, table, announce, secondClick, number } from "./ui.js";

export function render(main) {
  main.append(h("h1", { text: "Audience" }));
  const holder = h("div", {}, h("p", { class: "muted", text: "Loading…" }));
  main.append(holder);
  const load = async () => {
    try {
      const [projects, resources] = await Promise.all([api("GET", "/projects"), api("GET", "/resources")]);
      const databases = (await Promise.all(projects.map((p) => api("GET", `/projects/${p.id}/databases`)))).flat();
      const role = sessionRole();
      clear(holder).append(lookup(databases, resources), role === "full" || role === "server" ? importPanel(resources) : null);
    } catch (error) {
      if (error.status !== 401) clear(holder).append(errorBox(error, load));
    }
  };
  load();
}

function lookup(databases, resources) {
  const kind = select("kind", [["id", "Profile id"], ["email", "Email"], ["phone", "Phone"], ["field", "A profile field"], ["token", "Push token"]]);
  const value = input("value", { type: "search", required: true });
  const fieldName = input("field", { placeholder: "_fname, or a custom field" });
  const fieldNameField = field("Field name", fieldName, { api: "field" });
  const db = select("db_id", databases.map((d) => [String(d.id), `${d.name} (#${d.id})`]));
  const resource = select("resource_id", resources.map((r) => [String(r.id), `${r.name} (#${r.id})`]));
  const provider = select("provider", ["ios-apns", "ios-firebase", "ios-huawei"].map((p) => [p, p]));
  const dbField = field("Profile database", db, { api: "db_id" });
  const tokenFields = h("div", { class: "row" }, field("Resource", resource, { api: "resource_id" }), field("Provider", provider, { api: "provider" }));
  const results = h("div", { "aria-live": "polite" });
  const form = h(
    "form",
    { class: "panel", novalidate: true, role: "search", "aria-label": "Find a profile" },
    h("div", { class: "row" }, field("Find by", kind), fieldNameField, field("Value", value, { api: "value" })),
    dbField,
    tokenFields,
    h("div", { class: "actions" }, h("button", { type: "submit", text: "Find" })),
  );
  const sync = () => {
    dbField.hidden = !["email", "phone", "field"].includes(kind.value);
    fieldNameField.hidden = kind.value !== "field";
    tokenFields.hidden = kind.value !== "token";
  };
  kind.addEventListener("change", sync);
  sync();
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    clearErrors(form);
    const text = value.value.trim();
    if (!text) {
      fieldError(value, "Type what to look for.");
      value.focus();
      return;
    }
    if (kind.value === "field" && !fieldName.value.trim()) {
      fieldError(fieldName, "Name the field to look in.");
      fieldName.focus();
      return;
    }
    clear(results).append(h("p", { class: "muted", text: "Searching…" }));
    try {
      const profiles = await find(kind.value, text, db.value, resource.value, provider.value, fieldName.value.trim());
      clear(results);
      if (!profiles.length) results.append(h("p", { class: "panel", text: "Nothing found." }));
      for (const profile of profiles) results.append(await profileCard(profile));
      announce(`${profiles.length} profile${profiles.length === 1 ? "" : "s"} found`);
    } catch (error) {
      clear(results);
      if (error.status === 404) results.append(h("p", { class: "panel", text: error.reason }));
      else if (error.status !== 401) showApiError(form, error);
    }
  });
  return h("div", {}, form, results);
}

async function find(kind, text, dbId, resourceId, provider, name) {
  const q = encodeURIComponent(text);
  if (kind === "id") return [await api("GET", `/profiles/${q}`)];
  if (kind === "email" || kind === "phone") return api("GET", `/profiles?${kind}=${q}&db_id=${encodeURIComponent(dbId)}`);
  if (kind === "field") return api("GET", `/profiles?field=${encodeURIComponent(name)}&value=${q}&db_id=${encodeURIComponent(dbId)}`);
  const subscriptions = await api("GET", `/subscriptions?resource_id=${encodeURIComponent(resourceId)}&provider=${encodeURIComponent(provider)}&subscription_id=${q}`);
  const ids = [...new Set(subscriptions.map((s) => s.profile_id))];
  return Promise.all(ids.map((id) => api("GET", `/profiles/${encodeURIComponent(id)}`)));
}

async function profileCard(profile) {
  const card = h("section", { class: "panel profile", "aria-label": `Profile ${profile.id}` });
  const testState = h("span", {});
  const toggle = h("button", { type: "button", class: "secondary" });
  const showTest = () => {
    testState.replaceChildren(h("span", { class: `badge ${profile.is_test ? "good" : ""}`, text: profile.is_test ? "test device" : "not a test device" }));
    toggle.textContent = profile.is_test ? "Unmark test device" : "Mark as test device";
  };
  showTest();
  const toggleError = h("p", { class: "error", role: "alert" });
  toggle.addEventListener("click", async () => {
    toggle.disabled = true;
    toggleError.textContent = "";
    try {
      profile = await api("PUT", `/profiles/${encodeURIComponent(profile.id)}/test`, { is_test: !profile.is_test });
      showTest();
      announce(profile.is_test ? "Marked as a test device" : "No longer a test device");
    } catch (error) {
      if (error.status !== 401) toggleError.textContent = error.reason;
    } finally {
      toggle.disabled = false;
    }
  });
  const fields = Object.entries(profile.fields || {}).sort(([a], [b]) => a.localeCompare(b));
  const role = sessionRole();
  const erasing = role === "full" || role === "server" ? [eraseControl(profile, card)] : [];
  const editing = role === "send" || role === "full" || role === "server" ? fieldEditor(profile, card) : null;
  card.append(
    h("h2", { class: "break" }, "Profile ", h("span", { class: "profile-id", text: profile.id })),
    h("div", { class: "actions" }, testState, toggle),
    toggleError,
    ...erasing,
    h("p", { class: "muted", text: `Database #${profile.db_id} · created ${time(profile.created_at)} · updated ${time(profile.updated_at)}` }),
    h("h3", { text: "Fields" }),
    fields.length ? table("Profile fields", ["Field", "Value"], fields.map(([name, value]) => [name, h("span", { class: "field-value break", text: show(value) })])) : h("p", { class: "muted", text: "No fields." }),
    editing,
    h("h3", { text: "Subscriptions" }),
    h("p", { class: "hint", text: "Marking the profile makes each of its devices a test device; marking a subscription makes that device one alone." }),
    profile.subscriptions.length
      ? table(
          "Subscriptions",
          ["Resource", "Provider", "Token / address", "Status", "Test device", "Categories", "Tags", "Fields"],
          profile.subscriptions.map((s) => [
            `#${s.resource_id}`,
            s.provider || s.channel,
            h("span", { class: "break", text: s.subscription_id }),
            h("span", { class: `badge ${s.status === "subscribed" ? "good" : "warn"}`, text: s.status }),
            s.channel === "push" ? subscriptionTest(s) : "",
            Object.entries(s.cats || {}).map(([name, on]) => `${name}: ${on ? "on" : "off"}`).join(", "),
            Object.entries(s.tags || {}).map(([key, val]) => `${key}=${val}`).join(", "),
            h("span", { class: "break", text: Object.keys(s.fields || {}).length ? JSON.stringify(s.fields) : "" }),
          ]),
        )
      : h("p", { class: "muted", text: "No subscriptions." }),
    h("h3", { text: "Push events" }),
  );
  try {
    const events = await api("GET", `/profiles/${encodeURIComponent(profile.id)}/push-events`);
    card.append(
      events.length
        ? table("Push events", ["Received", "Type", "Message"], events.map((e) => [time(e.received_at), e.type, h("a", { href: `#/message/${encodeURIComponent(e.message_id.split(".")[0])}`, text: e.message_id })]))
        : h("p", { class: "muted", text: "No delivery or open reported yet." }),
    );
  } catch (error) {
    if (error.status !== 401) card.append(errorBox(error));
  }
  return card;
}

// Sets one field of the profile (send, full and server keys) through the backend's write,
// POST …/databases/{db_id}/profiles/update, so the $field_set messages it triggers start as on any
// write; the value is JSON when it reads as JSON (3, true, null removes the field), else text.
function fieldEditor(profile, card) {
  const name = input("field_name", { required: true, placeholder: "plan" });
  const value = input("field_value", { placeholder: "gold" });
  const form = h(
    "form",
    { class: "field-editor", novalidate: true, "aria-label": `Set a field of profile ${profile.id}` },
    h(
      "div",
      { class: "row" },
      field("Field", name, { api: "profile_fields" }),
      field("Value", value, { hint: "JSON when it is JSON (3, true; null removes the field), else text.", api: "value" }),
    ),
    h("div", { class: "actions" }, h("button", { type: "submit", text: "Set field" })),
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    clearErrors(form);
    const key = name.value.trim();
    if (!key) {
      fieldError(name, "Name the field to set.");
      name.focus();
      return;
    }
    let parsed = value.value;
    try {
      parsed = JSON.parse(value.value);
    } catch {
      // Text, as typed.
    }
    try {
      const answer = await api("POST", `/databases/${encodeURIComponent(profile.db_id)}/profiles/update`, {
        profiles: [{ matching: { profile_id: profile.id }, profile_fields: { [key]: parsed } }],
      });
      const result = answer.results[0];
      if (result.result === "refused" || result.result === "not_found") {
        fieldError(name, result.reason || "No such profile any more.");
        return;
      }
      card.replaceWith(await profileCard(await api("GET", `/profiles/${encodeURIComponent(profile.id)}`)));
      announce(result.result === "unchanged" ? `${key} already had that value` : `${key} set`);
    } catch (error) {
      if (error.status !== 401) showApiError(form, error);
    }
  });
  return form;
}

// Erases the profile when a person asks for it, after a second click: what goes cannot be brought
// back. The card then says what went.
function eraseControl(profile, card) {
  return secondClick({
    label: "Erase profile…",
    warning: "Its subscriptions, fields, goals, identity bindings, inbox and preferences go; message statistics stay. This cannot be undone.",
    confirm: "Erase for good",
    confirmLabel: `Erase profile ${profile.id} for good`,
    back: "Cancel",
    act: async () => {
      const erased = await api("DELETE", `/profiles/${encodeURIComponent(profile.id)}`);
      const counts = [
        ["subscriptions", "subscription"], ["fields", "field"], ["goals", "goal"], ["identity_installations", "identity binding"],
        ["inbox_messages", "inbox message"], ["preferences", "preference"],
      ].map(([key, noun]) => `${erased[key]} ${noun}${erased[key] === 1 ? "" : "s"}`);
      card.replaceChildren(
        h("h2", { class: "break" }, "Profile ", h("span", { class: "profile-id", text: profile.id }), " erased"),
        h("p", { text: `Removed ${counts.join(", ")}. Message statistics keep their counts.` }),
      );
      announce(`Profile ${profile.id} erased`);
    },
  }).element;
}

// Marks or unmarks one device (its push subscription: provider and token in its resource) as a
// test device, apart from its profile's mark.
function subscriptionTest(subscription) {
  const s = { ...subscription };
  const state = h("span", {});
  const button = h("button", { type: "button", class: "secondary" });
  const error = h("span", { class: "error", role: "alert" });
  const show = () => {
    state.replaceChildren(s.is_test ? h("span", { class: "badge good", text: "test" }) : "");
    button.textContent = s.is_test ? "Unmark" : "Mark as test";
    button.setAttribute("aria-label", `${s.is_test ? "Unmark" : "Mark"} subscription ${s.subscription_id} as a test device`);
    button.dataset.subscription = s.subscription_id;
  };
  show();
  button.addEventListener("click", async () => {
    button.disabled = true;
    error.textContent = "";
    try {
      const marked = await api("PUT", `/resources/${encodeURIComponent(s.resource_id)}/test-devices`, { provider: s.provider, subscription_id: s.subscription_id, is_test: !s.is_test });
      const mine = marked.find((m) => m.id === s.id) || marked[0];
      s.is_test = mine ? mine.is_test : !s.is_test;
      show();
      announce(s.is_test ? "The subscription is a test device" : "The subscription is no longer a test device");
    } catch (error_) {
      if (error_.status !== 401) error.textContent = error_.reason;
    } finally {
      button.disabled = false;
    }
  });
  return h("span", { class: "test-mark" }, state, " ", button, error);
}

function show(value) {
  return typeof value === "string" ? value : JSON.stringify(value);
}

/** Devices from another platform: a JSON Lines file (one device a line, as `tern import devices`
 *  reads it), checked line by line here, sent in parts of up to 1,000 (and 1 MB); failures listed by line. Export
 *  devices writes the resource's devices in that same file. A full or server key's page only: the
 *  import writes subscriptions, and the export holds every token and profile field. */
function importPanel(resources) {
  const resource = select("import_resource_id", resources.filter((r) => (r.channels || []).includes("push")).map((r) => [String(r.id), `${r.name} (#${r.id})`]));
  const file = h("input", { type: "file", name: "devices_file", accept: ".jsonl,.ndjson,.json,.txt,application/x-ndjson" });
  const result = h("div", { id: "import-result", role: "status" });
  const form = h(
    "form",
    { class: "panel", "aria-label": "Import devices", novalidate: true },
    h("h2", { text: "Import devices" }),
    h("p", { class: "muted", text: 'Push tokens another platform exported, one JSON object a line: {"subscription_id": "<token>", "matching": {"email": "ann@example.com"}, "profile_fields": {"_fname": "Ann"}, "tags": {"tier": "gold"}}. What a device says through the SDK later wins; importing again changes nothing.' }),
    h("div", { class: "row" }, field("Resource", resource, { api: "resource_id" }), field("File (JSON Lines)", file, { api: "devices" })),
    h(
      "div",
      { class: "actions" },
      h("button", { type: "submit", class: "secondary", id: "import-devices", text: "Import" }),
      h("button", { type: "button", class: "secondary", id: "export-devices", text: "Export devices", onclick: () => exportDevices(resource.value, form.querySelector("#export-devices"), result) }),
    ),
    result,
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    clearErrors(form);
    clear(result);
    const chosen = file.files && file.files[0];
    if (!chosen) return fieldError(file, "Pick a file: one device a line.");
    const lines = [];
    const text = await chosen.text();
    for (const [index, line] of text.split("\n").entries()) {
      if (!line.trim()) continue;
      let device;
      try {
        device = JSON.parse(line);
      } catch {
        device = null;
      }
      if (!device || typeof device !== "object" || Array.isArray(device)) return fieldError(file, `Line ${index + 1} is not a JSON object: one device a line.`);
      lines.push({ line: index + 1, device });
    }
    if (!lines.length) return fieldError(file, "The file has no devices.");
    const button = form.querySelector("#import-devices");
    button.disabled = true;
    let imported = 0;
    const failed = [];
    try {
      for (const part of parts(lines)) {
        result.textContent = `Importing… ${number(imported)} of ${number(lines.length)}`;
        try {
          const answer = await api("POST", `/resources/${encodeURIComponent(resource.value)}/devices/import`, { devices: part.map((p) => p.device) });
          imported += answer.imported;
          for (const failure of answer.failed) failed.push([String(part[failure.index].line), failure.error]);
        } catch (error) {
          if (error.status === 401) return;
          // The server names a bad device devices[i]: say its line.
          const reason = String(error.message || error).replace(/devices\[(\d+)\]:?\s*/, (_, i) => `line ${part[Number(i)]?.line ?? "?"}: `);
          clear(result).append(h("p", { class: "alert", role: "alert", text: `${reason} (${number(imported)} devices before line ${part[0].line} were imported; fix the file and import it again)` }));
          return;
        }
      }
      clear(result).append(
        h("p", { text: `Imported ${number(imported)} of ${number(lines.length)} devices.` }),
        failed.length ? table("Devices not imported", ["Line#", "Why"], failed) : null,
      );
      announce(`Imported ${imported} devices`);
    } finally {
      button.disabled = false;
    }
  });
  return form;
}

/** The file's devices in requests the server takes: up to 1,000 devices and 1 MB (it takes 1 MiB),
 *  as `tern import devices` sends them; a device with many fields makes its part smaller. */
function parts(lines) {
  const encoder = new TextEncoder();
  const all = [];
  let part = [];
  let bytes = 0;
  for (const line of lines) {
    const size = encoder.encode(JSON.stringify(line.device)).length + 1;
    if (part.length === 1000 || (part.length && bytes + size > 1_000_000)) {
      all.push(part);
      part = [];
      bytes = 0;
    }
    part.push(line);
    bytes += size;
  }
  if (part.length) all.push(part);
  return all;
}

/** A resource's devices as the JSON Lines file the import takes (as `tern export devices` writes
 *  it): the export's pages, followed by their cursor, then downloaded as one file. */
async function exportDevices(resourceId, button, result) {
  button.disabled = true;
  const lines = [];
  try {
    let after = null;
    do {
      result.textContent = `Exporting… ${number(lines.length)} devices`;
      const query = after === null ? "" : `?after=${encodeURIComponent(after)}`;
      const page = await api("GET", `/resources/${encodeURIComponent(resourceId)}/devices/export${query}`);
      for (const device of page.devices) lines.push(JSON.stringify(device));
      after = page.next;
    } while (after !== null && after !== undefined);
    const name = `devices-resource-${resourceId}.jsonl`;
    const url = URL.createObjectURL(new Blob(lines.map((line) => line + "\n"), { type: "application/x-ndjson" }));
    const link = h("a", { href: url, download: name, hidden: true });
    document.body.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(url), 60_000);
    clear(result).append(h("p", { text: `Exported ${number(lines.length)} devices to ${name}.` }));
    announce(`Exported ${lines.length} devices`);
  } catch (error) {
    if (error.status === 401) return;
    clear(result).append(h("p", { class: "alert", role: "alert", text: `${error.message || error} (after ${number(lines.length)} devices; nothing was downloaded)` }));
  } finally {
    button.disabled = false;
  }
}
