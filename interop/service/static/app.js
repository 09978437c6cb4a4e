// interop web page: plain JavaScript over /api/v1 (no build step). All text goes in with
// textContent, never innerHTML: card names and lorebook content are untrusted.
"use strict";

const API = "/api/v1";
const FATES = ["kept", "translated", "stashed", "approximated", "lost"];

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = value;
    else node.setAttribute(key, value);
  }
  for (const child of children) node.append(child);
  return node;
}

async function call(path, options = {}) {
  const response = await fetch(API + path, options);
  const type = response.headers.get("content-type") || "";
  const body = type.includes("application/json") ? await response.json() : null;
  if (!response.ok) {
    const err = (body && body.error) || {};
    const where = [err.file, err.location].filter(Boolean).join(": ");
    throw new Error((where ? where + ": " : "") + (err.reason || response.statusText));
  }
  return body;
}

function form(fields) {
  const data = new FormData();
  for (const [name, value] of fields) data.append(name, value);
  return data;
}

function tokenHeaders() {
  const input = document.getElementById("token");
  return input && input.value ? { Authorization: "Bearer " + input.value } : {};
}

/* ---------------------------------------------------------------- convert page */

function initConvert() {
  const drop = document.getElementById("drop");
  const input = document.getElementById("files");
  const results = document.getElementById("results");
  const target = document.getElementById("target");
  const template = document.getElementById("card-template");

  const add = (files) => { for (const file of files) results.prepend(inspectCard(file, template, target)); };
  input.addEventListener("change", () => { add(input.files); input.value = ""; });
  drop.addEventListener("click", (e) => { if (e.target === drop) input.click(); });
  drop.addEventListener("keydown", (e) => { if (e.key === "Enter" || e.key === " ") input.click(); });
  for (const name of ["dragenter", "dragover"]) {
    drop.addEventListener(name, (e) => { e.preventDefault(); drop.classList.add("over"); });
  }
  drop.addEventListener("dragleave", () => drop.classList.remove("over"));
  drop.addEventListener("drop", (e) => {
    e.preventDefault();
    drop.classList.remove("over");
    add(e.dataTransfer.files);
  });
}

function inspectCard(file, template, targetSelect) {
  const node = template.content.firstElementChild.cloneNode(true);
  const $ = (sel) => node.querySelector(sel);
  const error = $(".error");
  $(".name").textContent = file.name;
  $(".meta").textContent = "reading…";
  let info = null;
  call("/inspect?picture=true", { method: "POST", body: form([["file", file]]) })
    .then((data) => {
      info = data;
      node.dataset.format = data.format;
      $(".name").textContent = data.name || data.lorebook || file.name;
      const parts = [data.kind === "card" ? "card" : "lorebook", data.format];
      if (data.creator) parts.push("by " + data.creator);
      parts.push(data.entries + (data.entries === 1 ? " lorebook entry" : " lorebook entries"));
      if (data.kind === "card" && data.lorebook) parts.push("book: " + data.lorebook);
      $(".meta").textContent = parts.join(" · ");
      const tags = $(".tags");
      for (const tag of data.tags) tags.append(el("span", { class: "tag", text: tag }));
      for (const w of data.warnings) $(".warnings").append(el("li", { text: w }));
      if (data.picture) { $(".picture").src = data.picture; $(".picture").hidden = false; }
    })
    .catch((e) => { $(".meta").textContent = ""; error.textContent = e.message; error.hidden = false; $(".convert").disabled = true; });

  $(".convert").addEventListener("click", async () => {
    const to = targetSelect.value;
    error.hidden = true;
    $(".convert").disabled = true;
    $(".convert").textContent = "Converting…";
    try {
      const data = await call("/convert?to=" + encodeURIComponent(to), {
        method: "POST", headers: { Accept: "application/json" }, body: form([["file", file]]),
      });
      const bytes = Uint8Array.from(atob(data.file_base64), (c) => c.charCodeAt(0));
      const link = $(".download");
      if (link.href) URL.revokeObjectURL(link.href);
      link.href = URL.createObjectURL(new Blob([bytes], { type: data.media_type }));
      link.download = data.filename;
      link.textContent = "Download " + data.filename;
      link.hidden = false;
      showReport(node, data.report, data.view);
    } catch (e) {
      error.textContent = e.message;
      error.hidden = false;
    } finally {
      $(".convert").disabled = false;
      $(".convert").textContent = "Convert";
    }
  });
  return node;
}

// showReport(node, report, view): static/report.js (the report section, shared view of the CLI).

/* ---------------------------------------------------------------- catalog page */

function initCatalog() {
  const search = document.getElementById("search");
  let page = 1;
  let latest = 0; // answers can arrive out of order: only the newest search fills the table
  const load = async () => {
    const mine = ++latest;
    const params = new URLSearchParams({ page: String(page), kind: document.getElementById("kind").value });
    const q = document.getElementById("q").value.trim();
    const platform = document.getElementById("platform").value;
    if (q) params.set("q", q);
    if (platform) params.set("platform", platform);
    const data = await call("/catalog/items?" + params);
    if (mine !== latest) return;
    const body = document.querySelector("#items tbody");
    body.replaceChildren();
    for (const item of data.items) {
      body.append(el("tr", {},
        el("td", {}, el("a", { href: "/catalog/" + item.ref, text: item.ref })),
        el("td", { text: item.name || "(unnamed)" }),
        el("td", { text: item.creator || "" }),
        el("td", { text: item.tags.join(", ") }),
        el("td", { class: "num", text: String(item.entries) }),
        el("td", { text: item.formats.join(", ") })));
    }
    if (!data.items.length) body.append(el("tr", {}, el("td", { colspan: "6", text: "no items match" })));
    document.getElementById("page-no").textContent = "page " + data.page;
    document.getElementById("prev").disabled = page <= 1;
    document.getElementById("next").disabled = !data.has_more;
    const hits = document.getElementById("entry-hits");
    const list = hits.querySelector("ul");
    list.replaceChildren();
    for (const hit of data.entries) {
      list.append(el("li", {},
        el("a", { href: "/catalog/book:" + hit.lorebook_id, text: (hit.lorebook || "(unnamed)") + " #" + hit.position }),
        " " + (hit.name || "") + " — keys: " + hit.keys + " — " + hit.snippet));
    }
    hits.hidden = !data.entries.length;
    document.getElementById("items").dataset.query = q; // what the table now shows (tests wait on it)
  };
  const loadStats = async () => {
    const s = await call("/catalog/stats");
    document.getElementById("stats").textContent =
      [[s.cards, "card"], [s.lorebooks, "lorebook"], [s.entries, "entry", "entries"], [s.assets, "asset"]]
        .map(([n, one, many]) => `${n} ${n === 1 ? one : many || one + "s"}`).join(", ");
  };
  search.addEventListener("submit", (e) => { e.preventDefault(); page = 1; load().catch(showFatal); });
  document.getElementById("prev").addEventListener("click", () => { page -= 1; load().catch(showFatal); });
  document.getElementById("next").addEventListener("click", () => { page += 1; load().catch(showFatal); });
  document.getElementById("migrate").addEventListener("submit", (e) => { e.preventDefault(); startMigration(load, loadStats); });
  load().catch(showFatal);
  loadStats().catch(showFatal);
  loadJobs().catch(showFatal);
}

async function loadJobs() {
  const data = await call("/migrations");
  const body = document.querySelector("#jobs tbody");
  body.replaceChildren();
  for (const job of data.jobs) {
    body.append(el("tr", { class: "status-" + job.status },
      el("td", { text: new Date(job.created * 1000).toLocaleString() }),
      el("td", { text: job.status + (job.error ? ": " + job.error : "") }),
      el("td", { class: "num", text: String(job.total) }),
      el("td", { class: "num", text: String(job.imported) }),
      el("td", { class: "num", text: String(job.failed) }),
      el("td", { text: job.targets.join(", ") })));
  }
  if (!data.jobs.length) body.append(el("tr", {}, el("td", { colspan: "6", text: "none yet" })));
}

async function startMigration(reload, reloadStats) {
  const files = document.getElementById("migrate-files").files;
  const fields = [...files].map((f) => ["files", f]);
  fields.push(["to", document.getElementById("migrate-to").value]);
  const box = document.getElementById("job");
  const text = document.getElementById("job-text");
  const bar = document.getElementById("job-progress");
  const summary = document.getElementById("job-summary");
  box.hidden = false;
  summary.hidden = true;
  text.textContent = "uploading…";
  try {
    const job = await call("/migrations", { method: "POST", headers: tokenHeaders(), body: form(fields) });
    // Progress by polling: one small JSON every half second, simple and proxy-friendly.
    for (;;) {
      const state = await call("/migrations/" + job.id);
      bar.max = Math.max(1, state.total);
      bar.value = state.done;
      text.textContent = `${state.status}: ${state.done} of ${state.total} files, ${state.imported} imported, ${state.failed} failed`;
      if (state.status === "done" || state.status === "failed") {
        if (state.error) text.textContent += " — " + state.error;
        if (state.summary) {
          const lines = Object.entries(state.summary.targets).map(([t, v]) =>
            `${t}: ${v.written} written, ${v.skipped} skipped, ${v.failed} failed`);
          for (const f of state.summary.failures) lines.push(`failed ${f.file}: ${f.reason}`);
          summary.textContent = lines.join("\n");
          summary.hidden = !lines.length;
        }
        break;
      }
      await new Promise((r) => setTimeout(r, 500));
    }
    await Promise.all([reload(), reloadStats(), loadJobs()]);
  } catch (e) {
    text.textContent = e.message;
  }
}

/* ---------------------------------------------------------------- item page */

function initItem() {
  const title = document.getElementById("item-name");
  const ref = title.dataset.ref;
  const exportLink = document.getElementById("export");
  const exportTo = document.getElementById("export-to");
  const setExport = () => {
    exportLink.href = `${API}/catalog/items/${encodeURIComponent(ref)}/export?to=${encodeURIComponent(exportTo.value)}`;
  };
  exportTo.addEventListener("change", setExport);
  setExport();
  call("/catalog/items/" + encodeURIComponent(ref)).then((info) => {
    title.textContent = info.name || "(unnamed)";
    const meta = [info.ref, info.kind];
    if (info.creator) meta.push("by " + info.creator);
    if (info.tags && info.tags.length) meta.push("tags: " + info.tags.join(", "));
    if (info.lorebook) meta.push(`lorebook ${info.lorebook.ref} (${info.lorebook.entries} entries)`);
    document.getElementById("item-meta").textContent = meta.join(" · ");
    const body = document.querySelector("#history tbody");
    for (const m of info.migrations) {
      const fates = m.fates ? FATES.map((f) => `${m.fates[f]} ${f}`).join(", ") : "no report";
      const lost = el("td");
      if (m.lost.length) {
        const details = el("details", {}, el("summary", { text: `${m.lost.length} lost field${m.lost.length === 1 ? "" : "s"}` }));
        for (const l of m.lost) details.append(el("div", { class: "lost-item", text: `${l.path}: ${l.detail || ""}` }));
        lost.append(details);
      }
      body.append(el("tr", { class: "status-" + m.status },
        el("td", { text: m.target }),
        el("td", { text: m.status + (m.reason ? ": " + m.reason : "") }),
        el("td", { text: m.output || "" }),
        el("td", { text: fates }),
        lost));
    }
    if (!info.migrations.length) body.append(el("tr", {}, el("td", { colspan: "5", text: "never migrated" })));
    const sources = document.getElementById("sources");
    for (const s of info.sources) sources.append(el("li", { text: `${s.path} (${s.format}, ${s.size} bytes)` }));
    if (info.entries) {
      const tbody = document.querySelector("#entries tbody");
      for (const e of info.entries) {
        tbody.append(el("tr", {},
          el("td", { class: "num", text: String(e.position) }), el("td", { text: e.name || "" }),
          el("td", { text: e.keys.join(", ") }), el("td", { text: String(e.enabled) }),
          el("td", { text: String(e.constant) })));
      }
      document.getElementById("entries-section").hidden = false;
    }
  }).catch(showFatal);
}

/* ---------------------------------------------------------------- playground */

function initPlayground() {
  const formNode = document.getElementById("activate");
  const status = document.getElementById("play-status");
  const error = document.getElementById("play-error");
  const onlyDiff = document.getElementById("only-diff");
  onlyDiff.addEventListener("change", () => {
    for (const row of document.querySelectorAll("#side tbody tr")) row.hidden = onlyDiff.checked && !row.classList.contains("differs");
  });
  formNode.addEventListener("submit", async (e) => {
    e.preventDefault();
    error.hidden = true;
    status.textContent = "running…";
    const fields = [["book", document.getElementById("book").files[0]],
      ["chat_text", document.getElementById("chat").value], ["seed", document.getElementById("seed").value]];
    for (const box of formNode.querySelectorAll("input[name=platform]:checked")) fields.push(["platform", box.value]);
    try {
      const data = await call("/activate", { method: "POST", body: form(fields) });
      renderSideBySide(data);
      status.textContent = "";
    } catch (err) {
      status.textContent = "";
      error.textContent = err.message;
      error.hidden = false;
    }
  });
}

function renderSideBySide(data) {
  const table = document.getElementById("side");
  const head = table.querySelector("thead tr");
  head.replaceChildren(el("th", { text: "entry" }), ...data.platforms.map((p) => el("th", { text: p })));
  const body = table.querySelector("tbody");
  body.replaceChildren();
  for (const row of data.rows) {
    const first = Object.values(row.cells).find((c) => c);
    const tr = el("tr", { class: row.differs ? "differs" : "" },
      el("td", { class: "path" }, row.title || "(untitled)", el("span", { class: "entry-id", text: first ? first.entry_id : "" })));
    for (const p of data.platforms) {
      const cell = row.cells[p];
      if (!cell) { tr.append(el("td", { class: "absent", text: "no such entry" })); continue; }
      const why = [cell.reason.replaceAll("_", " ")];
      if (cell.key) why.push(`key “${cell.key}”`);
      if (cell.where) why.push(cell.where);
      tr.append(el("td", { class: cell.fired ? "fired" : "quiet" },
        el("strong", { text: cell.fired ? "fires" : "does not fire" }), el("br"),
        el("span", { class: "why", text: why.join(" · ") + (cell.detail ? " — " + cell.detail : "") })));
    }
    body.append(tr);
  }
  const fired = data.platforms.map((p) => `${p}: ${data.results[p].activated.length} injected`).join(", ");
  document.getElementById("play-title").textContent =
    `${data.books.join(", ")} over ${data.messages} messages — ${fired}; ${data.differences} entr${data.differences === 1 ? "y differs" : "ies differ"}`;
  document.getElementById("play-result").hidden = false;
  document.getElementById("only-diff").dispatchEvent(new Event("change"));
}

function showFatal(e) {
  const main = document.querySelector("main");
  main.prepend(el("p", { class: "error", text: e.message }));
}

document.addEventListener("DOMContentLoaded", () => {
  const init = { convert: initConvert, catalog: initCatalog, item: initItem, playground: initPlayground }[document.body.dataset.page];
  if (init) init();
});
