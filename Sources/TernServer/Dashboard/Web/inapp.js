// In-app campaigns: the newest first, with status, schedule and statistics, and start, pause and end.
// Campaigns are created with `tern inapp create` or the management API (docs/inapp.md).
import { api } from "./api.js";
import { h, clear, errorBox, number, table, time, whileVisible, announce } from "./ui.js";

export function render(main) {
  main.append(
    h("h1", { text: "In-app campaigns" }),
    h("p", { class: "muted" }, "Create campaigns with ", h("code", { text: "tern inapp create FILE" }), " or the management API (docs/inapp.md); start, pause and end them here."),
  );
  const body = h("div", { class: "panel" }, h("p", { class: "muted", text: "Loading…" }));
  main.append(body);
  const load = async () => {
    try {
      const list = await api("GET", "/inapp/campaigns");
      if (!list.length) {
        clear(body).append(h("p", { class: "muted", text: "No in-app campaigns yet." }));
        return;
      }
      const shown = list.slice(0, 50);
      const stats = await Promise.all(shown.map((c) => api("GET", `/inapp/campaigns/${encodeURIComponent(c.id)}/stats`).catch(() => null)));
      clear(body).append(view(shown, stats, load));
    } catch (error) {
      if (error.status !== 401) clear(body).append(errorBox(error, load));
    }
  };
  load();
  return whileVisible(10, load);
}

const badges = { active: "good", paused: "warn", ended: "", draft: "" };

function actions(campaign, reload) {
  const verbs = { draft: ["start", "end"], active: ["pause", "end"], paused: ["start", "end"], ended: [] }[campaign.status] || [];
  return h(
    "div",
    { class: "actions" },
    ...verbs.map((verb) => {
      const button = h("button", { type: "button", class: verb === "end" ? "secondary" : "", text: verb[0].toUpperCase() + verb.slice(1) });
      button.setAttribute("aria-label", `${verb} ${campaign.name}`);
      button.addEventListener("click", async () => {
        if (verb === "end" && !confirm(`End "${campaign.name}" for good?`)) return;
        button.disabled = true;
        try {
          await api("POST", `/inapp/campaigns/${encodeURIComponent(campaign.id)}/${verb}`);
          announce(`${campaign.name}: ${verb} done`);
        } catch (error) {
          announce(error.reason || String(error));
        }
        reload();
      });
      return button;
    }),
  );
}

function schedule(c) {
  if (!c.starts_at && !c.ends_at) return "always";
  return `${c.starts_at ? c.starts_at.replace("T", " ").replace("Z", " UTC") : "now"} → ${c.ends_at ? c.ends_at.replace("T", " ").replace("Z", " UTC") : "no end"}`;
}

function counts(s) {
  if (!s) return "–";
  const buttons = Object.entries(s.clicks_by_button || {}).map(([id, n]) => `${id} ${number(n)}`).join(", ");
  return h(
    "div",
    {},
    h("div", { text: `placed ${number(s.placed)} · shown ${number(s.shown)} · clicked ${number(s.clicked)} · closed ${number(s.closed)} · errors ${number(s.errors)}` }),
    buttons ? h("div", { class: "muted", text: `by button: ${buttons}` }) : null,
  );
}

function view(list, stats, reload) {
  return table(
    "In-app campaigns",
    ["Created", "Campaign", "Status", "Schedule", "Statistics", ""],
    list.map((c, i) => [
      time(c.created_at),
      h("div", {}, h("div", { text: c.name }), h("div", { class: "muted", text: `#${c.id} · ${c.display_type} · priority ${c.priority}${c.anonymous ? " · anonymous" : ""}` })),
      h("span", { class: `badge ${badges[c.status] || ""}`, text: c.status }),
      schedule(c),
      counts(stats[i]),
      actions(c, reload),
    ]),
  );
}
