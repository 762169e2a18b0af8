// A drawing of an iPhone lock screen with the notification as iOS shows it: app row, title,
// subtitle, up to four lines of body, a thumbnail of the media, and the buttons (shown expanded).
import { h } from "./ui.js";

export function lockScreen(content) {
  const now = new Date();
  const clock = now.toLocaleTimeString(undefined, { hour: "numeric", minute: "2-digit", hour12: false });
  const date = now.toLocaleDateString(undefined, { weekday: "long", month: "long", day: "numeric" });
  const screen = h("div", { class: "phone", role: "img", "aria-label": describe(content) }, h("div", { class: "clock", text: clock }), h("div", { class: "date", text: date }));
  if (content.silent) {
    screen.append(h("p", { class: "silent", text: "A background push shows nothing: the app wakes and reads its data." }));
    return screen;
  }
  const card = h("div", { class: "notification", "aria-hidden": "true" }, h("div", { class: "app" }, h("span", { class: "icon" }), "Your app", h("span", { text: "now" })));
  if (content.title) card.append(h("div", { class: "n-title", text: content.title }));
  if (content.subtitle) card.append(h("div", { class: "n-subtitle", text: content.subtitle }));
  card.append(h("div", { class: "n-body", text: content.body || (content.title ? "" : "Type a title or a body to see the notification.") }));
  if (safeImage(content.media)) card.append(h("img", { class: "thumb", src: content.media, alt: "" }));
  if (content.buttons.length) card.append(h("div", { class: "n-buttons" }, content.buttons.map((title) => h("span", { text: title }))));
  screen.append(card);
  return screen;
}

function safeImage(url) {
  try {
    return new URL(url).protocol === "https:";
  } catch {
    return false;
  }
}

function describe(content) {
  if (content.silent) return "Lock screen preview: a background push shows nothing.";
  const parts = [content.title, content.subtitle, content.body].filter(Boolean);
  return `Lock screen preview: ${parts.join(". ") || "empty notification"}${content.buttons.length ? `. Buttons: ${content.buttons.join(", ")}` : ""}`;
}
