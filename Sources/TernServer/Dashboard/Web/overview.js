// Overview: projects, resources, subscriptions by status and provider, the sendable ones by notification
// permission, messages per day.
import { api } from "./api.js";
import { h, clear, errorBox, number, table } from "./ui.js";
import { columnChart } from "./charts.js";

export function render(main) {
  main.append(h("h1", { text: "Overview" }));
  const body = h("div", { "aria-busy": "true" }, h("p", { class: "muted", text: "Loading…" }));
  main.append(body);
  const load = async () => {
    try {
      const overview = await api("GET", "/overview?days=14");
      clear(body).append(...view(overview));
    } catch (error) {
      if (error.status !== 401) clear(body).append(errorBox(error, load));
    } finally {
      body.removeAttribute("aria-busy");
    }
  };
  load();
}

function view(overview) {
  const subscriptions = overview.subscriptions || [];
  const total = subscriptions.reduce((sum, row) => sum + row.count, 0);
  const subscribed = subscriptions.filter((row) => row.status === "subscribed").reduce((sum, row) => sum + row.count, 0);
  const sent = overview.days.reduce((sum, day) => sum + day.messages, 0);
  const projects = new Map(overview.projects.map((p) => [p.id, p.name]));

  const statuses = [...new Set(subscriptions.map((row) => row.status))].sort();
  const providers = [...new Set(subscriptions.map((row) => row.provider || row.channel))].sort();
  const pivot = providers.map((provider) => [
    provider,
    ...statuses.map((status) =>
      number(subscriptions.filter((row) => (row.provider || row.channel) === provider && row.status === status).reduce((sum, row) => sum + row.count, 0)),
    ),
  ]);

  return [
    h(
      "div",
      { class: "grid" },
      stat("Projects", overview.projects.length),
      stat("Resources", overview.resources.length),
      stat("Subscriptions", total, `${number(subscribed)} subscribed`),
      stat("Messages, last 14 days", sent),
    ),
    h("section", { class: "panel", "aria-labelledby": "sends-title" }, h("h2", { id: "sends-title", text: "Sends in the last 14 days" }), columnChart("Messages and devices targeted per day", days(overview.days), ["messages", "devices targeted"])),
    h(
      "section",
      { class: "panel", "aria-labelledby": "subs-title" },
      h("h2", { id: "subs-title", text: "Subscriptions by provider and status" }),
      pivot.length ? table("Subscriptions by provider and status", ["Provider", ...statuses.map((s) => `${s}#`)], pivot) : h("p", { class: "muted", text: "No subscriptions yet: a device subscribes through the SDK (or tern device subscribe)." }),
    ),
    permissionPanel(overview.permissions || []),
    h(
      "section",
      { class: "panel", "aria-labelledby": "res-title" },
      h("h2", { id: "res-title", text: "Projects and resources" }),
      table(
        "Resources",
        ["Resource", "Project", "Channels", "Subscriptions#"],
        overview.resources.map((r) => [
          `${r.name} (#${r.id})`,
          projects.get(r.project_id) || `#${r.project_id}`,
          (r.channels || []).join(", "),
          number(subscriptions.filter((row) => row.resource_id === r.id).reduce((sum, row) => sum + row.count, 0)),
        ]),
      ),
    ),
  ];
}

/** What the devices a push can go to said of notifications (the SDK's `_push_permission`): a token
 *  outlives the person turning notifications off, so "subscribed" alone overstates the reach. */
const permissionLabels = {
  authorized: "Allowed",
  provisional: "Provisional (delivered quietly)",
  ephemeral: "Ephemeral (App Clip)",
  denied: "Turned off",
  not_determined: "Not asked yet",
};

function permissionPanel(rows) {
  const total = rows.reduce((sum, row) => sum + row.count, 0);
  const byPermission = new Map();
  for (const row of rows) {
    const key = row.permission ?? "";
    byPermission.set(key, (byPermission.get(key) || 0) + row.count);
  }
  const order = [...Object.keys(permissionLabels), ...[...byPermission.keys()].filter((key) => key && !(key in permissionLabels)).sort(), ""];
  const shown = order.filter((key) => byPermission.has(key));
  const reach = ["authorized", "provisional", "ephemeral"].reduce((sum, key) => sum + (byPermission.get(key) || 0), 0);
  const share = (count) => (total ? `${Math.round((count * 1000) / total) / 10} %` : "");
  return h(
    "section",
    { class: "panel", "aria-labelledby": "perm-title" },
    h("h2", { id: "perm-title", text: "Notification permission" }),
    total
      ? [
          h("p", { class: "muted", text: reachNote(reach, total - (byPermission.get("") || 0), total) }),
          table(
            "Devices a push can go to, by notification permission",
            ["Permission", "Devices#", "Share#"],
            shown.map((key) => [key ? permissionLabels[key] || key : "Not reported", number(byPermission.get(key)), share(byPermission.get(key))]),
          ),
        ]
      : h("p", { class: "muted", text: "No device a push can go to yet." }),
  );
}

function reachNote(reach, reported, total) {
  const devices = (count) => `${number(count)} ${count === 1 ? "device" : "devices"}`;
  if (!reported) return `None of the ${devices(total)} a push can go to has reported its permission yet: the SDK reports it when the app comes to the foreground.`;
  return `${number(reach)} of the ${devices(reported)} that reported it let a push show (allowed, provisional or ephemeral); ${devices(total)} in all.`;
}

function stat(label, value, note) {
  return h("div", { class: "panel" }, h("div", { class: "muted", text: label }), h("div", { class: "stat", text: number(value) }), note ? h("div", { class: "muted", text: note }) : null);
}

/** Every one of the last 14 days, with zeros where nothing was sent. */
function days(rows) {
  const byDay = new Map(rows.map((row) => [row.day, row]));
  const out = [];
  const today = Date.now();
  for (let index = 13; index >= 0; index -= 1) {
    const label = new Date(today - index * 86400000).toISOString().slice(0, 10);
    const row = byDay.get(label);
    out.push({ label, a: row ? row.messages : 0, b: row ? row.targeted : 0 });
  }
  return out;
}
