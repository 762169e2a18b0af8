// Messages: the newest first, with status and progress, refreshing while the page is visible; a search box
// and state and kind selects narrow the list (kept in the address), "Older messages" pages on.
import { api } from "./api.js";
import { h, clear, errorBox, input, number, percent, select, table, time, whileVisible } from "./ui.js";

export function render(main, _args, params = new URLSearchParams()) {
  main.append(h("h1", { text: "Messages" }));
  const search = input("q", { type: "search", value: params.get("q") || "", maxlength: 100, placeholder: "Title, body or id", "aria-label": "Search messages" });
  const state = select("state", STATES, { "aria-label": "State" });
  const kind = select("kind", KINDS, { "aria-label": "Kind" });
  state.value = STATES.some(([value]) => value === params.get("state")) ? params.get("state") : "";
  kind.value = KINDS.some(([value]) => value === params.get("kind")) ? params.get("kind") : "";
  const filters = h("form", { class: "actions", role: "search", onsubmit: (event) => event.preventDefault() }, search, state, kind);
  main.append(filters);
  const body = h("div", { class: "panel" }, h("p", { class: "muted", text: "Loading…" }));
  main.append(body);
  const more = h("button", { type: "button", class: "secondary", text: "Older messages" });
  // How many messages are shown: a refresh reads as many again, page by page (the API gives 200 at most a call).
  let shown = PAGE;
  let turn = 0;
  const query = () => {
    const q = new URLSearchParams();
    if (search.value.trim()) q.set("q", search.value.trim());
    if (state.value) q.set("state", state.value);
    if (kind.value) q.set("kind", kind.value);
    return q;
  };
  const read = async (before, limit) => {
    const q = query();
    q.set("limit", String(limit));
    if (before) q.set("before", before);
    return api("GET", `/messages?${q}`);
  };
  const load = async () => {
    const mine = ++turn;
    try {
      let list = [];
      let ended = false;
      while (list.length < shown) {
        const want = Math.min(200, shown - list.length);
        const page = await read(list.length ? list[list.length - 1].id : null, want);
        list = list.concat(page);
        if (page.length < want) {
          ended = true;
          break;
        }
      }
      if (mine !== turn) return;
      if (!list.length) {
        const filtered = [...query().keys()].length > 0;
        clear(body).append(filtered ? h("p", { class: "muted", text: "No message matches." }) : h("p", { class: "muted" }, "No messages yet. ", h("a", { href: "#/compose", text: "Compose one" }), "."));
        return;
      }
      more.hidden = ended;
      clear(body).append(view(list), h("div", { class: "actions" }, more));
    } catch (error) {
      if (mine === turn && error.status !== 401) clear(body).append(errorBox(error, load));
    }
  };
  more.addEventListener("click", () => {
    shown += PAGE;
    load();
  });
  // A new filter starts from the newest page and goes in the address (replaced: no hashchange, no new history entry).
  let typing = null;
  const refilter = () => {
    clearTimeout(typing);
    shown = PAGE;
    const q = query().toString();
    history.replaceState(null, "", `#/messages${q ? `?${q}` : ""}`);
    load();
  };
  search.addEventListener("input", () => {
    clearTimeout(typing);
    typing = setTimeout(refilter, 300);
  });
  state.addEventListener("change", refilter);
  kind.addEventListener("change", refilter);
  load();
  const stop = whileVisible(5, load);
  return () => {
    clearTimeout(typing);
    if (stop) stop();
  };
}

const PAGE = 50;
const STATES = [
  ["", "Any state"],
  ["scheduled", "Scheduled"],
  ["sending", "Sending"],
  ["done", "Done"],
  ["cancelled", "Cancelled"],
  ["standing", "Standing (triggered, recurring)"],
];
const KINDS = [
  ["", "Any kind"],
  ["one_off", "One-off"],
  ["trigger", "Triggered"],
  ["repeat", "Recurring"],
  ["live_activity", "Live Activity"],
  ["ab_test", "A/B test"],
];

export function statusBadge(message) {
  if (message.cancelled_at) return h("span", { class: "badge warn", text: message.done ? "cancelled" : "stopping" });
  if (message.send_at && !message.fan_out_done) return h("span", { class: "badge", text: `scheduled for ${time(message.send_at)}` });
  if (message.done) {
    const failed = message.counts.failed + message.counts.invalid_token;
    return h("span", { class: `badge ${failed ? "warn" : "good"}`, text: failed ? "done, with failures" : "done" });
  }
  return h("span", { class: "badge", text: message.fan_out_done ? "sending" : "preparing" });
}

export function progress(message) {
  const counts = message.counts;
  const finished = counts.sent + counts.failed + counts.invalid_token;
  const share = message.done && counts.total === 0 ? 100 : percent(finished, counts.total);
  const label = `${share} % sent`;
  // A cancelled message's unsent deliveries count as finished: say how many went before it stopped.
  const detail = message.cancelled_at ? `${number(counts.sent)} of ${number(counts.total)} sent before it was cancelled` : `${label} (${number(counts.sent)} of ${number(counts.total)})`;
  return h("div", {}, h("progress", { max: 100, value: share, "aria-label": label }), h("span", { class: "muted", text: detail }));
}

function view(list) {
  return table(
    "Messages",
    ["Created", "Message", "Audience", "Status", "Progress"],
    list.map((m) => [
      time(m.created_at),
      h("div", {}, h("a", { href: `#/message/${encodeURIComponent(m.id)}`, text: m.request.title || m.request.body || liveActivityName(m.request) || m.id }), h("div", { class: "muted break", text: [m.id, timing(m.request)].filter(Boolean).join(" · ") })),
      m.request.audience.type,
      statusBadge(m),
      progress(m),
    ]),
  );
}

// A Live Activity message without an alert, named by what it does: "Live Activity update of order-1001".
export function liveActivityName(r) {
  const live = r.live_activity;
  if (!live) return null;
  return live.event === "start" ? `Live Activity start of ${live.activity_type}` : `Live Activity ${live.event} of ${r.audience.activity_id}`;
}

/** The days repeat.weekdays names, in the week's order, with their names in words. */
export const WEEKDAYS = { mon: "Monday", tue: "Tuesday", wed: "Wednesday", thu: "Thursday", fri: "Friday", sat: "Saturday", sun: "Sunday" };

/**
 * A recurring message's rhythm in words: "every day", "every 7 days", "every Monday and Thursday (UTC)";
 * with a local time (`localTime`, "09:00"), the days are each device's own: "on each device's own Monday and
 * Thursday at 09:00".
 */
export function rhythm(repeat, localTime) {
  if (!repeat.weekdays) return repeat.every_days === 1 ? "every day" : `every ${number(repeat.every_days)} days`;
  const days = Object.keys(WEEKDAYS).filter((day) => repeat.weekdays.includes(day)).map((day) => WEEKDAYS[day]);
  const named = days.length > 1 ? `${days.slice(0, -1).join(", ")} and ${days[days.length - 1]}` : days[0];
  return localTime ? `on each device's own ${named} at ${localTime}` : `every ${named} (UTC)`;
}

// A profile field's value as a person reads it: a string as it is, any other value as JSON.
export function valueText(value) {
  return typeof value === "string" ? value : JSON.stringify(value);
}

// Who a triggered message goes to: "whose device subscribes", "who reaches the goal cart", …
export function triggerWho(t) {
  const becomes = (value, shown) => (value === undefined || value === null ? "takes a new value" : `is set to ${shown(value)}`);
  switch (t.event_name) {
    case "$subscribed":
      return "whose device subscribes";
    case "$tag_set":
      return `whose device's tag ${t.tag} ${becomes(t.tag_value, String)}`;
    case "$field_set":
      return `whose profile field ${t.field} ${becomes(t.field_value, valueText)}`;
    case "$inapp_clicked":
      return `who taps ${t.button ? `the button ${t.button} of` : "a button of"} in-app campaign ${t.campaign_id}`;
    case "$inapp_shown":
      return `who sees in-app campaign ${t.campaign_id}`;
    default:
      return `who reaches the goal ${t.event_name}`;
  }
}

// How a message's deliveries are spread, in a few words; nothing for one sent at once.
function timing(r) {
  if (r.trigger) return `${r.trigger.event_name === "$subscribed" ? "when a device subscribes" : r.trigger.event_name === "$tag_set" ? `when a device's tag ${r.trigger.tag} is set` : r.trigger.event_name === "$field_set" ? `when profile field ${r.trigger.field} is set` : r.trigger.event_name === "$inapp_clicked" ? `when in-app campaign ${r.trigger.campaign_id} is tapped` : r.trigger.event_name === "$inapp_shown" ? `when in-app campaign ${r.trigger.campaign_id} is shown` : `on the goal ${r.trigger.event_name}`}${r.trigger.reentry_after_minutes ? ", again later" : ""}`;
  if (r.repeat) return rhythm(r.repeat, r.local_time_of_day);
  if (r.throttle_per_minute) return `${number(r.throttle_per_minute)} a minute`;
  if (r.local_time_of_day) return `${r.local_time_of_day} on each device's clock`;
  return null;
}
