// Small DOM helpers. Every value from the server goes in as text (textContent), never as HTML.

let counter = 0;

/** An element: h("a", { href: "#/x", class: "y", onclick: f }, "text", child). */
export function h(tag, props = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(props || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name === "class") element.className = value;
    else if (name === "text") element.textContent = String(value);
    else if (name.startsWith("on")) element.addEventListener(name.slice(2), value);
    else if (name === "value") element.value = value;
    else if (name === "checked" || name === "disabled" || name === "selected" || name === "hidden") element[name] = true;
    else element.setAttribute(name, value === true ? "" : String(value));
  }
  append(element, children);
  return element;
}

export function append(parent, children) {
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    parent.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return parent;
}

export function clear(element) {
  element.replaceChildren();
  return element;
}

export function uid(prefix) {
  counter += 1;
  return `${prefix}-${counter}`;
}

/** Tells screen readers something happened. */
export function announce(text) {
  const status = document.getElementById("status");
  if (status) status.textContent = text;
}

/**
 * A labelled form field with a hint and an error slot wired to it with aria-describedby.
 * `api` names the request's field, so the API's reasons can be shown beside it.
 */
export function field(label, control, { hint, api } = {}) {
  const id = control.id || uid("f");
  control.id = id;
  if (api) control.dataset.api = api;
  const error = h("p", { class: "error", id: `${id}-error`, "aria-live": "polite" });
  const described = [error.id];
  let hintNode = null;
  if (hint) {
    hintNode = h("p", { class: "hint", id: `${id}-hint`, text: hint });
    described.unshift(hintNode.id);
  }
  control.setAttribute("aria-describedby", described.join(" "));
  return h("div", { class: "field" }, h("label", { for: id, text: label }), control, hintNode, error);
}

export function input(name, props = {}) {
  return h("input", { type: "text", name, autocomplete: "off", ...props });
}

export function select(name, options, props = {}) {
  return h("select", { name, ...props }, options.map(([value, label]) => h("option", { value, text: label })));
}

export function checkbox(label, name, checked) {
  const box = h("input", { type: "checkbox", name, checked });
  return { box, node: h("label", { class: "check" }, box, label) };
}

/** Once a person edits a field in error, its error goes away. */
export function clearOnEdit(form) {
  form.addEventListener("input", (event) => {
    const control = event.target;
    if (!control.hasAttribute || !control.hasAttribute("aria-invalid")) return;
    control.removeAttribute("aria-invalid");
    const error = document.getElementById(`${control.id}-error`);
    if (error) error.textContent = "";
  });
  return form;
}

/** Clears every error of a form. */
export function clearErrors(form) {
  for (const node of form.querySelectorAll(".error")) node.textContent = "";
  for (const node of form.querySelectorAll("[aria-invalid]")) node.removeAttribute("aria-invalid");
  const alert = form.querySelector(".form-alert");
  if (alert) alert.textContent = "";
}

/** Shows `message` beside the control, focusing the first one in error. */
export function fieldError(control, message) {
  control.setAttribute("aria-invalid", "true");
  const error = document.getElementById(`${control.id}-error`);
  if (error) error.textContent = message;
}

/** Puts an API error beside the field its reason names (the longest match), else above the form. */
export function showApiError(form, error) {
  const reason = error.reason || error.message || String(error);
  let best = null;
  for (const control of form.querySelectorAll("[data-api]")) {
    const name = control.dataset.api;
    if (reason.includes(name) && (!best || name.length > best.dataset.api.length)) best = control;
  }
  if (best) {
    fieldError(best, reason);
    best.focus();
  } else {
    formAlert(form, reason);
  }
  announce(reason);
}

export function formAlert(form, message) {
  let alert = form.querySelector(".form-alert");
  if (!alert) {
    alert = h("div", { class: "alert form-alert", role: "alert" });
    form.prepend(alert);
  }
  alert.textContent = message;
}

/** A page-level error box: never a blank page. */
export function errorBox(error, retry) {
  const reason = error.reason || error.message || String(error);
  return h(
    "div",
    { class: "alert", role: "alert" },
    h("strong", { text: "Something went wrong: " }),
    reason,
    retry ? h("div", { class: "actions" }, h("button", { type: "button", class: "secondary", onclick: retry, text: "Try again" })) : null,
  );
}

export function time(ms) {
  if (!ms) return "";
  return new Date(ms).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
}

export function number(value) {
  return Number(value || 0).toLocaleString();
}

export function percent(part, whole) {
  if (!whole) return 0;
  return Math.round((part / whole) * 100);
}

/** A table from rows of cell values (text or nodes); headers ending in "#" are numeric. */
export function table(caption, headers, rows) {
  return h(
    "div",
    { class: "scroll" },
    h(
      "table",
      {},
      caption ? h("caption", { class: "visually-hidden", text: caption }) : null,
      h("thead", {}, h("tr", {}, headers.map((name) => h("th", { scope: "col", class: name.endsWith("#") ? "num" : null, text: name.replace(/#$/, "") })))),
      h(
        "tbody",
        {},
        rows.map((cells) => h("tr", {}, cells.map((cell, index) => h("td", { class: headers[index] && headers[index].endsWith("#") ? "num" : null }, cell)))),
      ),
    ),
  );
}

/** Runs `tick` every `seconds` while the page is visible, until the returned stop is called. */
export function whileVisible(seconds, tick) {
  let timer = null;
  let stopped = false;
  const schedule = () => {
    clearTimeout(timer);
    if (!stopped && document.visibilityState === "visible") timer = setTimeout(run, seconds * 1000);
  };
  const run = async () => {
    if (stopped) return;
    try {
      await tick();
    } finally {
      schedule();
    }
  };
  const visibility = () => {
    if (document.visibilityState === "visible") run();
    else clearTimeout(timer);
  };
  document.addEventListener("visibilitychange", visibility);
  schedule();
  return () => {
    stopped = true;
    clearTimeout(timer);
    document.removeEventListener("visibilitychange", visibility);
  };
}

/**
 * A step that cannot be undone, behind a second click: `label` shows `warning` with a `confirm`
 * button (`confirmLabel` for assistive technology) and a `back` one; `confirm` runs `act`. Its
 * failure shows beside the buttons, in the page only while it says something (a page's first
 * alert is the one read). Answers `{ element, reset }`.
 */
export function secondClick({ label, warning, confirm, confirmLabel, back, act }) {
  const holder = h("div", { class: "actions" });
  const error = h("p", { class: "error", role: "alert" });
  const element = h("div", {}, holder);
  const start = h("button", { type: "button", class: "danger", text: label });
  const reset = () => {
    holder.replaceChildren(start);
    error.remove();
  };
  start.addEventListener("click", () => {
    const yes = h("button", { type: "button", class: "danger", text: confirm, "aria-label": confirmLabel || confirm });
    const no = h("button", { type: "button", class: "secondary", text: back });
    holder.replaceChildren(h("span", { text: warning }), yes, no);
    no.addEventListener("click", () => {
      reset();
      start.focus();
    });
    yes.addEventListener("click", async () => {
      yes.disabled = no.disabled = true;
      error.remove();
      try {
        await act();
      } catch (failure) {
        yes.disabled = no.disabled = false;
        if (failure.status !== 401) {
          error.textContent = failure.reason;
          element.append(error);
        }
      }
    });
    yes.focus();
  });
  reset();
  return { element, reset };
}
