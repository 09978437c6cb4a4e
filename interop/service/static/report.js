// The report section of the convert page. It draws the report *view* the API returns with each
// conversion (POST /api/v1/convert, "view"): the same view `interop convert` prints
// (interop/fidelity/render.py): verdict first, fields grouped by rule with the entries they
// affect, the target app's verdict, fields the conversion added, warnings. Then every field of
// the report in a table filtered by fate. Text goes in with textContent only: names are untrusted.
"use strict";

function reportEl(tag, cls, text) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined) node.textContent = text;
  return node;
}

function reportGroup(group) {
  const item = reportEl("li", "group fate-" + group.fate);
  const size = group.count + (group.count === 1 ? " field" : " fields") +
    (group.entries.length ? ` in ${group.entries.length} ${group.entries.length === 1 ? "entry" : "entries"}` : "");
  item.append(reportEl("strong", "group-label", group.label), reportEl("span", "group-size", ` (${size})`));
  const fields = group.fields.filter((f) => !(group.fields.length === 1 && group.label.startsWith(f)));
  if (fields.length) item.append(reportEl("div", "group-fields", fields.join(", ")));
  if (group.detail) item.append(reportEl("div", "group-detail", group.detail));
  if (group.details.length > 1) {
    const more = reportEl("details", "group-values");
    more.append(reportEl("summary", "", `${group.details.length} different values`));
    const list = reportEl("ul");
    for (const d of group.details) list.append(reportEl("li", "", d));
    more.append(list);
    item.append(more);
  }
  if (group.entries.length) {
    const text = group.all_entries ? `all ${group.entries.length} entries` : group.entries.join("; ");
    const entries = reportEl("div", "group-entries", "entries: " + text);
    entries.title = group.entries.join("\n");
    item.append(entries);
  }
  return item;
}

function reportGroups(groups, labels) {
  const box = reportEl("div", "groups");
  let list = null;
  let last = null;
  for (const group of groups) {
    if (group.fate !== last) {
      last = group.fate;
      const count = groups.filter((g) => g.fate === group.fate).reduce((n, g) => n + g.count, 0);
      box.append(reportEl("h4", "fate-heading " + group.fate, `${labels[group.fate] || group.fate} (${count})`));
      list = reportEl("ul", "group-list");
      box.append(list);
    }
    list.append(reportGroup(group));
  }
  return box;
}

function fillList(section, lines) {
  const list = section.querySelector("ul");
  list.replaceChildren(...lines.map((line) => reportEl("li", "", line)));
  section.hidden = lines.length === 0;
}

function showReport(node, report, view) {
  const box = node.querySelector(".report");
  const labels = Object.fromEntries(view.fates.map((f) => [f.fate, f.label]));
  box.querySelector(".report-title").textContent =
    `${report.source.format} → ${report.target.format} (${report.target.platform})` +
    (report.verified ? "" : " — not verified by reading back");
  const verdict = box.querySelector(".verdict");
  verdict.textContent = view.verdict;
  verdict.classList.toggle("losses", view.has_losses);
  box.querySelector(".report-counts").textContent =
    view.fates.filter((f) => f.count).map((f) => `${f.count} ${f.label}`).join(" · ");
  // Kept fields are the rest of the table: the groups say what happened to everything else.
  box.querySelector(".report-groups").replaceChildren(reportGroups(view.groups.filter((g) => g.fate !== "kept"), labels));

  const apps = box.querySelector(".report-apps");
  apps.querySelectorAll(".app").forEach((n) => n.remove());
  for (const app of view.apps) {
    const part = reportEl("div", "app");
    part.append(reportEl("p", "app-summary", app.summary), reportGroups(app.groups, labels));
    for (const note of app.notes) part.append(reportEl("p", "app-note", "note: " + note));
    apps.append(part);
  }
  apps.hidden = view.apps.length === 0;
  fillList(box.querySelector(".report-added"), view.added);
  fillList(box.querySelector(".report-warnings"), [
    ...view.warnings,
    ...view.reading_warnings.map((w) => "reading the source: " + w),
  ]);

  const filter = box.querySelector(".fate-filter");
  if (!filter.children.length) {
    for (const f of view.fates) {
      const input = reportEl("input");
      input.type = "checkbox";
      input.value = f.fate;
      input.checked = f.fate !== "kept";
      input.onchange = () => applyReportFilter(box);
      const label = reportEl("label", "fate " + f.fate);
      label.append(input, " " + f.label + " ", reportEl("span", "count"));
      filter.append(label);
    }
  }
  for (const input of filter.querySelectorAll("input")) {
    input.parentElement.querySelector(".count").textContent = "(" + (view.counts[input.value] || 0) + ")";
  }
  // Worst first: what the target loses matters more than what it keeps.
  const order = view.fates.map((f) => f.fate).reverse();
  const rank = (item) => order.indexOf(item.fate);
  const items = report.items.map((item, i) => [rank(item), i, item]).sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const body = box.querySelector("tbody");
  body.replaceChildren();
  for (const [, , item] of items) {
    const badge = reportEl("span", "badge " + item.fate, labels[item.fate] || item.fate);
    const fate = reportEl("td");
    fate.append(badge);
    const row = reportEl("tr", "fate-" + item.fate);
    const name = report.entry_names && /^entry\[(\d+)\]/.exec(item.path);
    const path = reportEl("td", "path", item.path);
    if (name && report.entry_names[Number(name[1])] !== undefined) path.title = report.entry_names[Number(name[1])];
    row.append(path, fate, reportEl("td", "", item.detail || ""));
    row.dataset.fate = item.fate;
    body.append(row);
  }
  applyReportFilter(box);
  box.hidden = false;
}

function applyReportFilter(box) {
  const shown = new Set([...box.querySelectorAll(".fate-filter input:checked")].map((i) => i.value));
  for (const row of box.querySelectorAll("tbody tr")) row.hidden = !shown.has(row.dataset.fate);
}
