// Settings of a project: resources and categories, provider credentials (only fingerprints are
// shown back), the frequency cap, webhooks (their secret shown once), Live Activity channels and
// their broadcasts, JWT verification keys, pixels.
import { api } from "./api.js";
import { h, clear, field, input, select, checkbox, clearErrors, clearOnEdit, fieldError, showApiError, errorBox, time, table, announce } from "./ui.js";

export function render(main) {
  main.append(h("h1", { text: "Settings" }));
  const holder = h("div", {}, h("p", { class: "muted", text: "Loading…" }));
  main.append(holder);
  const load = async () => {
    try {
      const projects = await api("GET", "/projects");
      if (!projects.length) {
        clear(holder).append(h("p", { class: "panel", text: "No project yet: tern serve creates one when it first starts." }));
        return;
      }
      const chooser = select("project", projects.map((p) => [String(p.id), `${p.name} (#${p.id})`]));
      const sections = h("div", {});
      const show = () => project(Number(chooser.value), sections);
      chooser.addEventListener("change", show);
      clear(holder).append(h("div", { class: "panel" }, field("Project", chooser)), sections);
      show();
    } catch (error) {
      if (error.status !== 401) clear(holder).append(errorBox(error, load));
    }
  };
  load();
}

function project(projectId, sections) {
  clear(sections).append(resources(projectId), credentials(projectId), frequencyCap(projectId), webhooks(projectId), liveActivityChannels(projectId), jwtKeys(projectId), pixels(projectId));
}

/** A panel that loads its list and redraws it after every change. */
function section(title, loadList, drawList, form) {
  const list = h("div", {}, h("p", { class: "muted", text: "Loading…" }));
  const panel = h("section", { class: "panel", "aria-label": title }, h("h2", { text: title }), list);
  const reload = async () => {
    try {
      clear(list).append(drawList(await loadList(), reload));
    } catch (error) {
      if (error.status !== 401) clear(list).append(errorBox(error, reload));
    }
  };
  if (form) panel.append(form(reload));
  reload();
  return panel;
}

/** Submits a form's request; errors beside the fields. */
function submitter(form, build, send, done) {
  clearOnEdit(form);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    clearErrors(form);
    const request = build();
    if (!request) return;
    const button = form.querySelector("button[type='submit']");
    button.disabled = true;
    try {
      await send(request);
      form.reset();
      announce("Saved");
      await done();
    } catch (error) {
      if (error.status !== 401) showApiError(form, error);
    } finally {
      button.disabled = false;
    }
  });
  return form;
}

function required(control, message, errors) {
  const value = control.value.trim();
  if (!value) errors.push([control, message]);
  return value;
}

function report(errors) {
  for (const [control, message] of errors) fieldError(control, message);
  if (errors.length) errors[0][0].focus();
  return errors.length === 0;
}

function removeButton(label, action, reload) {
  const button = h("button", { type: "button", class: "danger", text: "Delete", "aria-label": `Delete ${label}` });
  button.addEventListener("click", async () => {
    if (!confirm(`Delete ${label}?`)) return;
    button.disabled = true;
    try {
      await action();
      announce(`${label} deleted`);
      await reload();
    } catch (error) {
      button.disabled = false;
      if (error.status !== 401) button.after(h("span", { class: "error", role: "alert", text: ` ${error.reason}` }));
    }
  });
  return button;
}

function resources(projectId) {
  return section(
    "Resources and categories",
    async () => {
      const list = await api("GET", `/resources?project_id=${projectId}`);
      return Promise.all(list.map(async (r) => ({ ...r, categories: await api("GET", `/resources/${r.id}/categories`) })));
    },
    (list, reload) =>
      list.length
        ? h(
            "div",
            {},
            list.map((r) =>
              h(
                "div",
                { class: "resource" },
                h("h3", { text: `${r.name} (#${r.id})` }),
                h("p", { class: "muted break", text: `Channels: ${(r.channels || []).join(", ")} · rToken ${r.rtoken || r.r_token || ""}` }),
                r.categories.length
                  ? table(`Categories of ${r.name}`, ["Name", "Title", "Steady", ""], r.categories.map((c) => [c.name, c.title, c.steady ? "yes" : "no", removeButton(`category ${c.name}`, () => api("DELETE", `/resources/${r.id}/categories/${encodeURIComponent(c.name)}`), reload)]))
                  : h("p", { class: "muted", text: "No categories." }),
                categoryForm(r.id, reload),
              ),
            ),
          )
        : h("p", { class: "muted", text: "No resources." }),
    (reload) => resourceForm(projectId, reload),
  );
}

function categoryForm(resourceId, reload) {
  const name = input("name", { maxlength: 64 });
  const title = input("title");
  const steady = checkbox("Steady (devices cannot turn it off)", "steady", false);
  const form = h("form", { novalidate: true, "aria-label": `Add a category to resource ${resourceId}` }, h("div", { class: "row" }, field("Category name", name, { api: "category name", hint: "letters, digits, _ and -" }), field("Title", title, { api: "title" }), steady.node, h("button", { type: "submit", class: "secondary", text: "Add or update category" })));
  return submitter(
    form,
    () => {
      const errors = [];
      const value = required(name, "Name the category.", errors);
      if (value && !/^[A-Za-z0-9_-]{1,64}$/.test(value)) errors.push([name, "Use letters, digits, _ and -, up to 64."]);
      return report(errors) ? { name: value, title: title.value.trim() || undefined, steady: steady.box.checked } : null;
    },
    (request) => api("PUT", `/resources/${resourceId}/categories/${encodeURIComponent(request.name)}`, { title: request.title, steady: request.steady }),
    reload,
  );
}

function resourceForm(projectId, reload) {
  const name = input("name");
  const push = checkbox("push", "push", true);
  const email = checkbox("email", "email", false);
  const sms = checkbox("sms", "sms", false);
  const form = h("form", { novalidate: true, "aria-label": "Create a resource" }, h("h3", { text: "New resource" }), h("div", { class: "row" }, field("Resource name", name, { api: "name" }), h("div", { class: "field", role: "group", "aria-label": "Channels" }, h("div", { class: "label", text: "Channels" }), push.node, email.node, sms.node)), h("button", { type: "submit", class: "secondary", text: "Create resource" }));
  return submitter(
    form,
    () => {
      const errors = [];
      const value = required(name, "Name the resource.", errors);
      const channels = [push, email, sms].filter((c) => c.box.checked).map((c) => c.box.name);
      if (!channels.length) errors.push([push.box, "Pick at least one channel."]);
      return report(errors) ? { project_id: projectId, name: value, channels } : null;
    },
    (request) => api("POST", "/resources", request),
    reload,
  );
}

function credentials(projectId) {
  return section(
    "Provider credentials",
    () => api("GET", `/projects/${projectId}/credentials`),
    (list, reload) =>
      list.length
        ? table(
            "Provider credentials",
            ["Provider", "Fingerprint", "Details", "Updated", ""],
            list.map((c) => [c.provider, h("code", { class: "break", text: c.fingerprint }), Object.entries(c.details || {}).map(([k, v]) => `${k}: ${v}`).join(" · "), time(c.updated_at), removeButton(`${c.provider} credentials`, () => api("DELETE", `/projects/${projectId}/credentials/${c.provider}`), reload)]),
          )
        : h("p", { class: "muted", text: "No credentials yet: nothing can be sent." }),
    (reload) => h("div", {}, apnsForm(projectId, reload), fcmForm(projectId, reload), hmsForm(projectId, reload), h("p", { class: "hint", text: "Secrets are stored by the server (mode 0600) and never shown again: only their fingerprint." })),
  );
}

/** A textarea that a chosen file fills. */
function fileText(name, accept) {
  const area = h("textarea", { name, class: "code", rows: 3 });
  const file = h("input", { type: "file", accept, "aria-label": `Read ${name} from a file` });
  file.addEventListener("change", async () => {
    if (file.files[0]) area.value = await file.files[0].text();
  });
  return { area, file };
}

function apnsForm(projectId, reload) {
  const team = input("team_id", { maxlength: 10 });
  const key = input("key_id", { maxlength: 10 });
  const p8 = fileText("private_key", ".p8,.pem,text/plain");
  const topic = input("topic");
  const form = h("form", { novalidate: true, "aria-label": "APNs credentials" }, h("h3", { text: "APNs (.p8 key)" }), h("div", { class: "row" }, field("Team id", team, { api: "team_id" }), field("Key id", key, { api: "key_id" }), field("Topic (bundle id)", topic, { api: "topic" })), field("Private key (.p8)", p8.area, { api: "private_key" }), p8.file, h("div", { class: "actions" }, h("button", { type: "submit", class: "secondary", text: "Upload APNs key" })));
  return submitter(
    form,
    () => {
      const errors = [];
      const request = { team_id: required(team, "Type the 10-character Team ID.", errors), key_id: required(key, "Type the 10-character Key ID.", errors), private_key: required(p8.area, "Paste or choose the .p8 key.", errors), topic: topic.value.trim() || undefined };
      if (request.private_key && !request.private_key.includes("PRIVATE KEY")) errors.push([p8.area, "This is not a .p8 key (no PRIVATE KEY block)."]);
      return report(errors) ? request : null;
    },
    (request) => api("PUT", `/projects/${projectId}/credentials/apns`, request),
    reload,
  );
}

function fcmForm(projectId, reload) {
  const account = fileText("service_account", ".json,application/json");
  const form = h("form", { novalidate: true, "aria-label": "FCM credentials" }, h("h3", { text: "FCM (service-account JSON)" }), field("Service account", account.area, { api: "FCM" }), account.file, h("div", { class: "actions" }, h("button", { type: "submit", class: "secondary", text: "Upload FCM service account" })));
  return submitter(
    form,
    () => {
      const errors = [];
      const text = required(account.area, "Paste or choose the service-account file.", errors);
      if (text) {
        try {
          JSON.parse(text);
        } catch {
          errors.push([account.area, "This is not JSON: choose the file Google gave you."]);
        }
      }
      return report(errors) ? text : null;
    },
    (text) => api("PUT", `/projects/${projectId}/credentials/fcm`, text),
    reload,
  );
}

function hmsForm(projectId, reload) {
  const app = input("app_id");
  const secret = input("client_secret", { type: "password" });
  const client = input("client_id");
  const form = h("form", { novalidate: true, "aria-label": "HMS credentials" }, h("h3", { text: "HMS Push Kit" }), h("div", { class: "row" }, field("App id", app, { api: "app_id" }), field("Client secret", secret, { api: "client_secret" }), field("Client id (if not the app id)", client, { api: "client_id" })), h("div", { class: "actions" }, h("button", { type: "submit", class: "secondary", text: "Save HMS credentials" })));
  return submitter(
    form,
    () => {
      const errors = [];
      const request = { app_id: required(app, "Type the app id.", errors), client_secret: required(secret, "Type the client secret.", errors), client_id: client.value.trim() || undefined };
      return report(errors) ? request : null;
    },
    (request) => api("PUT", `/projects/${projectId}/credentials/hms`, request),
    reload,
  );
}

// At most so many messages a person in a window (PUT/DELETE …/frequency-cap).
function frequencyCap(projectId) {
  const path = `/projects/${projectId}/frequency-cap`;
  return section(
    "Frequency cap",
    async () => (await api("GET", "/projects")).find((p) => p.id === projectId)?.frequency_cap || null,
    (cap, reload) =>
      cap
        ? h("p", { id: "frequency-cap" }, `A person gets at most ${cap.pushes} message${cap.pushes === 1 ? "" : "s"} in any ${cap.hours} hour${cap.hours === 1 ? "" : "s"}; messages sent with “ignore the frequency cap” go anyway and count. `, removeButton("the frequency cap", () => api("DELETE", path), reload))
        : h("p", { class: "muted", id: "frequency-cap", text: "No cap: a person gets every message their audiences reach." }),
    (reload) => {
      const pushes = input("pushes", { inputmode: "numeric" });
      const hours = input("hours", { inputmode: "numeric" });
      const form = h("form", { novalidate: true, "aria-label": "Set the frequency cap" }, h("h3", { text: "Set the cap" }), h("div", { class: "row" }, field("Messages a person (1 to 100)", pushes, { api: "pushes" }), field("In hours (1 to 720)", hours, { api: "hours" }), h("button", { type: "submit", class: "secondary", text: "Set cap" })));
      const whole = (control, name, max, errors) => {
        const text = control.value.trim();
        if (!/^\d+$/.test(text) || Number(text) < 1 || Number(text) > max) errors.push([control, `${name} must be a whole number from 1 to ${max}.`]);
        return Number(text);
      };
      return submitter(
        form,
        () => {
          const errors = [];
          const request = { pushes: whole(pushes, "Messages", 100, errors), hours: whole(hours, "Hours", 720, errors) };
          return report(errors) ? request : null;
        },
        (request) => api("PUT", path, request),
        reload,
      );
    },
  );
}

const WEBHOOK_EVENTS = [
  ["push.sent", "Sent (the provider took it)"],
  ["push.failed", "Failed (with the reason)"],
  ["push.delivered", "Delivered (the device reported it)"],
  ["push.opened", "Opened"],
  ["subscription.changed", "Subscriptions (made, status or token changed)"],
  ["goal.reached", "Goals (event/post)"],
  ["inapp.shown", "In-app shown"],
  ["inapp.clicked", "In-app clicked (with the button)"],
  ["inapp.closed", "In-app closed"],
  ["inapp.error", "In-app errors (with the reason)"],
  ["inbox.read", "Inbox read"],
  ["inbox.deleted", "Inbox deleted"],
];

// The project's events posted to URLs (…/webhooks): how each is doing, and its secret shown once.
function webhooks(projectId) {
  const path = `/projects/${projectId}/webhooks`;
  const secretNote = h("p", { class: "note", id: "webhook-secret", role: "status", hidden: true });
  const lastPost = (w) => {
    if (!w.last_attempt_at) return "none yet";
    if (w.last_error) return `${time(w.last_attempt_at)}: ${w.last_error}`;
    return `${time(w.last_attempt_at)}: ${w.last_status}`;
  };
  // Queues a webhook.test event (…/test), posted within a second or so.
  const testButton = (w) => {
    const button = h("button", { type: "button", class: "secondary", text: "Send a test event", "aria-label": `Send a test event to webhook ${w.id}` });
    button.addEventListener("click", async () => {
      button.disabled = true;
      try {
        await api("POST", `${path}/${w.id}/test`);
        button.after(h("span", { class: "muted", role: "status", text: " Queued: its post shows here on the next reload." }));
      } catch (error) {
        button.disabled = false;
        if (error.status !== 401) button.after(h("span", { class: "error", role: "alert", text: ` ${error.reason}` }));
      }
    });
    return button;
  };
  return section(
    "Webhooks",
    () => api("GET", path),
    (list, reload) =>
      h(
        "div",
        {},
        secretNote,
        list.length
          ? table("Webhooks", ["URL", "Events", "Waiting#", "Dropped#", "Last post", "Secret", ""], list.map((w) => [w.url, w.events.join(", "), String(w.pending), String(w.dropped), lastPost(w), `…${w.secret_hint}`, h("div", { class: "row" }, testButton(w), removeButton(`webhook ${w.id}`, () => api("DELETE", `${path}/${w.id}`), reload))]))
          : h("p", { class: "muted", text: "No webhooks: the project's sends and opens are read from the API." }),
      ),
    (reload) => {
      const url = input("webhook_url", { type: "url", placeholder: "https://" });
      const boxes = WEBHOOK_EVENTS.map(([name, label]) => checkbox(label, `event_${name}`, name === "push.opened"));
      // The group's error goes under it, named after its first box (as fieldError finds it).
      boxes[0].box.id = "webhook-events";
      boxes[0].box.dataset.api = "events";
      const events = h("div", { class: "row", role: "group", "aria-label": "Events" }, boxes.map((b) => b.node));
      const eventsError = h("p", { class: "error", id: "webhook-events-error", "aria-live": "polite" });
      const form = h("form", { novalidate: true, "aria-label": "Add a webhook" }, h("h3", { text: "Add a webhook" }), field("URL (https)", url, { api: "url", hint: "Events are posted in batches, signed with the secret shown once below (the Tern-Signature header)." }), h("div", { class: "field" }, h("div", { class: "label", text: "Events" }), events, eventsError), h("div", { class: "actions" }, h("button", { type: "submit", class: "secondary", text: "Add webhook" })));
      return submitter(
        form,
        () => {
          const errors = [];
          const request = { url: required(url, "Type the URL events are posted to.", errors), events: WEBHOOK_EVENTS.map(([name]) => name).filter((_, index) => boxes[index].box.checked) };
          if (!request.events.length) errors.push([boxes[0].box, "Pick at least one event."]);
          return report(errors) ? request : null;
        },
        async (request) => {
          const made = await api("POST", path, request);
          secretNote.textContent = `Webhook ${made.id}'s secret: ${made.secret}. Copy it now: it is not shown again.`;
          secretNote.hidden = false;
        },
        reload,
      );
    },
  );
}

// The project's APNs broadcast channels (…/live-activity-channels, Live Activities on iOS 18): made
// at APNs, one broadcast reaching every activity subscribed to one, removed at APNs.
function liveActivityChannels(projectId) {
  const path = `/projects/${projectId}/live-activity-channels`;
  const at = (c) => `${path}/${encodeURIComponent(c.name)}?apns_environment=${c.apns_environment}`;
  const last = (c) => (c.last_broadcast_at ? `${c.last_event}, ${time(c.last_broadcast_at)}` : "none yet");
  return section(
    "Live Activity channels",
    () => api("GET", path),
    (list, reload) =>
      h(
        "div",
        {},
        list.length
          ? table("Live Activity channels", ["Name", "Environment", "Channel id", "Kept for offline devices", "Broadcasts#", "Last broadcast", ""], list.map((c) => [c.name, c.apns_environment, c.channel_id, c.storage === "none" ? "nothing" : "the newest", String(c.broadcasts), last(c), removeButton(`channel ${c.name} (${c.apns_environment})`, () => api("DELETE", at(c)), reload)]))
          : h("p", { class: "muted", text: "No channels: an activity many devices follow alike (a match, a launch) gets one broadcast on a channel instead of a push to each device's token (iOS 18)." }),
        list.length ? broadcastForm(list, at, reload) : null,
      ),
    (reload) => {
      const name = input("channel_name", { maxlength: 128, placeholder: "match-4471" });
      const environment = select("channel_environment", [["production", "Production"], ["sandbox", "Sandbox (development builds)"]]);
      const storage = select("channel_storage", [["most_recent", "The newest broadcast"], ["none", "Nothing"]]);
      const form = h("form", { novalidate: true, "aria-label": "Make a Live Activity channel" }, h("h3", { text: "New channel" }), h("div", { class: "row" }, field("Channel name", name, { api: "name", hint: "letters, digits, - _ . and :; the app asks for its id by this name" }), field("APNs environment", environment, { api: "apns_environment" }), field("Kept for offline devices", storage, { api: "storage" })), h("div", { class: "actions" }, h("button", { type: "submit", class: "secondary", text: "Make channel" })));
      return submitter(
        form,
        () => {
          const errors = [];
          const request = { name: required(name, "Name the channel.", errors), apns_environment: environment.value, storage: storage.value };
          if (request.name && !/^[A-Za-z0-9_.:-]+$/.test(request.name)) errors.push([name, "Letters, digits, - _ . and : only."]);
          return report(errors) ? request : null;
        },
        (request) => api("POST", path, request),
        reload,
      );
    },
  );
}

/** One broadcast on a channel: an update with the activity's content, or its end. */
function broadcastForm(list, at, reload) {
  const channel = select("broadcast_channel", list.map((c, index) => [String(index), `${c.name} (${c.apns_environment})`]));
  const event = select("broadcast_event", [["update", "Update"], ["end", "End"]]);
  const state = h("textarea", { name: "content_state", rows: 3, placeholder: '{"home": 2, "away": 1}' });
  const title = input("broadcast_title", { maxlength: 1024 });
  const body = input("broadcast_body", { maxlength: 4096 });
  const form = h("form", { novalidate: true, "aria-label": "Broadcast on a channel" }, h("h3", { text: "Broadcast" }), h("div", { class: "row" }, field("Channel", channel), field("Event", event, { api: "event" })), field("Content state (JSON)", state, { api: "content_state", hint: "The activity's dynamic content, as its ContentState decodes it; required for an update." }), h("div", { class: "row" }, field("Alert title (optional)", title, { api: "title" }), field("Alert body (optional)", body, { api: "body" })), h("div", { class: "actions" }, h("button", { type: "submit", class: "secondary", text: "Broadcast" })));
  return submitter(
    form,
    () => {
      const errors = [];
      const request = { event: event.value };
      const text = state.value.trim();
      if (text) {
        try {
          const parsed = JSON.parse(text);
          if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) errors.push([state, "The content state is a JSON object, e.g. {\"home\": 2}."]);
          else request.content_state = parsed;
        } catch {
          errors.push([state, "That is not JSON: write an object, e.g. {\"home\": 2}."]);
        }
      } else if (request.event === "update") {
        errors.push([state, "An update needs the activity's content."]);
      }
      if (title.value.trim()) request.title = title.value.trim();
      if (body.value.trim()) request.body = body.value.trim();
      return report(errors) ? request : null;
    },
    async (request) => {
      const target = list[Number(channel.value)];
      const sent = await api("POST", at(target).replace("?", "/broadcasts?"), request);
      announce(`Broadcast ${sent.event} sent on ${sent.name}`);
    },
    reload,
  );
}

function jwtKeys(projectId) {
  return section(
    "JWT verification keys",
    () => api("GET", `/projects/${projectId}/jwt-keys`),
    (list, reload) =>
      list.length
        ? table("JWT keys", ["Key id", "Algorithm", "Added", ""], list.map((k) => [k.kid, k.algorithm, time(k.created_at), removeButton(`key ${k.kid}`, () => api("DELETE", `/projects/${projectId}/jwt-keys/${encodeURIComponent(k.kid)}`), reload)]))
        : h("p", { class: "muted", text: "No keys: JWT-authenticated SDK calls are refused." }),
    (reload) => {
      const kid = input("kid");
      const algorithm = select("algorithm", ["ES256", "RS256", "PS256", "HS256"].map((a) => [a, a]));
      const key = fileText("key", ".pem,text/plain");
      const form = h("form", { novalidate: true, "aria-label": "Import a JWT key" }, h("h3", { text: "Import a public key" }), h("div", { class: "row" }, field("Key id (kid)", kid, { api: "kid" }), field("Algorithm", algorithm, { api: "algorithm" })), field("Public key (PEM), or the HS256 secret", key.area, { api: "key" }), key.file, h("div", { class: "actions" }, h("button", { type: "submit", class: "secondary", text: "Import key" })));
      return submitter(
        form,
        () => {
          const errors = [];
          const request = { kid: required(kid, "Name the key (its kid).", errors), algorithm: algorithm.value, key: required(key.area, "Paste the public key.", errors) };
          if (request.key.includes("PRIVATE KEY")) errors.push([key.area, "That is a private key: import only the public key, keep the private one in your backend."]);
          return report(errors) ? request : null;
        },
        (request) => api("POST", `/projects/${projectId}/jwt-keys`, request),
        reload,
      );
    },
  );
}

function pixels(projectId) {
  return section(
    "Pixels",
    () => api("GET", `/projects/${projectId}/pixels`),
    (list, reload) =>
      list.length
        ? table("Pixels", ["Sid", "Name", "Created", ""], list.map((p) => [p.sid, p.name, time(p.created_at), removeButton(`pixel ${p.sid}`, () => api("DELETE", `/projects/${projectId}/pixels/${encodeURIComponent(p.sid)}`), reload)]))
        : h("p", { class: "muted", text: "No pixels: goals need one." }),
    (reload) => {
      const sid = input("sid");
      const name = input("name");
      const form = h("form", { novalidate: true, "aria-label": "Create a pixel" }, h("h3", { text: "New pixel" }), h("div", { class: "row" }, field("Sid (empty: random)", sid, { api: "sid" }), field("Pixel name", name, { api: "name" }), h("button", { type: "submit", class: "secondary", text: "Create pixel" })));
      return submitter(form, () => ({ sid: sid.value.trim() || undefined, name: name.value.trim() || undefined }), (request) => api("POST", `/projects/${projectId}/pixels`, request), reload);
    },
  );
}
