// Compose and send: every field tern send takes, an audience picker (a resource, profiles, a device,
// or a saved segment), a lock-screen preview, a test send, and a confirmation with the audience's
// size (and a segment's preview count). The draft lives in sessionStorage.
import { api } from "./api.js";
import { h, clear, field, input, select, checkbox, clearErrors, clearOnEdit, fieldError, showApiError, announce, errorBox, number, time } from "./ui.js";
import { lockScreen } from "./preview.js";
import { rhythm, WEEKDAYS, triggerWho, valueText } from "./messages.js";
import { allTemplates } from "./templates.js";

const DRAFT = "tern.compose.draft";
// What a duplicated message had that this page cannot hold, shown once above the form.
const DUPLICATE_NOTE = "tern.compose.duplicateNote";
// The message the compose page saves over (PUT) instead of sending a new one, set by edit().
const EDITING = "tern.compose.editing";

/**
 * Fills the compose page with a message that has not gone yet, as duplicate() does, with its time;
 * the page's submit then saves over that message (PUT …/messages/{id}) rather than sending another.
 */
export function edit(id, r) {
  duplicate(id, r);
  const values = JSON.parse(sessionStorage.getItem(DRAFT));
  // The datetime-local control's text: the time in this browser's zone, to the minute.
  const local = (ms) => new Date(ms - new Date(ms).getTimezoneOffset() * 60000).toISOString().slice(0, 16);
  values.send_at = r.send_at ? local(r.send_at) : "";
  sessionStorage.setItem(DRAFT, JSON.stringify(values));
  sessionStorage.setItem(DUPLICATE_NOTE, sessionStorage.getItem(DUPLICATE_NOTE).replace(`A copy of ${id}.`, "").trim());
  sessionStorage.setItem(EDITING, id);
}

/**
 * Makes a sent message's request the compose page's draft (its controls' values, as the page
 * saves them) and says what of it the page has no control for. Sent now unless a time is picked;
 * never as a test send.
 */
export function duplicate(id, r) {
  const text = (value) => (value === undefined || value === null ? "" : String(value));
  const values = {
    title: text(r.title), subtitle: text(r.subtitle), body: text(r.body), media_url: text(r.media_url), click_url: text(r.click_url),
    push_type: r.push_type || "alert", priority: text(r.priority), environment: r.environment || "production", category: text(r.category),
    badge: text(r.badge), sound: text(r.sound), time_to_live: text(r.time_to_live), send_at: "", throttle_per_minute: text(r.throttle_per_minute), repeat_every_days: text(r.repeat && r.repeat.every_days), repeat_weekdays: r.repeat && r.repeat.weekdays ? r.repeat.weekdays.join(",") : "",
    local_time_of_day: text(r.local_time_of_day), collapse_id: text(r.collapse_id), thread_id: text(r.thread_id), topic: text(r.topic),
    ios_category: text(r.ios_category), interruption_level: text(r.interruption_level), relevance_score: text(r.relevance_score), track_delivery: r.track_delivery !== false, track_open: r.track_open !== false,
    ignore_frequency_cap: r.ignore_frequency_cap === true, at_usual_open_time: r.at_usual_open_time === true,
    quiet_from: text(r.quiet_hours && r.quiet_hours.from), quiet_to: text(r.quiet_hours && r.quiet_hours.to),
    data: r.data ? JSON.stringify(r.data) : "",
    localizations: r.localizations ? JSON.stringify(r.localizations) : "",
    trigger_event: text(r.trigger && r.trigger.event_name), trigger_delay: text(r.trigger && r.trigger.delay_minutes),
    trigger_cancel: text(r.trigger && r.trigger.cancel_event_name), trigger_reentry: text(r.trigger && r.trigger.reentry_after_minutes),
    trigger_tag: text(r.trigger && r.trigger.tag), trigger_tag_value: text(r.trigger && r.trigger.tag_value),
    trigger_field: text(r.trigger && r.trigger.field), trigger_field_value: r.trigger && r.trigger.field_value != null ? fieldValueText(r.trigger.field_value) : "",
    trigger_campaign: text(r.trigger && r.trigger.campaign_id), trigger_button: text(r.trigger && r.trigger.button),
    control_percent: text(r.control_percent), conversion_goal: text(r.conversion_goal), conversion_window_hours: text(r.conversion_window_hours),
  };
  (r.buttons || []).slice(0, 3).forEach((b, index) => Object.assign(values, { [`button${index}_id`]: b.id, [`button${index}_title`]: b.title, [`button${index}_action`]: b.action, [`button${index}_url`]: text(b.url) }));
  const missing = [];
  if (r.inbox) missing.push("its copy to the inbox (inbox: true)");
  if (r.repeat && r.repeat.until) missing.push(`the last time of its copies (repeat.until ${r.repeat.until})`);
  if (r.target_content_id) missing.push(`its target window (target_content_id ${r.target_content_id})`);
  if (r.filter_criteria) missing.push(`its Focus filter (filter_criteria ${r.filter_criteria})`);
  const keys = ["title_loc_key", "subtitle_loc_key", "body_loc_key"].filter((key) => r[key]);
  if (keys.length) missing.push(`its texts as keys of the app's strings (${keys.map((key) => `${key} ${r[key]}`).join(", ")})`);
  if (r.live_activity) missing.push(`its Live Activity ${r.live_activity.event} (tern send --live-activity sends one)`);
  const v = r.variants || [];
  // This page holds an A/B test of two versions whose second changes the title or body.
  const plain = (variant, keys) => Object.keys(variant).every((key) => keys.includes(key));
  if (v.length === 2 && plain(v[0], ["percent"]) && plain(v[1], ["percent", "title", "body"])) {
    Object.assign(values, { ab_test: true, variant_title: text(v[1].title), variant_body: text(v[1].body), variant_percent: text(v[1].percent), variant_sample: text(r.test_audience_percent), variant_winner_after: text(r.winner_after_minutes), variant_winner_by: r.winner_by || "opens", variant_winner_goal: text(r.winner_goal) });
  } else if (v.length) missing.push(`its ${v.length} versions (tern send --variant keeps them)`);
  if (r.winner_of) missing.push(`that it was the winner of ${r.winner_of.message_id} (the copy goes to the whole audience)`);
  const a = r.audience || {};
  values.audience_type = a.type;
  if (a.type === "resource") {
    values.resource_id = text(a.resource_id);
    for (const name of a.categories || []) values[`cat_${name}`] = true;
    values.tags = Object.entries(a.tags || {}).map(([key, value]) => (value === null ? key : `${key}=${value}`)).join("\n");
    values.fields = a.fields ? JSON.stringify(a.fields) : "";
    if (a.filter) missing.push("its audience's filter (the Segments page can save it as a segment)");
  } else if (a.type === "segment") values.segment_id = text(a.segment_id);
  else if (a.type === "profile") values.profile_id = text(a.profile_id);
  else if (a.type === "profiles") values.profile_ids = (a.profile_ids || []).join("\n");
  else if (a.type === "token") Object.assign(values, { provider: a.provider || "ios-apns", token: text(a.token) });
  else {
    values.audience_type = "resource";
    missing.push(`its audience (${a.type}: pick one here)`);
  }
  sessionStorage.setItem(DRAFT, JSON.stringify(values));
  sessionStorage.removeItem(EDITING);
  const note = `A copy of ${id}.` + (missing.length ? ` This page has no place for ${missing.join(" or ")}: it is not in the copy.` : "");
  sessionStorage.setItem(DUPLICATE_NOTE, note);
}

/**
 * Makes an empty draft whose audience is the saved segment `segmentId`, with the push type and
 * environment of the message `r` it follows up, and says so above the form (the message page's
 * "Retarget…", which saves the segment first: this page picks saved segments, not filters).
 */
export function retarget(segmentId, note, r) {
  const values = { push_type: r.push_type === "background" ? "background" : "alert", environment: r.environment || "production", audience_type: "segment", segment_id: String(segmentId) };
  sessionStorage.setItem(DRAFT, JSON.stringify(values));
  sessionStorage.removeItem(EDITING);
  sessionStorage.setItem(DUPLICATE_NOTE, note);
}

export function render(main) {
  main.append(h("h1", { text: "Compose a push" }));
  const holder = h("div", {}, h("p", { class: "muted", text: "Loading resources…" }));
  main.append(holder);
  const load = async () => {
    try {
      const [resources, testDevices, projects] = await Promise.all([api("GET", "/resources"), api("GET", "/test-devices"), api("GET", "/projects")]);
      clear(holder).append(composer(resources.filter((r) => (r.channels || []).includes("push")), testDevices, projects));
    } catch (error) {
      if (error.status !== 401) clear(holder).append(errorBox(error, load));
    }
  };
  load();
}

function composer(resources, testDevices, projects) {
  const c = controls(resources);
  // The frequency cap the message meets: its resource's project's, or the one project's.
  const capOf = (request) => {
    if (request.ignore_frequency_cap || request.test) return null;
    const resource = resources.find((r) => r.id === request.audience.resource_id);
    const project = resource ? projects.find((p) => p.id === resource.project_id) : projects.length === 1 ? projects[0] : null;
    return (project && project.frequency_cap) || null;
  };
  const preview = h("div", { class: "panel", "aria-labelledby": "preview-title" }, h("h2", { id: "preview-title", text: "Preview" }));
  const previewBody = h("div", {});
  preview.append(previewBody, h("p", { class: "hint", text: "How an iPhone shows it on the lock screen; the app's name and icon are placeholders." }));
  const dialog = confirmDialog();
  const testArea = testSend(c, testDevices);
  const form = h(
    "form",
    { novalidate: true, "aria-label": "Compose" },
    h(
      "fieldset",
      {},
      h("legend", { text: "Content" }),
      field("Title", c.title, { api: "title", hint: "Title, subtitle, body, the click URL and the custom data's texts may name the person's profile fields: Hi {{_fname|there}} (after the bar, what someone without the field sees)." }),
      field("Subtitle", c.subtitle, { api: "subtitle" }),
      field("Body", c.body, { api: "body" }),
      field("Media URL", c.media_url, { api: "media_url", hint: "https image, GIF, audio or video the extension attaches." }),
      field("Click URL", c.click_url, { api: "click_url", hint: "Opened when the notification is tapped." }),
      h("div", { class: "label", text: "Buttons" }),
      c.buttons.map((b, index) =>
        h("div", { class: "row", role: "group", "aria-label": `Button ${index + 1}` }, field(`Button ${index + 1} id`, b.id, { api: `buttons[${index}].id` }), field("Title", b.title, { api: `buttons[${index}].title` }), field("Action", b.action, { api: `buttons[${index}].action` }), field("URL", b.url, { api: `buttons[${index}].url` })),
      ),
    ),
    h(
      "fieldset",
      {},
      h("legend", { text: "A/B test" }),
      c.ab_test.node,
      h(
        "div",
        { id: "variant-fields" },
        h("p", { class: "hint", text: "Version A is the content above. Version B replaces its title or body; everything else is the same. Each device gets one version, and the message's page compares their opens." }),
        field("Version B title", c.variant_title, { api: "variants[1] (b): title" }),
        field("Version B body", c.variant_body, { api: "variants[1] (b): body" }),
        field("Version B's share of the audience (%)", c.variant_percent, { api: "variants[1].percent", hint: "1 to 99; empty: half. Version A gets the rest." }),
        field("Test on (% of the audience)", c.variant_sample, { api: "test_audience_percent", hint: "Empty: the whole audience. Otherwise the test goes to this share, and the rest wait for the version you pick on the message's page." }),
        field("Send the winner after (minutes)", c.variant_winner_after, { api: "winner_after_minutes", hint: "With a test share: this long after the send, the server sends the version with the most opens (or conversions) per device to the rest. Empty: you pick it." }),
        h("div", { class: "row" }, field("The winner has the most", c.variant_winner_by, { api: "winner_by" }), field("Of the goal", c.variant_winner_goal, { api: "winner_goal", hint: "With conversions: only this goal's (event name); empty: any goal naming the push." })),
      ),
    ),
    h(
      "fieldset",
      {},
      h("legend", { text: "Control group" }),
      h("p", { class: "hint", text: "Hold out a share of the people, who get nothing, and compare how many of them reach a goal with how many of the people it went to: the message's page shows both rates and the uplift. Not with a trigger, a repeat, a background push, a test send or a test on part of the audience." }),
      h(
        "div",
        { class: "row" },
        field("Hold out (% of the people)", c.control_percent, { api: "control_percent", hint: "1 to 50, chosen by person (all of a person's devices together). Empty: no control group." }),
        field("Conversion goal", c.conversion_goal, { api: "conversion_goal", hint: "The goal's event name (the app's sendTarget), e.g. purchase; needed with a share." }),
        field("Within (hours)", c.conversion_window_hours, { api: "conversion_window_hours", hint: "1 to 720 after the send; empty: 72." }),
      ),
    ),
    h(
      "fieldset",
      {},
      h("legend", { text: "Trigger" }),
      field("Send on the goal", c.trigger_event, { api: "trigger.event_name", hint: "Empty: sent now. A goal's name (the app's sendTarget eventName): the message stands, and each person of the resource who reaches the goal gets it, until it is stopped. $subscribed (offered in the list): a welcome, when one of the person's devices subscribes to the resource's pushes; the app posts nothing for it. $tag_set (offered too): when the app sets a device's tag (below) to a new value. $field_set (offered too): when one of the person's profile fields (below) takes a new value. $inapp_clicked and $inapp_shown (offered too): when the person taps a button of an in-app campaign (below), or sees it. For a resource audience; not with a send time, a time to live, a throttle, a local time, quiet hours, the usual open time or an A/B test." }),
      h("datalist", { id: "trigger-events" }, h("option", { value: "$subscribed", label: "when a device subscribes (a welcome)" }), h("option", { value: "$tag_set", label: "when a device's tag is set" }), h("option", { value: "$field_set", label: "when a profile field is set" }), h("option", { value: "$inapp_clicked", label: "when an in-app message's button is tapped" }), h("option", { value: "$inapp_shown", label: "when an in-app message is shown" })),
      h(
        "div",
        { class: "row" },
        field("Tag", c.trigger_tag, { api: "trigger.tag", hint: "With $tag_set (required there): the tag whose new value sends the message, e.g. plan." }),
        field("Tag value", c.trigger_tag_value, { api: "trigger.tag_value", hint: "With $tag_set: only this value sends it, e.g. premium. Empty: any value the device's tag did not have." }),
      ),
      h(
        "div",
        { class: "row" },
        field("Profile field", c.trigger_field, { api: "trigger.field", hint: "With $field_set (required there): the profile field whose new value sends the message, e.g. plan." }),
        field("Field value", c.trigger_field_value, { api: "trigger.field_value", hint: "With $field_set: only this value sends it, read as JSON when it is one (3, true, \"3\" for the text 3), else as text, e.g. premium. Empty: any value the field did not have; a field removed sends nothing." }),
      ),
      h(
        "div",
        { class: "row" },
        field("In-app campaign", c.trigger_campaign, { api: "trigger.campaign_id", hint: "With $inapp_clicked or $inapp_shown (required there): the campaign's id (tern inapp list shows them), e.g. 12." }),
        field("Button", c.trigger_button, { api: "trigger.button", hint: "With $inapp_clicked: only a tap on this button of the campaign sends it, e.g. upgrade. Empty: a tap on any." }),
      ),
      h(
        "div",
        { class: "row" },
        field("Delay (minutes)", c.trigger_delay, { api: "trigger.delay_minutes", hint: "0 to 43200 (30 days) after the goal; empty: at once." }),
        field("Again after (minutes)", c.trigger_reentry, { api: "trigger.reentry_after_minutes", hint: "1 to 525600 (a year): a person who reaches the goal again this long after it last went to them gets it again (each abandoned cart its reminder). Empty: once a person." }),
        field("Unless they reach first", c.trigger_cancel, { api: "trigger.cancel_event_name", hint: "A goal that ends a waiting person's message unsent, e.g. purchase." }),
      ),
    ),
    h(
      "fieldset",
      {},
      h("legend", { text: "Delivery" }),
      h("div", { class: "row" }, field("Push type", c.push_type, { api: "push_type" }), field("Priority", c.priority, { api: "priority" }), field("Environment", c.environment, { api: "environment", hint: "For devices whose SDK did not say its own." })),
      h("div", { class: "row" }, field("Category", c.category, { api: "category", hint: "Devices that turned it off skip the push." }), field("Badge", c.badge, { api: "badge" }), field("Sound", c.sound, { api: "sound" })),
      h("div", { class: "row" }, field("Interruption level", c.interruption_level, { api: "interruption_level", hint: "Time sensitive breaks through Focus (the app's Time Sensitive capability); critical sounds through mute (Apple's critical alerts entitlement)." }), field("Relevance score (0 to 1)", c.relevance_score, { api: "relevance_score", hint: "Where the notification summary ranks it; empty: the system's own." })),
      h("div", { class: "row" }, field("Time to live (seconds)", c.time_to_live, { api: "time_to_live", hint: "0: now or never; empty: the provider's default." }), field("Collapse id", c.collapse_id, { api: "collapse_id" }), field("Thread id", c.thread_id, { api: "thread_id" })),
      h("div", { class: "row" }, field("Send at (this browser's time zone)", c.send_at, { api: "send_at", hint: "Empty: now. Up to 30 days ahead; the audience is read then, and the time to live counts from then." }), field("Throttle (deliveries a minute)", c.throttle_per_minute, { api: "throttle_per_minute", hint: "Empty: as fast as the providers take them. Spreads the opens that follow over time; the time to live still counts from the send time." })),
      h("div", { class: "row" }, field("Repeat every (days)", c.repeat_every_days, { api: "repeat.every_days", hint: "Empty: once. A copy goes to the audience as it is then every so many days from the send time, until the message is stopped. Not with an A/B test or a test send." }), field("Or repeat on these days", c.repeat_weekdays, { api: "repeat.weekdays", hint: "Days of the week, like mon,thu: a copy goes to the audience as it is then on each, at the send time's time of day in UTC; with a local time, on each device's own day at that time (the send time then only picks the first day). Until the message is stopped." })),
      h("div", { class: "row" }, field("At this time on each device's clock", c.local_time_of_day, { api: "local_time_of_day", hint: "Empty: at the send time. Each device gets it when its own clock shows this time (its time zone; UTC when its SDK has not sent one), within a day of the send time (with days of the week, on its own listed day). Not with a throttle; a time to live is then at least 86400 (with days of the week, 93600 plus the time of day in seconds)." }), field("Quiet hours from", c.quiet_from, { api: "quiet_hours.from", hint: "With “until”: a device whose clock is in these hours at the send time gets it when they end. Not with a throttle or a local time." }), field("Quiet hours until", c.quiet_to, { api: "quiet_hours.to" })),
      h("div", { class: "row" }, field("Topic (bundle id)", c.topic, { api: "topic", hint: "Empty: the APNs credential's topic." }), field("iOS category", c.ios_category, { api: "ios_category", hint: "A category the app registered (aps.category); not with buttons." })),
      h("div", { class: "row" }, c.at_usual_open_time.node, h("p", { class: "hint", text: "Each device gets it when its person usually opens pushes (the hour of day they opened the most in), within a day of the send time; people with no opens yet at once. Not with a throttle, a local time or quiet hours." })),
      h("div", { class: "row" }, c.track_delivery.node, c.track_open.node, c.ignore_frequency_cap.node),
      field("Custom data (JSON object)", c.data, { api: "data", hint: 'Top-level keys beside aps, e.g. {"order_id": "A-1001"}.' }),
      field("Texts in other languages (JSON object)", c.localizations, { api: "localizations", hint: 'By language code, e.g. {"es": {"title": "Rebajas", "body": "30 % hoy"}}: each device gets its own language\'s title, subtitle and body, the message\'s own otherwise.' }),
    ),
    h(
      "fieldset",
      {},
      h("legend", { text: "Audience" }),
      field("Send to", c.audience_type, { api: "audience.type" }),
      h("div", { "data-audience": "resource" }, field("Resource", c.resource_id, { api: "audience.resource_id" }), h("div", { class: "field" }, h("div", { class: "label", id: "cats-label", text: "Only devices with these categories on" }), c.categoryBoxes), field("Tags (key=value per line; key alone: any value)", c.tags, { api: "audience.tags" }), field("Custom fields equal to (JSON object)", c.fields, { api: "audience.fields" })),
      h("div", { "data-audience": "segment" }, field("Segment", c.segment_id, { api: "audience.segment_id", hint: "A saved audience (the Segments page builds and saves them); the confirmation says how many it matches now." }), c.segmentNote),
      h("div", { "data-audience": "profile" }, field("Profile id", c.profile_id, { api: "audience.profile_id" })),
      h("div", { "data-audience": "profiles" }, field("Profile ids (one per line)", c.profile_ids, { api: "audience.profile_ids" })),
      h("div", { "data-audience": "token" }, h("div", { class: "row" }, field("Provider", c.provider, { api: "audience.provider" }), field("Push token", c.token, { api: "audience.token" }))),
    ),
    h("div", { class: "actions" }, h("button", { type: "submit", id: "review", text: "Review and send…" })),
  );
  // Kept with the draft until it is saved or left for a new message: a reload while editing
  // still saves over the message, never sends the edited draft as another one.
  const editing = sessionStorage.getItem(EDITING);
  if (editing) form.querySelector("#review").textContent = "Review and save…";
  form.prepend(h("div", { class: "alert form-alert", role: "alert" }));
  const copied = sessionStorage.getItem(DUPLICATE_NOTE);
  if (copied) {
    sessionStorage.removeItem(DUPLICATE_NOTE);
    form.prepend(h("p", { class: "note", id: "duplicate-note", role: "status", text: copied }));
  }
  if (editing) {
    const fresh = () => {
      sessionStorage.removeItem(EDITING);
      sessionStorage.removeItem(DRAFT);
      const main = form.closest("main") || document.querySelector("main");
      clear(main);
      render(main);
    };
    form.prepend(
      h("p", { class: "note", id: "editing-note", role: "status" }, `Editing ${editing}: saving replaces what it will send, and it keeps its id. `, h("button", { type: "button", class: "secondary", id: "compose-new", onclick: fresh, text: "Compose a new message instead" })),
    );
  }
  clearOnEdit(form);

  const refresh = () => {
    for (const part of form.querySelectorAll("[data-audience]")) part.hidden = part.dataset.audience !== c.audience_type.value;
    const testing = c.ab_test.box.checked;
    form.querySelector("#variant-fields").hidden = !testing;
    const a = previewContent(c);
    if (!testing) clear(previewBody).append(lockScreen(a));
    else {
      const b = { ...a, title: c.variant_title.value.trim() || a.title, body: c.variant_body.value.trim() || a.body };
      clear(previewBody).append(h("h3", { text: "Version A" }), lockScreen(a), h("h3", { text: "Version B" }), lockScreen(b));
    }
  };
  const save = () => sessionStorage.setItem(DRAFT, JSON.stringify(snapshot(form)));
  restore(form, c);
  loadCategories(c).then(() => {
    restoreCategories(form);
    refresh();
  });
  loadSegments(c).then(() => restoreSegment(form, c));
  c.resource_id.addEventListener("change", () => loadCategories(c).then(save));
  form.addEventListener("input", () => {
    refresh();
    save();
  });
  form.addEventListener("change", () => {
    refresh();
    save();
  });
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    clearErrors(form);
    const request = build(c);
    if (!request) return;
    const button = form.querySelector("#review");
    button.disabled = true;
    try {
      const segment = request.audience.type === "segment" ? c.segments.get(request.audience.segment_id) : null;
      const [size, preview] = await Promise.all([
        api("POST", "/audience/size", request),
        segment ? api("GET", `/segments/${encodeURIComponent(segment.id)}/preview?sample=0`) : null,
      ]);
      const go = await dialog.ask(size.devices, segment && { name: segment.name, count: preview.count }, request, capOf(request));
      if (!go) return;
      if (editing) {
        const saved = await api("PUT", `/messages/${encodeURIComponent(editing)}`, request, { "Idempotency-Key": crypto.randomUUID() });
        sessionStorage.removeItem(DRAFT);
        sessionStorage.removeItem(EDITING);
        form.querySelector("#edit-saved")?.remove();
        form.prepend(h("p", { class: "note", id: "edit-saved", role: "status" }, "Saved: ", h("a", { href: `#/message/${encodeURIComponent(saved.id)}`, text: `message ${saved.id}` })));
        announce("Saved");
        return;
      }
      const sent = await api("POST", "/messages", request, { "Idempotency-Key": crypto.randomUUID() });
      sessionStorage.removeItem(DRAFT);
      announce(sent.send_at ? "Message scheduled" : "Message queued");
      location.hash = `#/message/${encodeURIComponent(sent.id)}`;
    } catch (error) {
      if (error.status !== 401) showApiError(form, error);
    } finally {
      button.disabled = false;
    }
  });
  refresh();
  return h("div", { class: "split" }, h("div", { class: "panel" }, templateStart(c, form, projects), testArea, form), h("div", {}, preview), dialog.node);
}

function controls(resources) {
  const text = (name, props) => input(name, props);
  const buttons = [0, 1, 2].map((index) => ({
    id: text(`button${index}_id`, { maxlength: 64 }),
    title: text(`button${index}_title`),
    action: select(`button${index}_action`, [["open", "open the app"], ["url", "open the URL"], ["dismiss", "dismiss"]]),
    url: text(`button${index}_url`, { type: "url" }),
  }));
  return {
    title: text("title"),
    subtitle: text("subtitle"),
    body: h("textarea", { name: "body", rows: 3 }),
    media_url: text("media_url", { type: "url", placeholder: "https://" }),
    click_url: text("click_url", { type: "url" }),
    buttons,
    push_type: select("push_type", [["alert", "alert"], ["background", "background (silent)"]]),
    priority: select("priority", [["", "default"], ["10", "10: immediately"], ["5", "5: power-considerate"], ["1", "1: lowest"]]),
    environment: select("environment", [["production", "production"], ["sandbox", "sandbox"]]),
    category: select("category", [["", "none"]]),
    badge: text("badge", { inputmode: "numeric" }),
    sound: text("sound", { placeholder: "default" }),
    interruption_level: select("interruption_level", [["", "active (the default)"], ["passive", "passive: quietly, into the list"], ["time-sensitive", "time sensitive: through Focus"], ["critical", "critical: through mute and Focus"]]),
    relevance_score: text("relevance_score", { inputmode: "decimal", placeholder: "0.5" }),
    time_to_live: text("time_to_live", { inputmode: "numeric" }),
    send_at: text("send_at", { type: "datetime-local" }),
    throttle_per_minute: text("throttle_per_minute", { inputmode: "numeric" }),
    repeat_every_days: text("repeat_every_days", { inputmode: "numeric", placeholder: "once" }),
    repeat_weekdays: text("repeat_weekdays", { placeholder: "mon,thu" }),
    local_time_of_day: text("local_time_of_day", { type: "time" }),
    quiet_from: text("quiet_from", { type: "time" }),
    quiet_to: text("quiet_to", { type: "time" }),
    collapse_id: text("collapse_id", { maxlength: 64 }),
    thread_id: text("thread_id"),
    topic: text("topic"),
    ios_category: text("ios_category", { maxlength: 256 }),
    track_delivery: checkbox("Track delivery (the extension reports it)", "track_delivery", true),
    track_open: checkbox("Track opens", "track_open", true),
    ignore_frequency_cap: checkbox("Ignore the frequency cap (a receipt, a reset)", "ignore_frequency_cap", false),
    at_usual_open_time: checkbox("At each person's usual open time", "at_usual_open_time", false),
    ab_test: checkbox("Send a second version to part of the audience", "ab_test", false),
    variant_title: text("variant_title"),
    variant_body: h("textarea", { name: "variant_body", rows: 2 }),
    variant_percent: text("variant_percent", { inputmode: "numeric", placeholder: "50" }),
    variant_sample: text("variant_sample", { inputmode: "numeric", placeholder: "100" }),
    variant_winner_after: text("variant_winner_after", { inputmode: "numeric", placeholder: "you pick" }),
    variant_winner_by: select("variant_winner_by", [["opens", "opens per device"], ["conversions", "conversions per device (opens a goal followed)"]]),
    variant_winner_goal: text("variant_winner_goal", { placeholder: "purchase" }),
    control_percent: text("control_percent", { inputmode: "numeric", placeholder: "none" }),
    conversion_goal: text("conversion_goal", { maxlength: 256, placeholder: "purchase" }),
    conversion_window_hours: text("conversion_window_hours", { inputmode: "numeric", placeholder: "72" }),
    data: h("textarea", { name: "data", class: "code", rows: 3 }),
    localizations: h("textarea", { name: "localizations", class: "code", rows: 3 }),
    trigger_event: text("trigger_event", { maxlength: 256, placeholder: "cart_abandoned", list: "trigger-events" }),
    trigger_delay: text("trigger_delay", { inputmode: "numeric", placeholder: "0" }),
    trigger_reentry: text("trigger_reentry", { inputmode: "numeric", placeholder: "once" }),
    trigger_cancel: text("trigger_cancel", { maxlength: 256, placeholder: "purchase" }),
    trigger_tag: text("trigger_tag", { maxlength: 128, placeholder: "plan" }),
    trigger_tag_value: text("trigger_tag_value", { maxlength: 1024, placeholder: "any value" }),
    trigger_field: text("trigger_field", { maxlength: 64, placeholder: "plan" }),
    trigger_field_value: text("trigger_field_value", { maxlength: 1024, placeholder: "any value" }),
    trigger_campaign: text("trigger_campaign", { inputmode: "numeric", maxlength: 19, placeholder: "12" }),
    trigger_button: text("trigger_button", { maxlength: 64, placeholder: "any button" }),
    audience_type: select("audience_type", [["resource", "every subscriber of a resource"], ["segment", "a saved segment"], ["profile", "one profile"], ["profiles", "a list of profiles"], ["token", "one device (push token)"]]),
    segment_id: select("segment_id", [["", "Loading segments…"]]),
    segmentNote: h("p", { class: "muted", role: "status" }),
    segments: new Map(),
    resource_id: select("resource_id", resources.map((r) => [String(r.id), `${r.name} (#${r.id})`])),
    categoryBoxes: h("div", { class: "row", role: "group", "aria-labelledby": "cats-label" }),
    tags: h("textarea", { name: "tags", rows: 2 }),
    fields: h("textarea", { name: "fields", class: "code", rows: 2 }),
    profile_id: text("profile_id"),
    profile_ids: h("textarea", { name: "profile_ids", rows: 3 }),
    provider: select("provider", ["ios-apns", "ios-firebase", "ios-huawei"].map((p) => [p, p])),
    token: text("token"),
  };
}

async function loadCategories(c) {
  const id = c.resource_id.value;
  const chosen = c.category.value;
  clear(c.categoryBoxes);
  c.category.replaceChildren(h("option", { value: "", text: "none" }));
  if (!id) return;
  try {
    const categories = await api("GET", `/resources/${encodeURIComponent(id)}/categories`);
    for (const category of categories) {
      c.category.append(h("option", { value: category.name, text: category.title ? `${category.title} (${category.name})` : category.name }));
      c.categoryBoxes.append(checkbox(category.title || category.name, `cat_${category.name}`, false).node);
    }
    c.category.value = chosen;
    if (!categories.length) c.categoryBoxes.append(h("span", { class: "muted", text: "This resource has no categories (Settings adds them)." }));
  } catch (error) {
    if (error.status !== 401) c.categoryBoxes.append(h("span", { class: "error", text: error.reason }));
  }
}

// The saved segments the session may send to (a project key's: its project's), newest first.
async function loadSegments(c) {
  try {
    const segments = await api("GET", "/segments");
    segments.sort((a, b) => b.id - a.id);
    c.segments = new Map(segments.map((s) => [s.id, s]));
    c.segment_id.replaceChildren(
      h("option", { value: "", text: segments.length ? "Pick a segment" : "No saved segment yet" }),
      ...segments.map((s) => h("option", { value: String(s.id), text: `${s.name} (#${s.id}, ${s.resource_id ? `resource #${s.resource_id}` : "every resource"})` })),
    );
    if (segments.length) c.segmentNote.replaceChildren();
    else c.segmentNote.replaceChildren("No segment is saved yet: ", h("a", { href: "#/segments", text: "build one on the Segments page" }), ".");
  } catch (error) {
    c.segment_id.replaceChildren(h("option", { value: "", text: "Segments could not be loaded" }));
    if (error.status !== 401) c.segmentNote.textContent = error.reason;
  }
}

function restoreSegment(form, c) {
  const values = JSON.parse(form.dataset.draft || "{}");
  if (values.segment_id && c.segments.has(Number(values.segment_id))) c.segment_id.value = values.segment_id;
}

function optional(value) {
  const text = value.trim();
  return text === "" ? undefined : text;
}

function integer(control, name, min, max, errors) {
  const text = control.value.trim();
  if (text === "") return undefined;
  if (!/^-?\d+$/.test(text) || Number(text) < min || Number(text) > max) {
    errors.push([control, `${name} must be a whole number from ${min} to ${max}.`]);
    return undefined;
  }
  return Number(text);
}

function fraction(control, name, errors) {
  const text = control.value.trim();
  if (text === "") return undefined;
  const value = Number(text);
  if (!/^\d*\.?\d+$/.test(text) || value < 0 || value > 1) {
    errors.push([control, `${name} must be a number from 0 to 1, like 0.5.`]);
    return undefined;
  }
  return value;
}

function jsonObject(control, name, errors) {
  const text = control.value.trim();
  if (text === "") return undefined;
  try {
    const value = JSON.parse(text);
    if (value && typeof value === "object" && !Array.isArray(value)) return value;
  } catch {
    // reported below
  }
  errors.push([control, `${name} must be a JSON object, like {"key": "value"}.`]);
  return undefined;
}

function url(control, name, errors, httpsOnly) {
  const text = control.value.trim();
  if (text === "") return undefined;
  try {
    const parsed = new URL(text);
    if (httpsOnly && parsed.protocol !== "https:") errors.push([control, `${name} must be an https URL.`]);
  } catch {
    errors.push([control, `${name} must be an absolute URL (scheme://…).`]);
  }
  return text;
}

/** The request from the form, or null after marking every field in error. */
export function build(c) {
  const errors = [];
  const request = {
    title: optional(c.title.value),
    subtitle: optional(c.subtitle.value),
    body: optional(c.body.value),
    media_url: url(c.media_url, "The media URL", errors, true),
    click_url: url(c.click_url, "The click URL", errors, false),
    category: optional(c.category.value),
    badge: integer(c.badge, "Badge", 0, 99999, errors),
    sound: optional(c.sound.value),
    interruption_level: optional(c.interruption_level.value),
    relevance_score: fraction(c.relevance_score, "The relevance score", errors),
    thread_id: optional(c.thread_id.value),
    priority: c.priority.value ? Number(c.priority.value) : undefined,
    time_to_live: integer(c.time_to_live, "Time to live", 0, 31536000, errors),
    send_at: sendTime(c.send_at, errors),
    throttle_per_minute: integer(c.throttle_per_minute, "Throttle", 1, 1000000, errors),
    local_time_of_day: optional(c.local_time_of_day.value),
    quiet_hours: quietHours(c, errors),
    collapse_id: optional(c.collapse_id.value),
    push_type: c.push_type.value,
    environment: c.environment.value,
    topic: optional(c.topic.value),
    ios_category: optional(c.ios_category.value),
    track_delivery: c.track_delivery.box.checked,
    track_open: c.track_open.box.checked,
    ignore_frequency_cap: c.ignore_frequency_cap.box.checked || undefined,
    at_usual_open_time: c.at_usual_open_time.box.checked || undefined,
    data: jsonObject(c.data, "Custom data", errors),
    localizations: jsonObject(c.localizations, "Texts in other languages", errors),
  };
  request.repeat = repeat(c, errors);
  request.trigger = trigger(c, errors);
  const buttons = [];
  c.buttons.forEach((b) => {
    const id = b.id.value.trim();
    const title = b.title.value.trim();
    if (!id && !title && !b.url.value.trim()) return;
    if (!id) errors.push([b.id, "A button needs an id (letters, digits, _ or -)."]);
    if (!title) errors.push([b.title, "A button needs a title."]);
    const button = { id, title, action: b.action.value };
    if (b.action.value === "url") {
      if (!b.url.value.trim()) errors.push([b.url, "Action “open the URL” needs a URL."]);
      button.url = url(b.url, "The button's URL", errors, false);
    }
    buttons.push(button);
  });
  if (buttons.length) request.buttons = buttons;
  if (request.at_usual_open_time && (request.throttle_per_minute || request.local_time_of_day || request.quiet_hours)) {
    // The check box has no place for an error: it goes on the timing it clashes with.
    const clash = request.throttle_per_minute ? c.throttle_per_minute : request.local_time_of_day ? c.local_time_of_day : c.quiet_from;
    errors.push([clash, "Not with “At each person's usual open time”, which picks each person's time itself."]);
  }
  if (request.push_type === "alert" && !request.title && !request.body) {
    errors.push([c.body, "An alert needs a title or a body."]);
  }
  if (c.ab_test.box.checked) {
    request.variants = variants(c, request, errors);
    request.test_audience_percent = integer(c.variant_sample, "The test's share", 1, 99, errors);
    request.winner_after_minutes = integer(c.variant_winner_after, "The minutes before the winner is sent", 1, 43200, errors);
    if (request.winner_after_minutes !== undefined && request.test_audience_percent === undefined && !errors.some(([control]) => control === c.variant_sample)) {
      errors.push([c.variant_winner_after, "The server sends a winner only to the rest of a test on part of the audience: give the test's share too."]);
    }
    const goal = c.variant_winner_goal.value.trim();
    if (request.winner_after_minutes !== undefined && c.variant_winner_by.value === "conversions") {
      request.winner_by = "conversions";
      if (goal) request.winner_goal = goal;
    } else if (goal) {
      errors.push([c.variant_winner_goal, "A goal picks the winner by its conversions: choose conversions, and a time to send the winner."]);
    }
  }
  request.control_percent = integer(c.control_percent, "The share held out", 1, 50, errors);
  request.conversion_window_hours = integer(c.conversion_window_hours, "The hours a conversion counts", 1, 720, errors);
  const conversionGoal = c.conversion_goal.value.trim();
  if (conversionGoal) request.conversion_goal = conversionGoal;
  if (request.control_percent !== undefined && !conversionGoal) {
    errors.push([c.conversion_goal, "A control group needs the goal whose conversions it compares, e.g. purchase."]);
  } else if (c.control_percent.value.trim() === "" && (conversionGoal || request.conversion_window_hours !== undefined)) {
    errors.push([c.control_percent, "A conversion goal and its hours go with a share held out: give the share, or clear them."]);
  }
  request.audience = audience(c, errors);
  for (const [control, message] of errors) fieldError(control, message);
  if (errors.length) {
    errors[0][0].focus();
    announce(`${errors.length} field${errors.length > 1 ? "s need" : " needs"} attention`);
    return null;
  }
  return JSON.parse(JSON.stringify(request));
}

function audience(c, errors) {
  const type = c.audience_type.value;
  if (type === "resource") {
    if (!c.resource_id.value) errors.push([c.resource_id, "Pick a resource (Settings creates one)."]);
    const categories = [...c.categoryBoxes.querySelectorAll("input:checked")].map((box) => box.name.slice(4));
    const tags = {};
    for (const line of c.tags.value.split("\n").map((l) => l.trim()).filter(Boolean)) {
      const equals = line.indexOf("=");
      if (equals === 0) errors.push([c.tags, `“${line}” has no tag name before =.`]);
      else if (equals < 0) tags[line] = null;
      else tags[line.slice(0, equals).trim()] = line.slice(equals + 1).trim();
    }
    return {
      type,
      resource_id: Number(c.resource_id.value),
      categories: categories.length ? categories : undefined,
      tags: Object.keys(tags).length ? tags : undefined,
      fields: jsonObject(c.fields, "Custom fields", errors),
    };
  }
  if (type === "segment") {
    if (!c.segment_id.value) errors.push([c.segment_id, "Pick a saved segment (the Segments page saves them)."]);
    return { type, segment_id: Number(c.segment_id.value) };
  }
  if (type === "profile") {
    if (!c.profile_id.value.trim()) errors.push([c.profile_id, "Type the profile's id (the Audience page finds it)."]);
    return { type, profile_id: c.profile_id.value.trim() };
  }
  if (type === "profiles") {
    const ids = c.profile_ids.value.split(/[\s,]+/).filter(Boolean);
    if (!ids.length) errors.push([c.profile_ids, "Type at least one profile id."]);
    if (ids.length > 1000) errors.push([c.profile_ids, "At most 1,000 profile ids."]);
    return { type, profile_ids: ids };
  }
  if (!c.token.value.trim()) errors.push([c.token, "Type the device's push token."]);
  return { type, provider: c.provider.value, token: c.token.value.trim() };
}

function previewContent(c) {
  return {
    silent: c.push_type.value === "background",
    title: c.title.value.trim(),
    subtitle: c.subtitle.value.trim(),
    body: c.body.value.trim(),
    media: c.media_url.value.trim(),
    buttons: c.buttons.map((b) => b.title.value.trim()).filter(Boolean),
  };
}

function snapshot(form) {
  const values = {};
  for (const control of form.querySelectorAll("input, select, textarea")) {
    if (!control.name) continue;
    values[control.name] = control.type === "checkbox" ? control.checked : control.value;
  }
  return values;
}

function restore(form, c) {
  let values = null;
  try {
    values = JSON.parse(sessionStorage.getItem(DRAFT) || "null");
  } catch {
    values = null;
  }
  if (!values) return;
  for (const control of form.querySelectorAll("input, select, textarea")) {
    if (!(control.name in values)) continue;
    if (control.type === "checkbox") control.checked = Boolean(values[control.name]);
    else control.value = values[control.name];
  }
  form.dataset.draft = JSON.stringify(values);
  c.title.dispatchEvent(new Event("input", { bubbles: true }));
}

function restoreCategories(form) {
  const values = JSON.parse(form.dataset.draft || "{}");
  for (const box of form.querySelectorAll("input[name^='cat_']")) box.checked = Boolean(values[box.name]);
  if (values.category !== undefined) form.querySelector("select[name='category']").value = values.category;
}

function testSend(c, devices) {
  const area = h("div", { class: "note" });
  if (!devices.length) {
    area.append(h("p", { text: "No test devices yet: mark a profile or one of its subscriptions as a test device on the Audience page (or a device with tern subscriptions test) to send test pushes." }));
    return area;
  }
  const count = new Set(devices.map((d) => `${d.provider} ${d.subscription_id}`)).size;
  const result = h("p", { role: "status" });
  const button = h("button", { type: "button", class: "secondary", text: `Send a test to ${number(count)} test device${count === 1 ? "" : "s"}` });
  button.addEventListener("click", async () => {
    const form = area.nextElementSibling;
    clearErrors(form);
    const request = build(c);
    if (!request) return;
    // The server sends a test send to the project's test devices only (in the audience's resource).
    request.test = true;
    button.disabled = true;
    try {
      const sent = await api("POST", "/messages", request, { "Idempotency-Key": crypto.randomUUID() });
      result.replaceChildren(`Test sent to ${number(sent.counts.total)} device${sent.counts.total === 1 ? "" : "s"}: `, h("a", { href: `#/message/${encodeURIComponent(sent.id)}`, text: sent.id }));
    } catch (error) {
      if (error.status !== 401) showApiError(form, error);
    } finally {
      button.disabled = false;
    }
  });
  area.append(button, result);
  return area;
}

// Version A (the message's content) and version B (its own title or body), with B's share.
function variants(c, request, errors) {
  if (request.push_type !== "alert") errors.push([c.variant_title, "An A/B test is for alert pushes: a background push shows nothing to compare."]);
  const title = optional(c.variant_title.value);
  const body = optional(c.variant_body.value);
  if (!title && !body) errors.push([c.variant_title, "Give version B a title or a body (the rest is the message's), or turn the A/B test off."]);
  const percent = integer(c.variant_percent, "Version B's share", 1, 99, errors) ?? 50;
  return [{ percent: 100 - percent }, { percent, title, body }];
}

// Every N days, or on days of the week (mon,thu), or neither: the request's repeat.
function repeat(c, errors) {
  const every = integer(c.repeat_every_days, "Repeat every", 1, 90, errors);
  const days = c.repeat_weekdays.value.toLowerCase().split(/[\s,]+/).filter(Boolean);
  if (!days.length) return every ? { every_days: every } : undefined;
  const wrong = days.find((day) => !Object.keys(WEEKDAYS).includes(day));
  if (wrong) errors.push([c.repeat_weekdays, `“${wrong}” is not a day: give mon, tue, wed, thu, fri, sat or sun, separated by commas.`]);
  else if (new Set(days).size < days.length) errors.push([c.repeat_weekdays, "Name each day once."]);
  if (c.repeat_every_days.value.trim()) errors.push([c.repeat_weekdays, "Repeat every so many days or on these days, not both: empty one of them."]);
  return { weekdays: days };
}

// The event the server notes itself when a device subscribes: a welcome message.
const SUBSCRIBED = "$subscribed";
// The event the server notes itself when a device's tag takes a new value.
const TAG_SET = "$tag_set";
// The event the server notes itself when one of a person's profile fields takes a new value.
const FIELD_SET = "$field_set";
// The events the server notes itself when a person taps a button of an in-app campaign, or sees it.
const INAPP_CLICKED = "$inapp_clicked";
const INAPP_SHOWN = "$inapp_shown";

// A field value as typed: JSON when it is a string, number or boolean (3, true, "3"), else the text.
function fieldValue(typed) {
  if (typed === "") return undefined;
  try {
    const value = JSON.parse(typed);
    if (["string", "number", "boolean"].includes(typeof value)) return value;
  } catch {
    // Not JSON: the text itself.
  }
  return typed;
}

// A field value as the box shows it, so that it reads back as the same value.
function fieldValueText(value) {
  return typeof value === "string" && fieldValue(value) !== value ? JSON.stringify(value) : valueText(value);
}

// The goal that sends the message, its delay, re-entry time and cancelling goal; nothing without a goal.
function trigger(c, errors) {
  const eventName = optional(c.trigger_event.value);
  const delay = integer(c.trigger_delay, "The delay", 0, 43200, errors);
  const reentry = integer(c.trigger_reentry, "Again after", 1, 525600, errors);
  const cancel = optional(c.trigger_cancel.value);
  // The events that name what must change, each with its own pair of boxes: the first box goes
  // with `events`, the second with `valueEvents`.
  const pairs = [
    { events: [TAG_SET], valueEvents: [TAG_SET], need: "the tag whose new value sends the message (e.g. plan)", noun: "tag", valueNoun: "tag value", name: c.trigger_tag, named: optional(c.trigger_tag.value), value: c.trigger_tag_value, valued: c.trigger_tag_value.value === "" ? undefined : c.trigger_tag_value.value },
    { events: [FIELD_SET], valueEvents: [FIELD_SET], need: "the profile field whose new value sends the message (e.g. plan)", noun: "profile field", valueNoun: "profile field value", name: c.trigger_field, named: optional(c.trigger_field.value), value: c.trigger_field_value, valued: fieldValue(c.trigger_field_value.value) },
    { events: [INAPP_CLICKED, INAPP_SHOWN], valueEvents: [INAPP_CLICKED], need: "the in-app campaign whose event sends the message (its id, e.g. 12)", noun: "campaign", valueNoun: "button", name: c.trigger_campaign, named: optional(c.trigger_campaign.value), value: c.trigger_button, valued: optional(c.trigger_button.value) },
  ];
  if (!eventName) {
    const stray = [[c.trigger_delay, delay], [c.trigger_reentry, reentry], [c.trigger_cancel, cancel], ...pairs.flatMap((p) => [[p.name, p.named], [p.value, p.valued]])].find(([, value]) => value !== undefined);
    if (stray) errors.push([stray[0], "This goes with a goal: give the goal that sends the message, or leave it empty."]);
    return undefined;
  }
  if (eventName.startsWith("$") && ![SUBSCRIBED, TAG_SET, FIELD_SET, INAPP_CLICKED, INAPP_SHOWN].includes(eventName)) errors.push([c.trigger_event, `Names starting with $ are events the server notes itself: ${SUBSCRIBED} (when a device subscribes), ${TAG_SET} (when a device's tag is set), ${FIELD_SET} (when a profile field is set), ${INAPP_CLICKED} and ${INAPP_SHOWN} (when an in-app message's button is tapped, or it is shown) are the ones there are. Name a goal without $.`]);
  for (const p of pairs) {
    const events = p.events.join(" or ");
    const valueEvents = p.valueEvents.join(" or ");
    if (p.events.includes(eventName) && !p.named) errors.push([p.name, `${eventName} needs ${p.need}.`]);
    if (!p.events.includes(eventName) && p.named !== undefined) errors.push([p.name, `A ${p.noun} goes with ${events} only: empty it, or send on ${events}.`]);
    else if (!p.valueEvents.includes(eventName) && p.valued !== undefined) errors.push([p.value, `A ${p.valueNoun} goes with ${valueEvents} only: empty it, or send on ${valueEvents}.`]);
  }
  if (cancel && cancel.startsWith("$")) errors.push([c.trigger_cancel, "The cancelling goal is one the app posts (e.g. purchase): not a name starting with $."]);
  else if (cancel && cancel === eventName) errors.push([c.trigger_cancel, "The cancelling goal must differ from the goal that sends the message."]);
  const [tag, field, inApp] = pairs;
  return { event_name: eventName, delay_minutes: delay, cancel_event_name: cancel, reentry_after_minutes: reentry, tag: tag.named, tag_value: tag.valued, field: field.named, field_value: field.valued, campaign_id: inApp.named, button: inApp.valued };
}

// Both ends of the quiet hours, or neither.
function quietHours(c, errors) {
  const from = c.quiet_from.value;
  const to = c.quiet_to.value;
  if (!from && !to) return undefined;
  if (!from || !to) errors.push([from ? c.quiet_to : c.quiet_from, "Quiet hours need both a start and an end."]);
  return from && to ? { from, to } : undefined;
}

// The chosen time in this browser's zone as ms since 1970; nothing when empty (send now).
function sendTime(control, errors) {
  if (!control.value) return undefined;
  const at = new Date(control.value).getTime();
  if (Number.isNaN(at)) errors.push([control, "Send at needs a date and a time."]);
  return Number.isNaN(at) ? undefined : at;
}

/** How long `devices` deliveries take at `perMinute`, in words: "under a minute", "about 25 minutes", "about 3.5 hours". */
function spread(devices, perMinute) {
  const minutes = (devices - 1) / perMinute;
  if (minutes < 1) return "under a minute";
  if (minutes < 90) return `about ${Math.round(minutes)} minute${Math.round(minutes) === 1 ? "" : "s"}`;
  return `about ${Math.round(minutes / 6) / 10} hours`;
}

// A wait in minutes as a person says it: "90 minutes", "4 hours", "2 days".
function minutes(count) {
  if (count < 120) return `${count} minute${count === 1 ? "" : "s"}`;
  if (count < 2880) return `${Math.round(count / 6) / 10} hours`;
  return `${Math.round(count / 144) / 10} days`;
}

function confirmDialog() {
  const text = h("p", { id: "confirm-text" });
  const send = h("button", { type: "button", id: "confirm-send", text: "Send now" });
  const cancel = h("button", { type: "button", class: "secondary", text: "Cancel" });
  const node = h("dialog", { "aria-labelledby": "confirm-title", "aria-describedby": "confirm-text" }, h("h2", { id: "confirm-title", text: "Send this push?" }), text, h("div", { class: "actions" }, send, cancel));
  let answer = () => {};
  send.addEventListener("click", () => {
    node.close();
    answer(true);
  });
  cancel.addEventListener("click", () => node.close());
  node.addEventListener("close", () => answer(false));
  return {
    node,
    // What the send does, in words, from the request about to go: its time, its pace, each device's
    // time, the A/B test, the frequency cap.
    ask(devices, segment, request, cap) {
      const { send_at: sendAt, throttle_per_minute: perMinute, local_time_of_day: localTime, quiet_hours: quiet, variants: versions, test_audience_percent: sample, winner_after_minutes: winnerAfter } = request;
      const later = sendAt && sendAt > Date.now();
      const count = `${number(devices)} device${devices === 1 ? "" : "s"}`;
      const goal = request.trigger;
      let goes = goal
        ? `It stands: each person of the audience (${count} now) ${triggerWho(goal)} gets it ${goal.delay_minutes ? `${minutes(goal.delay_minutes)} after it` : "at once"}${goal.cancel_event_name ? `, unless they reach ${goal.cancel_event_name} first` : ""}; ${goal.reentry_after_minutes ? `again when they reach it ${minutes(goal.reentry_after_minutes)} or more after it last went to them` : "once a person"}, until the message is stopped.`
        : later
          ? `It will be sent ${time(sendAt)} to the audience as it is then (${count} now).`
          : devices === 0
            ? "The audience has no device right now: nothing would be sent."
            : `It goes to ${count} now.`;
      // On days of the week, the first copy waits for the first of them; with a local time, they are each
      // device's own days, and the copy for one is made at 10:00 UTC the day before (midnight at UTC+14).
      const localDays = request.repeat && request.repeat.weekdays && localTime;
      if (localDays) goes = `A copy goes to the audience as it is then (${count} now) ${rhythm(request.repeat, localTime)}, from the first of those days whose copy, made at 10:00 UTC the day before, is not before ${later ? time(sendAt) : "now"}, until the message is stopped.`;
      else if (request.repeat && request.repeat.weekdays) goes = `A copy goes to the audience as it is then (${count} now) ${rhythm(request.repeat)}, at the time of day it is ${later ? `at ${time(sendAt)}` : "now"}, from the first of those days on, until the message is stopped.`;
      else if (request.repeat) goes += ` Then a copy goes to the audience as it is then ${rhythm(request.repeat)}, until the message is stopped.`;
      if (perMinute && devices > 0) goes += ` At ${number(perMinute)} a minute, sending takes ${spread(devices, perMinute)}.`;
      if (localTime && devices > 0 && !localDays) goes += ` Each device gets it at ${localTime} on its own clock, within a day.`;
      if (quiet && devices > 0) goes += ` A device whose clock is between ${quiet.from} and ${quiet.to} gets it at ${quiet.to}.`;
      if (request.at_usual_open_time && devices > 0) goes += " Each device gets it at the hour its person usually opens pushes, within a day; people with no opens yet at once.";
      if (versions && devices > 0) {
        goes += sample
          ? ` The test goes to ${sample}% of the devices (version A to ${versions[0].percent}% of them, version B to ${versions[1].percent}%); the other ${100 - sample}% wait for the winner, ${winnerAfter ? `which the server sends ${minutes(winnerAfter)} after the send (the version with the most opens per device).` : "sent from the message's page."}`
          : ` Version A goes to ${versions[0].percent}% of the devices, version B to ${versions[1].percent}%.`;
      }
      if (request.control_percent && devices > 0) goes += ` ${request.control_percent}% of the people are held out as a control group and get nothing; the message's page compares how many of each group reach ${request.conversion_goal} within ${request.conversion_window_hours || 72} hours.`;
      if (request.interruption_level === "time-sensitive") goes += " It breaks through Focus (time sensitive: the app needs the Time Sensitive Notifications capability).";
      if (request.interruption_level === "critical") goes += " It sounds through the mute switch and Focus (critical: the app needs Apple's critical alerts entitlement).";
      if (cap && devices > 0) goes += ` People who already had ${cap.pushes} message${cap.pushes === 1 ? "" : "s"} in the last ${cap.hours} hour${cap.hours === 1 ? "" : "s"} are skipped (the project's frequency cap).`;
      const matches = segment && (segment.count === 0 ? `Segment “${segment.name}” matches no push subscription now (its preview): the server would refuse the send.` : `Segment “${segment.name}” matches ${number(segment.count)} push subscription${segment.count === 1 ? "" : "s"} now (its preview).`);
      text.textContent = matches ? `${matches} ${goes}` : goes;
      send.disabled = (devices === 0 && !later && !goal) || Boolean(segment && segment.count === 0);
      send.textContent = later ? "Schedule" : goal ? "Start" : "Send now";
      return new Promise((resolve) => {
        answer = (value) => {
          answer = () => {};
          resolve(value);
        };
        node.showModal();
        (send.disabled ? cancel : send).focus();
      });
    },
  };
}

/**
 * "Start from a template": the picked template's content fills the form's content fields (a field
 * it has not is emptied); the audience, timing and delivery stay as they are. The page sends the
 * filled content, so later changes to the template do not reach the message.
 */
function templateStart(c, form, projects) {
  const pick = select("", [["", "Loading templates…"]], { id: "template-pick", "aria-label": "Template" });
  const use = h("button", { type: "button", class: "secondary", id: "use-template", text: "Fill the form", disabled: true });
  const note = h("p", { class: "hint", role: "status" });
  let templates = [];
  allTemplates(null)
    .then((found) => {
      templates = found;
      const label = (t) => `${t.name} (#${t.id}${projects.length > 1 ? `, project ${t.project_id}` : ""})`;
      pick.replaceChildren(h("option", { value: "", text: found.length ? "Pick a template" : "No template yet (the Templates page makes them)" }), ...found.map((t) => h("option", { value: String(t.id), text: label(t) })));
      use.disabled = !found.length;
    })
    .catch((error) => {
      if (error.status !== 401) pick.replaceChildren(h("option", { value: "", text: `Templates could not be read: ${error.reason}` }));
    });
  use.addEventListener("click", () => {
    const t = templates.find((x) => String(x.id) === pick.value);
    if (!t) return;
    const text = (value) => (value === undefined || value === null ? "" : String(value));
    // A category the picked resource does not list still goes: the server then names what to do.
    if (t.category && ![...c.category.options].some((option) => option.value === t.category)) c.category.append(h("option", { value: t.category, text: t.category }));
    for (const key of ["title", "subtitle", "body", "media_url", "click_url", "category", "badge", "sound", "thread_id", "ios_category", "interruption_level", "relevance_score"]) c[key].value = text(t[key]);
    c.data.value = t.data ? JSON.stringify(t.data) : "";
    c.localizations.value = t.localizations ? JSON.stringify(t.localizations) : "";
    c.buttons.forEach((b, index) => {
      const button = (t.buttons || [])[index];
      b.id.value = button ? button.id : "";
      b.title.value = button ? button.title : "";
      b.action.value = button ? button.action : "open";
      b.url.value = button ? text(button.url) : "";
    });
    const missing = ["title_loc_key", "subtitle_loc_key", "body_loc_key", "target_content_id", "filter_criteria"].filter((key) => t[key] !== undefined);
    note.textContent = `Filled from “${t.name}”: change anything before sending.` + (missing.length ? ` This page has no place for its ${missing.join(", ")}: tern send --template ${t.id} sends them.` : "");
    form.dispatchEvent(new Event("input", { bubbles: true }));
    announce(`Filled from template ${t.name}`);
  });
  return h("div", { class: "field template-start" }, h("label", { for: "template-pick", text: "Start from a template" }), h("div", { class: "row" }, pick, use), note);
}
