// The dashboard's shell: sign-in, the section router (#/page/arg), sign-out.
import { onSignedOut, restoreSession, signIn, signOut, isSignedIn, sessionScope } from "./api.js";
import { h, clear, field, input, announce, errorBox, clearErrors, fieldError, formAlert } from "./ui.js";
// Each section's module loads when it is first opened.
const pages = {
  overview: () => import("./overview.js"),
  compose: () => import("./compose.js"),
  messages: () => import("./messages.js"),
  message: () => import("./message.js"),
  audience: () => import("./audience.js"),
  segments: () => import("./segments.js"),
  templates: () => import("./templates.js"),
  inapp: () => import("./inapp.js"),
  inbox: () => import("./inbox.js"),
  settings: () => import("./settings.js"),
};
const titles = { overview: "Overview", compose: "Compose", messages: "Messages", message: "Message", audience: "Audience", segments: "Segments", templates: "Templates", inapp: "In-app", inbox: "Inbox", settings: "Settings" };
const main = document.getElementById("main");
const top = document.getElementById("top");
let stopPage = null;

function leavePage() {
  if (stopPage) stopPage();
  stopPage = null;
}

let routing = 0;

async function route() {
  if (!isSignedIn()) return showSignIn();
  const hash = location.hash || "#/overview";
  if (!hash.startsWith("#/")) return;
  // A page's filter rides after "?" (#/messages?q=sale&state=done), so a link keeps it.
  const [path, search = ""] = hash.slice(2).split("?", 2);
  const [name, ...rest] = path.split("/");
  const scope = sessionScope() || { role: "server", projectId: null };
  const readOnly = scope.role === "read";
  const key = pages[name] && !(readOnly && name === "compose") ? name : "overview";
  leavePage();
  top.hidden = false;
  // A read key composes nothing: no Compose link; its address leads to the overview.
  const composeLink = top.querySelector('nav a[data-page="compose"]');
  if (composeLink) composeLink.hidden = readOnly;
  const badge = document.getElementById("scope");
  if (badge) {
    badge.textContent = scope.projectId === null ? "Server key · every project" : `Project ${scope.projectId} · ${scope.role} key`;
  }
  for (const link of top.querySelectorAll("nav a")) {
    const current = link.dataset.page === key || (key === "message" && link.dataset.page === "messages");
    if (current) link.setAttribute("aria-current", "page");
    else link.removeAttribute("aria-current");
  }
  document.title = `${titles[key]} · Tern`;
  const turn = ++routing;
  clear(main);
  try {
    const page = await pages[key]();
    if (turn !== routing || !isSignedIn()) return;
    stopPage = page.render(main, rest.map(decodeURIComponent), new URLSearchParams(search)) || null;
  } catch (error) {
    main.append(errorBox(error, () => location.reload()));
  }
  main.focus();
}

function showSignIn(reason) {
  leavePage();
  top.hidden = true;
  document.title = "Sign in · Tern";
  const key = input("key", { type: "password", autocomplete: "off", spellcheck: "false", required: true });
  const form = h(
    "form",
    { class: "panel signin", novalidate: true },
    h("h1", { text: "Sign in to Tern" }),
    reason ? h("p", { class: "note", role: "status", text: reason }) : null,
    field("Key", key, {
      hint: "The server key (admin_key in the server's bootstrap.json) or a project key from tern keys create. It is kept by the server, never by this browser.",
      api: "key",
    }),
    h("div", { class: "actions" }, h("button", { type: "submit", text: "Sign in" })),
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    clearErrors(form);
    if (!key.value.trim()) {
      fieldError(key, "Paste a server key or a project key.");
      key.focus();
      return;
    }
    const button = form.querySelector("button");
    button.disabled = true;
    try {
      await signIn(key.value.trim());
      key.value = "";
      announce("Signed in");
      route();
    } catch (error) {
      if (error.status === 401 || error.status === 400 || error.status === 429) fieldError(key, error.reason);
      else formAlert(form, error.reason || String(error));
      key.focus();
    } finally {
      button.disabled = false;
    }
  });
  clear(main).append(form);
  key.focus();
}

onSignedOut(() => {
  showSignIn("Your session has expired or was signed out: sign in again. Anything you were composing is kept.");
});

document.getElementById("sign-out").addEventListener("click", async () => {
  try {
    await signOut();
  } catch {
    // Signed out on this side whatever the server said.
  }
  showSignIn("Signed out.");
});

window.addEventListener("hashchange", route);

// The skip link moves focus to the page without touching the section in the address.
document.getElementById("skip").addEventListener("click", (event) => {
  event.preventDefault();
  main.focus();
});

(async () => {
  try {
    if (await restoreSession()) route();
    else showSignIn();
  } catch (error) {
    clear(main).append(errorBox(error, () => location.reload()));
  }
})();
