// Charts drawn as SVG by hand, each with a text alternative for screen readers.
import { h, number } from "./ui.js";

const NS = "http://www.w3.org/2000/svg";

function svg(tag, attributes = {}, text) {
  const node = document.createElementNS(NS, tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, String(value));
  if (text !== undefined) node.textContent = String(text);
  return node;
}

/**
 * Vertical bars per label with up to two series: `points` = [{label, a, b}], `names` = [nameA, nameB].
 */
export function columnChart(title, points, names) {
  const width = 640;
  const height = 200;
  const bottom = 28;
  const top = 16;
  const max = Math.max(1, ...points.map((p) => Math.max(p.a || 0, p.b || 0)));
  const slot = width / Math.max(1, points.length);
  const barWidth = Math.max(2, Math.min(18, slot / 3));
  const chart = svg("svg", { viewBox: `0 0 ${width} ${height}`, role: "img", "aria-label": title });
  chart.append(svg("title", {}, title));
  chart.append(svg("line", { x1: 0, x2: width, y1: height - bottom, y2: height - bottom, stroke: "#c9ced8" }));
  points.forEach((point, index) => {
    const x = index * slot + slot / 2;
    [["a", "bar"], ["b", "bar alt"]].forEach(([key, cls], series) => {
      const value = point[key] || 0;
      if (names[series] === undefined) return;
      const barHeight = ((height - bottom - top) * value) / max;
      const bar = svg("rect", {
        class: cls,
        x: x - barWidth + series * barWidth,
        y: height - bottom - barHeight,
        width: barWidth - 1,
        height: Math.max(0, barHeight),
      });
      bar.append(svg("title", {}, `${point.label}: ${number(value)} ${names[series]}`));
      chart.append(bar);
    });
    if (points.length <= 16 || index % 2 === 0) {
      chart.append(svg("text", { x, y: height - 10, "text-anchor": "middle" }, point.label.slice(5)));
    }
  });
  chart.append(svg("text", { x: 2, y: 11 }, `max ${number(max)}`));
  const legend = h("div", { class: "legend", "aria-hidden": "true" }, h("span", { text: names[0] }), names[1] ? h("span", { class: "alt", text: names[1] }) : null);
  return h("figure", { class: "chart" }, chart, legend, describe(title, points, names));
}

/** Horizontal bars, one per step: `steps` = [{label, value, tone}], widths relative to the first. */
export function funnelChart(title, steps) {
  const width = 640;
  const row = 34;
  const labelWidth = 120;
  const height = steps.length * row + 8;
  const max = Math.max(1, ...steps.map((s) => s.value || 0));
  const chart = svg("svg", { viewBox: `0 0 ${width} ${height}`, role: "img", "aria-label": title });
  chart.append(svg("title", {}, title));
  steps.forEach((step, index) => {
    const y = index * row + 4;
    const barWidth = ((width - labelWidth - 70) * (step.value || 0)) / max;
    chart.append(svg("text", { x: 0, y: y + 19 }, step.label));
    chart.append(svg("rect", { class: `bar ${step.tone || ""}`, x: labelWidth, y, width: Math.max(1, barWidth), height: row - 8, rx: 3 }));
    chart.append(svg("text", { class: "value", x: labelWidth + barWidth + 6, y: y + 19 }, number(step.value)));
  });
  const list = h("ul", { class: "visually-hidden" }, steps.map((s) => h("li", { text: `${s.label}: ${number(s.value)}` })));
  return h("figure", { class: "chart funnel" }, chart, list);
}

function describe(title, points, names) {
  return h(
    "table",
    { class: "visually-hidden" },
    h("caption", { text: title }),
    h("tr", {}, h("th", { text: "Day" }), names.filter(Boolean).map((n) => h("th", { text: n }))),
    points.map((p) => h("tr", {}, h("td", { text: p.label }), h("td", { text: number(p.a) }), names[1] ? h("td", { text: number(p.b) }) : null)),
  );
}

/**
 * Lines over time, one per series: `points` = [{label, values: {key: n}}] in time order,
 * `series` = [{key, name, tone}] (tone: a CSS class, "" for the accent colour). The text
 * alternative is a table of every point.
 */
export function lineChart(title, points, series) {
  const width = 640;
  const height = 200;
  const bottom = 28;
  const top = 16;
  const max = Math.max(1, ...points.flatMap((p) => series.map((s) => p.values[s.key] || 0)));
  const step = points.length > 1 ? width / (points.length - 1) : 0;
  const x = (index) => (points.length > 1 ? index * step : width / 2);
  const y = (value) => height - bottom - ((height - bottom - top) * value) / max;
  const chart = svg("svg", { viewBox: `0 0 ${width} ${height}`, role: "img", "aria-label": title });
  chart.append(svg("title", {}, title));
  chart.append(svg("line", { x1: 0, x2: width, y1: height - bottom, y2: height - bottom, stroke: "#c9ced8" }));
  for (const s of series) {
    const coordinates = points.map((p, index) => `${x(index).toFixed(1)},${y(p.values[s.key] || 0).toFixed(1)}`);
    chart.append(svg("polyline", { class: `line ${s.tone || ""}`, points: coordinates.join(" ") }));
    if (points.length === 1) chart.append(svg("circle", { class: `dot ${s.tone || ""}`, cx: x(0), cy: y(points[0].values[s.key] || 0), r: 3 }));
  }
  // At most about eight labels along the axis.
  const every = Math.max(1, Math.ceil(points.length / 8));
  points.forEach((p, index) => {
    if (index % every === 0) chart.append(svg("text", { x: x(index), y: height - 10, "text-anchor": index === 0 ? "start" : "middle" }, p.label));
  });
  chart.append(svg("text", { x: 2, y: 11 }, `max ${number(max)}`));
  const legend = h("div", { class: "legend", "aria-hidden": "true" }, series.map((s) => h("span", { class: s.tone || "", text: s.name })));
  const alternative = h(
    "table",
    { class: "visually-hidden" },
    h("caption", { text: title }),
    h("tr", {}, h("th", { text: "Time (UTC)" }), series.map((s) => h("th", { text: s.name }))),
    points.map((p) => h("tr", {}, h("td", { text: p.label }), series.map((s) => h("td", { text: number(p.values[s.key] || 0) })))),
  );
  return h("figure", { class: "chart timeline" }, chart, legend, alternative);
}
