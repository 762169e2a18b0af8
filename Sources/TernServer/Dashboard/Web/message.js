// A message's page: what was sent, a live progress bar while sending, and its funnel
// (targeted → sent → delivered → opened, failures by reason, invalid tokens), refreshed every
// few seconds while the page is visible, for up to five minutes after sending finished. While it
// sends, a send key can stop it.
import { api, sessionRole } from "./api.js";
import { h, clear, errorBox, number, table, time, whileVisible, announce, secondClick } from "./ui.js";
import { funnelChart, lineChart } from "./charts.js";
import { statusBadge, progress, liveActivityName, rhythm, triggerWho } from "./messages.js";
import { duplicate, edit, retarget } from "./compose.js";

const WATCH_AFTER_DONE = 5 * 60 * 1000;
const TIMELINE_EVERY = 10 * 1000;

export function render(main, [id]) {
  main.append(h("p", {}, h("a", { href: "#/messages", text: "← Messages" })));
  const heading = h("h1", { text: "Message" });
  const body = h("div", {}, h("p", { class: "muted", text: "Loading…" }));
  const updated = h("p", { class: "hint", "aria-live": "off" });
  // Outside the part each refresh redraws, so that a confirmation waiting for its click stays.
  const role = sessionRole();
  const stopping = role === "read" ? null : stopControl(id, () => load());
  const winner = role === "read" ? null : winnerControl(id);
  const follow = retargetControl(id, role !== "read");
  main.append(heading, ...(stopping ? [stopping.element] : []), ...(winner ? [winner.element] : []), follow.element, body, updated);
  let doneAt = 0;
  let wasDone = false;
  // The timeline reads every delivery's outcome: fetched again at most every TIMELINE_EVERY ms.
  let timeline = null;
  let timelineAt = 0;
  let stop = () => {};
  const load = async () => {
    try {
      const path = `/messages/${encodeURIComponent(id || "")}`;
      const [message, stats] = await Promise.all([api("GET", path), api("GET", `${path}/stats`)]);
      // Removed by the server's retention (--delivery-retention-days): the page answers 410.
      const deliveries = stats.deliveries_removed_at ? null : await api("GET", `${path}/deliveries?limit=100`);
      if (Date.now() - timelineAt >= TIMELINE_EVERY) {
        timeline = await api("GET", `${path}/timeline`).catch((error) => ({ error }));
        timelineAt = Date.now();
      }
      heading.textContent = message.request.title || message.request.body || liveActivityName(message.request) || message.id;
      // A panel a message has no use for (the versions of one that is not an A/B test) is null: left out.
      clear(body).append(...view(message, stats, role !== "read", timeline).filter(Boolean), deliveryList(deliveries, stats));
      if (stopping) stopping.show(!message.done && !message.cancelled_at);
      if (winner) winner.show(message);
      follow.show(message, stats);
      updated.textContent = `Updated ${new Date().toLocaleTimeString()}${message.done ? "" : " · refreshing while sending"}`;
      if (message.done && !wasDone) announce("The message finished sending");
      wasDone = message.done;
      if (message.done && !doneAt) doneAt = Date.now();
      if (doneAt && Date.now() - doneAt > WATCH_AFTER_DONE) {
        stop();
        updated.textContent += " · stopped refreshing (reload to see newer opens)";
      }
    } catch (error) {
      if (error.status !== 401) clear(body).append(errorBox(error, load));
    }
  };
  load();
  stop = whileVisible(2, load);
  return () => stop();
}

// "Stop sending…", then a second click: the deliveries not sent yet are not sent
// (POST …/cancel). Shown while the message sends and was not stopped.
function stopControl(id, reload) {
  const control = secondClick({
    label: "Stop sending…",
    warning: "Deliveries not sent yet will not be sent. Pushes already sent cannot be called back.",
    confirm: "Stop for good",
    back: "Keep sending",
    act: async () => {
      await api("POST", `/messages/${encodeURIComponent(id || "")}/cancel`);
      element.hidden = true;
      announce("Sending stopped");
      reload();
    },
  });
  const element = h("section", { class: "panel", "aria-label": "Stop sending", hidden: true }, control.element);
  return {
    element,
    show(visible) {
      if (!visible) element.hidden = true;
      else if (element.hidden) {
        control.reset();
        element.hidden = false;
      }
    },
  };
}

// An A/B test of part of the audience: pick the version that goes to the devices it held back
// (POST …/winner), then a second click; the new message's page opens. Outside the part each refresh
// redraws, as the stop control is.
function winnerControl(id) {
  const choice = h("select", { name: "winner", "aria-label": "The winning version" });
  const control = secondClick({
    label: "Send the winner to the rest…",
    warning: "The chosen version goes, as a new message, to every device the test held back.",
    confirm: "Send it",
    back: "Not yet",
    act: async () => {
      const sent = await api("POST", `/messages/${encodeURIComponent(id || "")}/winner`, { variant: choice.value });
      announce("The winner is on its way");
      location.hash = `#/message/${encodeURIComponent(sent.id)}`;
    },
  });
  const intro = h("p", {});
  const element = h("section", { class: "panel", "aria-label": "Send the winner", hidden: true }, h("h2", { text: "Send the winner" }), intro, h("div", { class: "row" }, choice), control.element);
  return {
    element,
    show(message) {
      const r = message.request;
      const visible = Boolean(r.test_audience_percent && r.variants && !message.winner_message_id && !message.cancelled_at);
      if (!visible) {
        element.hidden = true;
        return;
      }
      if (element.hidden) {
        intro.textContent = message.winner_due_at
          ? `The test went to ${r.test_audience_percent}% of the audience; the other ${100 - r.test_audience_percent}% get the version with the most opens per device at ${time(message.winner_due_at)}, sent by the server, unless you pick one here first.`
          : `The test went to ${r.test_audience_percent}% of the audience; the other ${100 - r.test_audience_percent}% wait for the version picked here. Compare the versions' opens below first.`;
        choice.replaceChildren(...r.variants.map((v, index) => h("option", { value: "abcdefghij"[index], text: `Version ${"ABCDEFGHIJ"[index]}: ${v.title || r.title || v.body || r.body || ""}` })));
        control.reset();
        element.hidden = false;
      }
    },
  };
}

// "Retarget…": a follow-up to the people who did not open the message, or to those who did. Each
// choice's count is the preview of its engagement condition (POST …/audience/preview), scoped as
// the message was (its resource, or its project). Compose picks saved segments, not filters, so a
// choice saves the condition as a segment first (reusing one of the same name and filter) and opens
// Compose with it. A read key sees the counts only. Outside the part each refresh redraws; the
// counts are read once the message has sent something, and again on "Count again".
const RETARGET = [
  { op: "not_opened", label: "Did not open", name: "Did not open" },
  { op: "opened", label: "Opened", name: "Opened" },
];

function retargetControl(id, canCompose) {
  const note = h("p", { class: "hint", id: "retarget-note" });
  const choices = h("div", { class: "actions", id: "retarget-choices" });
  // The server's refusal, in words; the alert is made only when there is one.
  const error = h("div", {});
  const refuse = (words) => error.replaceChildren(...(words ? [h("p", { class: "error", role: "alert", id: "retarget-error", text: words })] : []));
  const again = h("button", { type: "button", class: "secondary", text: "Count again" });
  const element = h("section", { class: "panel", "aria-labelledby": "retarget-title", id: "retarget", hidden: true }, h("h2", { id: "retarget-title", text: "Retarget…" }), note, choices, error);
  let current = null;
  let counted = false;
  const scope = (message) => (message.resource_id ? { project_id: message.project_id, resource_id: message.resource_id } : { project_id: message.project_id });
  const count = async () => {
    const message = current;
    refuse("");
    choices.replaceChildren(h("p", { class: "muted", text: "Counting…" }));
    const answers = await Promise.all(RETARGET.map((choice) => api("POST", "/audience/preview", { ...scope(message), filter: { message: message.id, op: choice.op }, sample: 0 }).catch((failure) => ({ failure }))));
    const failed = answers.find((a) => a.failure);
    if (failed && failed.failure.status === 401) return;
    choices.replaceChildren(
      ...RETARGET.map((choice, index) => {
        const answer = answers[index];
        if (answer.failure) return null;
        const text = `${choice.label}: ${number(answer.count)} push subscription${answer.count === 1 ? "" : "s"}`;
        if (!canCompose) return h("span", { class: "retarget-count", "data-op": choice.op, text });
        const button = h("button", { type: "button", class: "secondary retarget-choice", "data-op": choice.op, text: `${text}…` });
        button.disabled = answer.count === 0;
        button.addEventListener("click", () => open(message, choice, button));
        return button;
      }),
      again,
    );
    if (failed) refuse(`The server refused the count: ${failed.failure.reason || failed.failure.message}`);
  };
  again.addEventListener("click", () => count());
  const open = async (message, choice, button) => {
    refuse("");
    button.disabled = true;
    try {
      const segment = await saveSegment(message, choice, scope(message));
      retarget(segment.id, `A follow-up to ${message.id} for the people who ${choice.op === "opened" ? "opened it" : "did not open it"}: the saved segment “${segment.name}” (#${segment.id}).`, message);
      location.hash = "#/compose";
    } catch (failure) {
      button.disabled = false;
      if (failure.status !== 401) refuse(`The segment could not be saved: ${failure.reason || failure.message}`);
    }
  };
  return {
    element,
    show(message, stats) {
      current = message;
      const r = message.request;
      const reason = r.test
        ? "A test send goes to the test devices only: there is no audience to follow up."
        : r.live_activity || message.push_type === "liveactivity"
          ? "A Live Activity's devices report no opens: there is no one to tell apart."
          : stats.deliveries_removed_at
            ? `Its delivery history was removed ${time(stats.deliveries_removed_at)} by the server's retention: who got it is no longer known.`
            : null;
      if (!reason && !stats.sent) {
        element.hidden = true;
        return;
      }
      element.hidden = false;
      if (reason) {
        note.textContent = reason;
        choices.replaceChildren();
        return;
      }
      note.textContent = canCompose
        ? "Send a follow-up to the people it went to who did not open it, or to those who did (on any of their devices). A choice saves the condition as a segment and opens Compose with it."
        : "The people it went to who did not open it, and those who did (on any of their devices).";
      if (!counted) {
        counted = true;
        count();
      }
    },
  };
}

// Saves `{message, op}` as a segment named after the message; a name the project has already
// (409) is reused when it holds the same condition on the same resource, else a number is added.
async function saveSegment(message, choice, scope) {
  const r = message.request;
  const title = (r.title || r.body || "").trim().slice(0, 60) || "untitled";
  const base = `${choice.name}: ${title} (${message.id})`.slice(0, 120);
  const filter = { message: message.id, op: choice.op };
  const same = (s) => s.filter && s.filter.message === filter.message && s.filter.op === filter.op && (s.resource_id || null) === (scope.resource_id || null);
  let existing = null;
  for (let attempt = 1; attempt <= 5; attempt += 1) {
    const name = attempt === 1 ? base : `${base} ${attempt}`;
    try {
      return await api("POST", "/segments", { ...scope, name, filter });
    } catch (failure) {
      if (failure.status !== 409) throw failure;
      existing = existing || (await api("GET", `/segments?project_id=${encodeURIComponent(message.project_id)}`));
      const match = existing.find((s) => s.name === name && same(s));
      if (match) return match;
    }
  }
  throw new Error("Five segments of that name hold other conditions: rename one on the Segments page.");
}

// While a throttled message sends: its rate, and when its last delivery falls due (the server
// spreads them from the send time, a second's share at a time). While one sent at a local time
// sends: until when.
function timingNote(message) {
  const r = message.request;
  if (message.done || message.cancelled_at || r.test) return null;
  const start = message.send_at || message.created_at;
  if (r.local_time_of_day) {
    return h("p", { class: "note", id: "timing-note", text: `Each device gets it at ${r.local_time_of_day} on its own clock: all by ${time(start + 86400000)}.` });
  }
  if (r.at_usual_open_time) {
    return h("p", { class: "note", id: "timing-note", text: `Each device gets it at the hour its person usually opens pushes: all by ${time(start + 86400000)}.` });
  }
  const perMinute = r.throttle_per_minute;
  if (!perMinute) return null;
  const last = start + Math.floor(Math.max(0, message.counts.total - 1) * 60000 / perMinute);
  const text = message.fan_out_done ? `Throttled to ${number(perMinute)} a minute: the last of ${number(message.counts.total)} deliveries goes about ${time(last)}.` : `Throttled to ${number(perMinute)} a minute.`;
  return h("p", { class: "note", id: "timing-note", text });
}

// What a Live Activity message carries, beside the alert's title and body.
function liveActivityPairs(r) {
  const live = r.live_activity;
  if (!live) return [];
  const seconds = (value) => time(value * 1000);
  return [
    pair("Live Activity", liveActivityName(r)),
    live.content_state ? pair("Content state", JSON.stringify(live.content_state)) : null,
    live.attributes ? pair("Attributes", JSON.stringify(live.attributes)) : null,
    live.stale_date !== undefined ? pair("Stale after", seconds(live.stale_date)) : null,
    live.dismissal_date !== undefined ? pair("Dismissed", seconds(live.dismissal_date)) : null,
    live.relevance_score !== undefined ? pair("Relevance score", String(live.relevance_score)) : null,
  ];
}

// What one language of a message changes: its texts, and its own link and image.
function languageParts(language) {
  return [language.title, language.body, language.click_url && `link ${language.click_url}`, language.media_url && `image ${language.media_url}`].filter(Boolean);
}

// An A/B test's versions side by side: each one's share, text, devices, reports and open rate.
function versionsPanel(r, stats) {
  if (!stats.variants) return null;
  const rate = (part, whole) => (whole ? `${(Math.round((part * 1000) / whole) / 10).toFixed(1)}%` : "–");
  const rows = stats.variants.map((v, index) => {
    const version = { ...r, ...((r.variants || [])[index] || {}) };
    return [v.variant.toUpperCase(), `${v.percent}%`, version.title || "", version.body || "", number(v.targeted), number(v.delivered), number(v.opened), rate(v.opened, v.delivered), number(v.converted || 0)];
  });
  return h(
    "section",
    { class: "panel", "aria-labelledby": "versions-title" },
    h("h2", { id: "versions-title", text: "A/B test" }),
    table("Versions of the message", ["Version", "Share#", "Title", "Body", "Targeted#", "Delivered#", "Opened#", "Opened of delivered#", "Converted#"], rows),
    h("p", { class: "hint", text: "Each device got one version, chosen by its subscription. Opens are counted from the devices' reports; a conversion is an open a goal naming the push followed." }),
  );
}

// A message with a control group: both groups' conversion rates, and the uplift.
function controlGroupPanel(stats) {
  const g = stats.control_group;
  if (!g) return null;
  const rate = (group) => (group.people ? `${(Math.round((group.converted * 1000) / group.people) / 10).toFixed(1)}%` : "–");
  const uplift = g.uplift === null ? "not yet: nobody held out has converted" : `${g.uplift >= 0 ? "+" : ""}${(Math.round(g.uplift * 1000) / 10).toFixed(1)}%`;
  const closes = g.window_ends_at > Date.now() ? `The window closes ${time(g.window_ends_at)}; until then the figures grow.` : `The window closed ${time(g.window_ends_at)}: the figures are final.`;
  return h(
    "section",
    { class: "panel", "aria-labelledby": "control-title" },
    h("h2", { id: "control-title", text: "Control group" }),
    table("Control group and the people it went to", ["Group", "People#", `Reached ${g.goal}#`, "Conversion rate#"], [
      [`Held out (${g.percent}%)`, number(g.control.people), number(g.control.converted), rate(g.control)],
      ["Sent", number(g.sent.people), number(g.sent.converted), rate(g.sent)],
    ]),
    h("dl", { class: "pairs", id: "control-uplift" }, pair("Uplift", uplift)),
    h("p", { class: "hint", text: `People who reached the goal ${g.goal} within ${g.window_hours} hours of the send, on any device, each once. The uplift is how much more often the people it went to converted than those held out. ${closes}` }),
  );
}

// A triggered message with re-entry: the figures of all its rounds, beside its own (round 1's) above.
function roundsPanel(stats) {
  const all = stats.all_rounds;
  if (!all) return null;
  return h(
    "section",
    { class: "panel", "aria-labelledby": "rounds-title" },
    h("h2", { id: "rounds-title", text: "Every round" }),
    h("p", { class: "hint", text: "A person's second time goes through round 2, a message of its own, and so on. The funnel above is round 1's; these are all the rounds' together." }),
    h("dl", { class: "pairs", id: "rounds-numbers" }, pair("Rounds", number(all.rounds)), pair("Targeted", number(all.targeted)), pair("Sent", number(all.sent)), pair("Delivered", number(all.delivered)), pair("Opened", number(all.opened)), pair("Converted", number(all.converted)), pair("Failed", number(all.failed + all.invalid_token)), all.skipped_by_preference ? pair("Skipped: category off", number(all.skipped_by_preference)) : null, all.skipped_by_frequency_cap ? pair("Skipped: frequency cap", number(all.skipped_by_frequency_cap)) : null),
  );
}

// Links to a triggered message's rounds after the first (each `<id>-n`), the latest 20.
function roundLinks(message) {
  const count = message.trigger_rounds;
  const first = Math.max(2, count - 19);
  const links = [];
  for (let round = count; round >= first; round -= 1) links.push(h("a", { href: `#/message/${message.id}-${round}`, text: `round ${number(round)}` }), " ");
  return h("span", {}, `${number(count)} so far${count > 1 ? ": " : " (a person's second time makes round 2)"}`, ...links, first > 2 ? `and ${number(first - 2)} earlier` : "");
}

// "Over time": sent, delivered and opened per bucket of GET …/timeline (UTC), as lines with a
// table for screen readers; a refusal (a timeline not kept) is said in words.
function timelinePanel(timeline) {
  if (!timeline) return null;
  const section = (...children) => h("section", { class: "panel", "aria-labelledby": "timeline-title" }, h("h2", { id: "timeline-title", text: "Over time" }), ...children);
  if (timeline.error) return section(h("p", { class: "muted", id: "timeline-note", text: timeline.error.message || "The timeline could not be read." }));
  if (!timeline.points.length) return section(h("p", { class: "muted", id: "timeline-note", text: "Nothing sent or reported yet." }));
  const label = (at) => {
    const iso = new Date(at).toISOString();
    return timeline.bucket === "day" ? iso.slice(0, 10) : iso.slice(5, 16).replace("T", " ");
  };
  const points = timeline.points.map((p) => ({ label: label(p.at), values: p }));
  return section(
    lineChart(`Sent, delivered and opened per ${timeline.bucket} (UTC)`, points, [
      { key: "sent", name: "sent", tone: "" },
      { key: "delivered", name: "delivered", tone: "good" },
      { key: "opened", name: "opened", tone: "alt" },
    ]),
    h("p", { class: "hint", text: `A point a ${timeline.bucket}, UTC. Reports are placed at the device's time, held between the message's start and when the server got them.` }),
  );
}

function view(message, stats, canCompose, timeline) {
  const r = message.request;
  const failures = Object.entries(stats.failed_by_reason || {}).sort((a, b) => b[1] - a[1]);
  return [
    h(
      "section",
      { class: "panel", "aria-labelledby": "progress-title" },
      h("h2", { id: "progress-title" }, "Sending ", statusBadge(message)),
      progress(message),
      message.cancelled_at ? h("p", { class: "note", text: `Cancelled ${time(message.cancelled_at)}: deliveries not sent by then were not sent.` }) : null,
      timingNote(message),
      h("p", { class: "muted", text: `${number(stats.queued + stats.sending)} waiting · ${number(stats.sent)} sent · ${number(stats.failed)} failed · ${number(stats.invalid_token)} invalid tokens` }),
    ),
    h(
      "section",
      { class: "panel", "aria-labelledby": "funnel-title" },
      h("h2", { id: "funnel-title", text: stats.all_rounds ? "Funnel of round 1 (the message itself)" : "Funnel" }),
      funnelChart("Devices targeted, sent, delivered and opened", [
        { label: "targeted", value: stats.targeted },
        { label: "sent", value: stats.sent },
        { label: "delivered", value: stats.delivered, tone: "good" },
        { label: "opened", value: stats.opened, tone: "good" },
        { label: "converted", value: stats.converted || 0, tone: "good" },
        { label: "failed", value: stats.failed, tone: "bad" },
        { label: "invalid tokens", value: stats.invalid_token, tone: "bad" },
      ]),
      h("dl", { class: "pairs", id: "funnel-numbers" }, pair("Targeted", number(stats.targeted)), pair("Sent", number(stats.sent)), pair("Delivered", number(stats.delivered)), pair("Opened", number(stats.opened)), pair("Converted", number(stats.converted || 0)), stats.skipped_by_preference ? pair("Skipped: category off", number(stats.skipped_by_preference)) : null, stats.skipped_by_frequency_cap ? pair("Skipped: frequency cap", number(stats.skipped_by_frequency_cap)) : null),
      r.live_activity ? h("p", { class: "hint", text: "A Live Activity's devices report no deliveries or opens: sent means APNs took the push." }) : null,
      h("h3", { text: "Failures by reason" }),
      failures.length ? table("Failures by reason", ["Reason", "Deliveries#"], failures.map(([reason, count]) => [reason, number(count)])) : h("p", { class: "muted", text: "No failures." }),
    ),
    timelinePanel(timeline),
    versionsPanel(r, stats),
    controlGroupPanel(stats),
    roundsPanel(stats),
    h(
      "section",
      { class: "panel", "aria-labelledby": "content-title" },
      h("h2", { id: "content-title", text: "What was sent" }),
      h(
        "dl",
        { class: "pairs" },
        pair("Id", message.id),
        pair("Created", time(message.created_at)),
        pair("Push type", message.push_type),
        pair("Environment", message.environment),
        r.title ? pair("Title", r.title) : null,
        r.subtitle ? pair("Subtitle", r.subtitle) : null,
        r.body ? pair("Body", r.body) : null,
        r.media_url ? pair("Media", r.media_url) : null,
        r.click_url ? pair("Click URL", r.click_url) : null,
        r.category ? pair("Category", r.category) : null,
        r.ios_category ? pair("iOS category", r.ios_category) : null,
        r.test ? pair("Test send", "only the test devices") : null,
        r.control_percent ? pair("Control group", `${r.control_percent}% of the people held out; goal ${r.conversion_goal} within ${r.conversion_window_hours || 72} hours`) : null,
        r.throttle_per_minute ? pair("Throttle", `${number(r.throttle_per_minute)} deliveries a minute`) : null,
        r.local_time_of_day ? pair("Local time", `${r.local_time_of_day} on each device's clock`) : null,
        r.at_usual_open_time ? pair("Timing", "at each person's usual open time (at once for people with no opens yet)") : null,
        r.ignore_frequency_cap ? pair("Frequency cap", "ignored") : null,
        r.quiet_hours ? pair("Quiet hours", `${r.quiet_hours.from} to ${r.quiet_hours.to} on each device's clock`) : null,
        r.test_audience_percent ? pair("A/B test", `on ${r.test_audience_percent}% of the audience${message.winner_message_id ? `; its winner went to the rest as ${message.winner_message_id}` : message.winner_due_at ? `; the server sends the winner to the rest at ${time(message.winner_due_at)}${r.winner_by === "conversions" ? `, the version with the most conversions${r.winner_goal ? ` of ${r.winner_goal}` : ""} per device` : ""}` : "; the rest wait for the winner"}`) : null,
        r.winner_of ? pair("Winner of", `${r.winner_of.message_id}: version ${r.winner_of.variant.toUpperCase()}, to the ${100 - r.winner_of.test_audience_percent}% the test held back`) : null,
        r.buttons ? pair("Buttons", r.buttons.map((b) => `${b.title} (${b.action})`).join(", ")) : null,
        r.data ? pair("Custom data", JSON.stringify(r.data)) : null,
        ...liveActivityPairs(r),
        r.localizations ? pair("Languages", Object.keys(r.localizations).sort().map((code) => `${code}: ${languageParts(r.localizations[code]).join(" — ")}`).join("; ")) : null,
        r.trigger ? pair("Trigger", `each person ${triggerWho(r.trigger)}, ${r.trigger.delay_minutes ? `${number(r.trigger.delay_minutes)} minutes after it` : "at once"}${r.trigger.cancel_event_name ? `, unless they reach ${r.trigger.cancel_event_name} first` : ""}${r.trigger.reentry_after_minutes ? `; again when they reach it ${number(r.trigger.reentry_after_minutes)} minutes or more after it last went to them` : ""}${message.cancelled_at ? " (stopped)" : " (until it is stopped)"}`) : null,
        message.trigger_rounds ? pair("Rounds", roundLinks(message)) : null,
        message.trigger_round_of ? pair("Round of", h("a", { href: `#/message/${message.trigger_round_of}`, text: `round ${number(message.trigger_round)} of the triggered message ${message.trigger_round_of}` })) : null,
        r.repeat ? pair("Repeats", `${rhythm(r.repeat, r.local_time_of_day)}, a copy to the audience as it is then${r.repeat.until ? `, until ${time(r.repeat.until)}` : ""}${message.cancelled_at ? " (stopped)" : message.next_copy_at ? `; the next copy goes ${time(message.next_copy_at)}` : "; no copy is left to go"}`) : null,
        message.recurring_of ? pair("Copy of", h("a", { href: `#/message/${message.recurring_of}`, text: `the recurring message ${message.recurring_of}` })) : null,
        pair("Audience", JSON.stringify(r.audience)),
      ),
      canCompose ? h("div", { class: "actions" }, editable(message) ? editButton(message) : null, duplicateButton(message)) : null,
    ),
  ];
}

// Whether the server's edit takes it (a 409 says so otherwise): a scheduled message not yet fanning
// out, a recurring one with a copy to come, or a standing triggered message (not one of its rounds).
function editable(message) {
  const r = message.request;
  if (message.cancelled_at || message.recurring_of || message.trigger_round_of || r.winner_of || r.test) return false;
  if (r.trigger) return true;
  if (r.repeat) return Boolean(message.next_copy_at);
  return Boolean(message.send_at) && !message.fan_out_done && message.counts.total === 0;
}

// Opens the compose page filled in with this message, saving over it.
function editButton(message) {
  const button = h("button", { type: "button", id: "edit-message", text: "Edit…" });
  button.addEventListener("click", () => {
    edit(message.id, message.request);
    location.hash = "#/compose";
  });
  return button;
}

// Opens the compose page with this message's fields filled in, to send it again or to change it.
function duplicateButton(message) {
  const button = h("button", { type: "button", class: "secondary", text: "Duplicate…" });
  button.addEventListener("click", () => {
    duplicate(message.id, message.request);
    location.hash = "#/compose";
  });
  return button;
}

function deliveryList(deliveries, stats) {
  const total = stats.targeted;
  if (!deliveries) {
    return h(
      "section",
      { class: "panel", "aria-labelledby": "deliveries-title" },
      h("h2", { id: "deliveries-title", text: "Deliveries" }),
      h("p", { class: "muted", text: `Removed ${time(stats.deliveries_removed_at)} by the server's retention (--delivery-retention-days). The figures above were kept.` }),
    );
  }
  return h(
    "section",
    { class: "panel", "aria-labelledby": "deliveries-title" },
    h("h2", { id: "deliveries-title", text: total > deliveries.length ? `First ${deliveries.length} of ${number(total)} deliveries` : "Deliveries" }),
    deliveries.length
      ? table(
          "Deliveries",
          ["Delivery", "Provider", "Status", "Attempts#", "Reason", "Updated"],
          deliveries.map((d) => [String(d.id), d.provider, h("span", { class: `badge ${d.status === "sent" ? "good" : d.status === "failed" || d.status === "invalid_token" ? "bad" : ""}`, text: d.status }), String(d.attempts), d.reason || "", time(d.updated_at)]),
        )
      : h("p", { class: "muted", text: "No device in the audience." }),
  );
}

function pair(term, value) {
  return [h("dt", { text: term }), value instanceof Node ? h("dd", { class: "break" }, value) : h("dd", { class: "break", text: value })];
}
