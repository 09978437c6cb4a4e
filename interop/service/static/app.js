// interop web page: plain JavaScript over /api/v1 (no build step). All text goes in with
// textContent, never innerHTML: card names and lorebook content are untrusted.
"use strict";

const API = "/api/v1";
// Everything lives under --root-path when behind a proxy: base.html puts it on <body data-root>.
function root() { return document.body.dataset.root || ""; }
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
  const response = await fetch(root() + API + path, options);
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

// One entry per dropped file: { file, node, info, output: {name, bytes} | null }.
const converted = [];

function initConvert() {
  const drop = document.getElementById("drop");
  const input = document.getElementById("files");
  const results = document.getElementById("results");
  const template = document.getElementById("card-template");
  const app = document.getElementById("app");
  const target = document.getElementById("target");
  const convertAll = document.getElementById("convert-all");

  const add = (files) => {
    for (const file of files) {
      const item = { file, node: null, info: null, output: null };
      item.node = inspectCard(item, template);
      converted.push(item);
      results.prepend(item.node);
    }
    convertAll.disabled = !converted.length;
  };
  input.addEventListener("change", () => { add(input.files); input.value = ""; });
  for (const name of ["dragenter", "dragover"]) {
    drop.addEventListener(name, (e) => { e.preventDefault(); drop.classList.add("over"); });
  }
  drop.addEventListener("dragleave", () => drop.classList.remove("over"));
  drop.addEventListener("drop", (e) => {
    e.preventDefault();
    drop.classList.remove("over");
    add(e.dataTransfer.files);
  });
  const retarget = () => {
    document.getElementById("target-wrap").hidden = app.value !== "";
    for (const item of converted) showTarget(item);
  };
  app.addEventListener("change", retarget);
  target.addEventListener("change", retarget);
  convertAll.addEventListener("click", () => convertEverything());
}

// The format for this file: the chosen app's format for the file's kind, or the format picked by hand.
function chosenTarget(item) {
  const app = document.getElementById("app").value;
  if (!item.info) return null;
  const name = app ? item.info.app_targets[app] : document.getElementById("target").value;
  return name && item.info.writable_targets.includes(name) ? name : null;
}

function appLabel() {
  const app = document.getElementById("app");
  return app.options[app.selectedIndex].text;
}

function showTarget(item) {
  const line = item.node.querySelector(".target-line");
  const button = item.node.querySelector(".convert");
  if (!item.info) return;
  const name = chosenTarget(item);
  const app = document.getElementById("app").value;
  if (name) {
    line.textContent = app ? `for ${appLabel()}: ${name}` : `as ${name}`;
    line.classList.remove("cannot");
  } else {
    line.textContent = app
      ? `${appLabel()} cannot take this ${item.info.kind === "card" ? "card (it has no lorebook)" : "file"}`
      : `this ${item.info.kind} cannot be written as ${document.getElementById("target").value}`;
    line.classList.add("cannot");
  }
  button.disabled = !name;
}

function inspectCard(item, template) {
  const node = template.content.firstElementChild.cloneNode(true);
  const $ = (sel) => node.querySelector(sel);
  const file = item.file;
  $(".name").textContent = file.name;
  $(".meta").textContent = "reading…";
  item.ready = call("/inspect?picture=true&content=true", { method: "POST", body: form([["file", file]]) })
    .then((data) => {
      item.info = data;
      node.dataset.format = data.format;
      $(".name").textContent = data.name || data.lorebook || file.name;
      const parts = [data.kind === "card" ? "card" : "lorebook", data.format];
      if (data.creator) parts.push("by " + data.creator);
      parts.push(data.entries + (data.entries === 1 ? " lorebook entry" : " lorebook entries"));
      if (data.kind === "card" && data.lorebook) parts.push("book: " + data.lorebook);
      $(".meta").textContent = parts.join(" · ");
      for (const tag of data.tags) $(".tags").append(el("span", { class: "tag", text: tag }));
      for (const w of data.warnings) $(".warnings").append(el("li", { text: w }));
      if (data.picture) {
        $(".picture").src = data.picture;
        $(".picture").alt = "Picture of " + (data.name || file.name);
        $(".picture").hidden = false;
      }
      showContent(node, data);
      showTarget(item);
    })
    .catch((e) => {
      $(".meta").textContent = "";
      $(".error").textContent = e.message;
      $(".error").hidden = false;
      $(".convert").disabled = true;
    });
  $(".convert").addEventListener("click", () => convertOne(item));
  return node;
}

function showContent(node, data) {
  const content = data.content;
  if (!content) return;
  const $ = (sel) => node.querySelector(sel);
  $(".description").textContent = content.description || "(none)";
  $(".first-mes").textContent = content.first_mes || "(none)";
  for (const sel of [".description", ".first-mes"]) {
    $(sel).previousElementSibling.hidden = $(sel).hidden = data.kind !== "card";
  }
  $(".book-title").textContent = content.entries.length
    ? `Lorebook${data.lorebook ? " “" + data.lorebook + "”" : ""}: ${content.entries.length} entries, ${content.book_tokens} tokens`
    : "No lorebook";
  const body = $(".entries tbody");
  for (const e of content.entries) {
    const keys = e.keys.join(", ") + (e.secondary_keys.length ? " + " + e.secondary_keys.join(", ") : "");
    const flags = [e.constant ? "always on" : "", e.enabled ? "" : "disabled"].filter(Boolean).join(", ");
    body.append(el("tr", { class: e.enabled ? "" : "disabled" },
      el("td", { class: "num", text: String(e.position) }),
      el("td", { text: (e.name || "(untitled)") + (flags ? " (" + flags + ")" : "") }),
      el("td", { text: keys }),
      el("td", { class: "prose", text: e.content }),
      el("td", { class: "num", text: String(e.tokens) })));
  }
  $(".entries").closest(".table-wrap").hidden = !content.entries.length;
  $(".content").hidden = false;
}

async function convertOne(item) {
  const node = item.node;
  const $ = (sel) => node.querySelector(sel);
  const to = chosenTarget(item);
  if (!to) return false;
  const error = $(".error");
  const link = $(".download");
  error.hidden = true;
  $(".convert").disabled = true;
  $(".convert").textContent = "Converting…";
  try {
    const fields = [["file", item.file]];
    const picture = document.getElementById("picture").files[0];
    if (picture) fields.push(["image", picture]);
    const data = await call("/convert?to=" + encodeURIComponent(to), {
      method: "POST", headers: { Accept: "application/json" }, body: form(fields),
    });
    const bytes = Uint8Array.from(atob(data.file_base64), (c) => c.charCodeAt(0));
    item.output = { name: data.filename, bytes };
    if (link.href) URL.revokeObjectURL(link.href);
    link.href = URL.createObjectURL(new Blob([bytes], { type: data.media_type }));
    link.download = data.filename;
    link.textContent = "Download " + data.filename;
    link.hidden = false;
    renderReport(node, data);
    return true;
  } catch (e) {
    // A failed conversion leaves no stale download or report behind.
    item.output = null;
    link.hidden = true;
    $(".report").hidden = true;
    error.textContent = e.message;
    error.hidden = false;
    return false;
  } finally {
    $(".convert").textContent = "Convert";
    $(".convert").disabled = !chosenTarget(item);
  }
}

async function convertEverything() {
  const status = document.getElementById("all-status");
  const link = document.getElementById("download-all");
  link.hidden = true;
  status.textContent = "converting…";
  await Promise.all(converted.map((item) => item.ready));
  let done = 0;
  let skipped = 0;
  for (const item of converted) {
    if (!chosenTarget(item)) { skipped += 1; continue; }
    if (await convertOne(item)) done += 1;
  }
  const outputs = converted.filter((item) => item.output).map((item) => item.output);
  const failed = converted.length - done - skipped;
  status.textContent = `${done} converted` + (failed ? `, ${failed} failed` : "") +
    (skipped ? `, ${skipped} not convertible for this choice` : "");
  if (!outputs.length) return;
  if (link.href) URL.revokeObjectURL(link.href);
  link.href = URL.createObjectURL(new Blob([zipStore(outputs)], { type: "application/zip" }));
  link.download = "interop-converted.zip";
  link.hidden = false;
}

// A zip of stored (uncompressed) members: outputs are PNG/zip/JSON already, and this needs no library.
const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(bytes) {
  let crc = 0xffffffff;
  for (const b of bytes) crc = CRC_TABLE[(crc ^ b) & 0xff] ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

function zipStore(files) {
  const encoder = new TextEncoder();
  const parts = [];
  const central = [];
  const used = new Set();
  let offset = 0;
  for (const file of files) {
    let name = file.name;
    for (let n = 2; used.has(name); n++) name = file.name.replace(/(\.[^.]*)?$/, (ext) => `-${n}${ext || ""}`);
    used.add(name);
    const nameBytes = encoder.encode(name);
    const crc = crc32(file.bytes);
    const size = file.bytes.length;
    const local = new DataView(new ArrayBuffer(30));
    local.setUint32(0, 0x04034b50, true); local.setUint16(4, 20, true); local.setUint16(6, 0x0800, true);
    local.setUint32(14, crc, true); local.setUint32(18, size, true); local.setUint32(22, size, true);
    local.setUint16(26, nameBytes.length, true);
    parts.push(new Uint8Array(local.buffer), nameBytes, file.bytes);
    const entry = new DataView(new ArrayBuffer(46));
    entry.setUint32(0, 0x02014b50, true); entry.setUint16(4, 20, true); entry.setUint16(6, 20, true);
    entry.setUint16(8, 0x0800, true); entry.setUint32(16, crc, true); entry.setUint32(20, size, true);
    entry.setUint32(24, size, true); entry.setUint16(28, nameBytes.length, true); entry.setUint32(42, offset, true);
    central.push(new Uint8Array(entry.buffer), nameBytes);
    offset += 30 + nameBytes.length + size;
  }
  const centralSize = central.reduce((n, part) => n + part.length, 0);
  const end = new DataView(new ArrayBuffer(22));
  end.setUint32(0, 0x06054b50, true); end.setUint16(8, files.length, true); end.setUint16(10, files.length, true);
  end.setUint32(12, centralSize, true); end.setUint32(16, offset, true);
  return new Blob([...parts, ...central, new Uint8Array(end.buffer)]);
}

// showReport(node, report, view): static/report.js (the report section, the CLI's view).
function renderReport(node, data) {
  showReport(node, data.report, data.view);
}

/* ---------------------------------------------------------------- catalog page */

function plural(n, one, many) { return `${n} ${n === 1 ? one : many || one + "s"}`; }

function initCatalog() {
  const search = document.getElementById("search");
  let page = 1;
  let latest = 0; // answers can arrive out of order: only the newest search fills the table
  let rows = [];
  let sort = { key: "ref", dir: 1 };
  const body = document.querySelector("#items tbody");
  const refKey = (ref) => [ref.startsWith("card") ? 0 : 1, Number(ref.split(":")[1])];
  const compare = (a, b) => {
    const x = a[sort.key];
    const y = b[sort.key];
    if (sort.key === "ref") {
      const [kx, ix] = refKey(x);
      const [ky, iy] = refKey(y);
      return (kx - ky || ix - iy) * sort.dir;
    }
    if (typeof x === "number") return (x - y) * sort.dir;
    return String(x || "").localeCompare(String(y || "")) * sort.dir;
  };
  const draw = () => {
    body.replaceChildren();
    for (const item of [...rows].sort(compare)) {
      body.append(el("tr", {},
        el("td", {}, el("img", { class: "thumb", alt: "", loading: "lazy", src: `${root()}${API}/catalog/items/${item.ref}/picture` })),
        el("td", {}, el("a", { href: root() + "/catalog/" + item.ref, text: item.ref })),
        el("td", { text: item.name || "(unnamed)" }),
        el("td", { text: item.creator || "" }),
        el("td", { text: item.tags.join(", ") }),
        el("td", { class: "num", text: String(item.entries) }),
        el("td", { text: item.formats.join(", ") })));
    }
    if (!rows.length) body.append(el("tr", {}, el("td", { colspan: "7", text: "no items match" })));
  };
  for (const th of document.querySelectorAll("#items th[data-key]")) {
    th.querySelector("button").addEventListener("click", () => {
      const key = th.dataset.key;
      sort = { key, dir: sort.key === key ? -sort.dir : 1 };
      for (const other of document.querySelectorAll("#items th[data-key]")) other.setAttribute("aria-sort", "none");
      th.setAttribute("aria-sort", sort.dir === 1 ? "ascending" : "descending");
      draw();
    });
  }
  const load = async () => {
    const mine = ++latest;
    const params = new URLSearchParams({ page: String(page), kind: document.getElementById("kind").value });
    const q = document.getElementById("q").value.trim();
    const platform = document.getElementById("platform").value;
    if (q) params.set("q", q);
    if (platform) params.set("platform", platform);
    const data = await call("/catalog/items?" + params);
    if (mine !== latest) return;
    rows = data.items;
    draw();
    const first = (data.page - 1) * data.per_page;
    const shown = data.items.length ? `${first + 1}–${first + data.items.length}` : "0";
    document.getElementById("showing").textContent = data.total === undefined
      ? `showing ${shown}`
      : `showing ${shown} of ${plural(data.total, "item")}`;
    document.getElementById("page-no").textContent = "page " + data.page;
    document.getElementById("prev").disabled = page <= 1;
    document.getElementById("next").disabled = !data.has_more;
    const hits = document.getElementById("entry-hits");
    const list = hits.querySelector("ul");
    list.replaceChildren();
    for (const hit of data.entries) {
      list.append(el("li", {},
        el("a", { href: root() + "/catalog/book:" + hit.lorebook_id, text: (hit.lorebook || "(unnamed)") + " #" + hit.position }),
        " " + (hit.name || "") + " — keys: " + hit.keys + " — " + hit.snippet));
    }
    hits.hidden = !data.entries.length;
    document.getElementById("items").dataset.query = q; // what the table now shows (tests wait on it)
  };
  const loadStats = async () => {
    const s = await call("/catalog/stats");
    document.getElementById("stats").textContent =
      [[s.cards, "card"], [s.lorebooks, "lorebook"], [s.entries, "entry", "entries"], [s.assets, "asset"]]
        .map(([n, one, many]) => plural(n, one, many)).join(", ");
  };
  search.addEventListener("submit", (e) => { e.preventDefault(); page = 1; load().catch(showFatal); });
  document.getElementById("prev").addEventListener("click", () => { page -= 1; load().catch(showFatal); });
  document.getElementById("next").addEventListener("click", () => { page += 1; load().catch(showFatal); });
  document.getElementById("migrate").addEventListener("submit", (e) => { e.preventDefault(); startMigration(load, loadStats); });
  load().catch(showFatal);
  loadStats().catch(showFatal);
  loadJobs().catch(showFatal);
}

// "2 imported, 1 already in the catalog": a file met again is not a failure and not "0 imported".
function outcome(job) {
  const files = (job.summary && job.summary.files) || {};
  const already = (files.duplicate || 0) + (files.unchanged || 0);
  const parts = [];
  if (job.imported || !already) parts.push(`${job.imported} imported`);
  if (already) parts.push(job.imported || job.failed ? `${already} already in the catalog` : "already in the catalog");
  if (job.failed) parts.push(`${job.failed} failed`);
  return parts.join(", ");
}

async function loadJobs() {
  const data = await call("/migrations");
  const body = document.querySelector("#jobs tbody");
  body.replaceChildren();
  for (const job of data.jobs) {
    const files = (job.summary && job.summary.files) || {};
    const already = (files.duplicate || 0) + (files.unchanged || 0);
    body.append(el("tr", { class: "status-" + job.status },
      el("td", { text: new Date(job.created * 1000).toLocaleString() }),
      el("td", { text: job.origin || "web" }),
      el("td", { text: job.status + (job.error ? ": " + job.error : "") }),
      el("td", { class: "num", text: String(job.total) }),
      el("td", { class: "num", text: job.imported === null ? "–" : String(job.imported) }),
      el("td", { class: "num", text: job.summary ? String(already) : "–" }),
      el("td", { class: "num", text: job.failed === null ? "–" : String(job.failed) }),
      el("td", { text: job.targets.join(", ") })));
  }
  if (!data.jobs.length) body.append(el("tr", {}, el("td", { colspan: "8", text: "none yet" })));
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
      text.textContent = `${state.status}: ${state.done} of ${state.total} files, ${outcome(state)}`;
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

function exportUrl(ref, target) {
  return `${root()}${API}/catalog/items/${encodeURIComponent(ref)}/export?to=${encodeURIComponent(target)}`;
}

function initItem() {
  const title = document.getElementById("item-name");
  const ref = title.dataset.ref;
  const exportLink = document.getElementById("export");
  const exportTo = document.getElementById("export-to");
  const setExport = () => { exportLink.href = exportUrl(ref, exportTo.value); };
  exportTo.addEventListener("change", setExport);
  setExport();
  call("/catalog/items/" + encodeURIComponent(ref)).then((info) => {
    title.textContent = info.name || "(unnamed)";
    const meta = [info.ref, info.kind];
    if (info.creator) meta.push("by " + info.creator);
    if (info.tags && info.tags.length) meta.push("tags: " + info.tags.join(", "));
    document.getElementById("item-meta").textContent = meta.join(" · ");
    const links = document.getElementById("item-links");
    if (info.lorebook) {
      links.append("Lorebook: ", el("a", { href: root() + "/catalog/" + info.lorebook.ref,
        text: `${info.lorebook.name || info.lorebook.ref} (${plural(info.lorebook.entries, "entry", "entries")})` }));
    } else if (info.cards && info.cards.length) {
      links.append("Carried by: ");
      info.cards.forEach((c, i) => {
        if (i) links.append(", ");
        links.append(el("a", { href: root() + "/catalog/" + c.ref, text: c.name || c.ref }));
      });
    } else if (info.kind === "card") {
      links.append("No lorebook");
    }
    if (info.kind === "card") {
      const picture = document.getElementById("item-picture");
      picture.src = `${root()}${API}/catalog/items/${info.ref}/picture`;
      picture.alt = "Picture of " + (info.name || info.ref);
      picture.hidden = false;
    }
    const body = document.querySelector("#history tbody");
    for (const m of info.migrations) {
      const fates = m.fates ? FATES.map((f) => `${m.fates[f]} ${f}`).join(", ") : "no report";
      const lost = el("td");
      if (m.lost.length) {
        const details = el("details", {}, el("summary", { text: `${m.lost.length} lost field${m.lost.length === 1 ? "" : "s"}` }));
        for (const l of m.lost) details.append(el("div", { class: "lost-item", text: `${l.path}: ${l.detail || ""}` }));
        lost.append(details);
      }
      const output = el("td");
      if (m.status === "done") {
        // The stored output lives on the server's disk; the link writes the same target from the catalog.
        if (m.output) output.append(m.output + " · ");
        output.append(el("a", { href: exportUrl(info.ref, m.target), class: "download-output", text: "download " + m.target }));
      } else {
        output.textContent = m.output || "";
      }
      body.append(el("tr", { class: "status-" + m.status },
        el("td", { text: m.target }),
        el("td", { text: m.status + (m.reason ? ": " + m.reason : "") }),
        output,
        el("td", { text: fates }),
        lost));
    }
    if (!info.migrations.length) body.append(el("tr", {}, el("td", { colspan: "5", text: "never migrated" })));
    const sources = document.getElementById("sources");
    for (const s of info.sources) sources.append(el("li", { text: `${s.path} (${s.format}, ${s.size} bytes)` }));
    if (Array.isArray(info.entries)) {
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

/* ---------------------------------------------------------------- validate and diff pages */

function initValidate() {
  const formNode = document.getElementById("validate");
  const error = document.getElementById("validate-error");
  const title = document.getElementById("validate-title");
  const table = document.getElementById("problems");
  formNode.addEventListener("submit", async (e) => {
    e.preventDefault();
    error.hidden = true;
    title.hidden = table.hidden = true; // no stale answer next to a new question
    const file = document.getElementById("validate-file").files[0];
    const strict = document.getElementById("validate-strict").checked;
    try {
      const data = await call("/validate?strict=" + strict, { method: "POST", body: form([["file", file]]) });
      title.textContent = `${data.file} (${data.format}): ` +
        (data.status === "invalid" ? "invalid" : data.problems.length ? "valid, with " + plural(data.problems.length, "remark") : "valid, no problems");
      title.hidden = false;
      const body = table.querySelector("tbody");
      body.replaceChildren();
      for (const p of data.problems) {
        body.append(el("tr", { class: "severity-" + p.severity },
          el("td", {}, el("span", { class: "badge " + (p.severity === "error" ? "lost" : "approximated"), text: p.severity })),
          el("td", { class: "path", text: p.path }), el("td", { text: p.message })));
      }
      table.hidden = !data.problems.length;
    } catch (err) {
      error.textContent = err.message;
      error.hidden = false;
    }
  });
}

function initDiff() {
  const formNode = document.getElementById("diff");
  const error = document.getElementById("diff-error");
  const title = document.getElementById("diff-title");
  const table = document.getElementById("differences");
  formNode.addEventListener("submit", async (e) => {
    e.preventDefault();
    error.hidden = true;
    title.hidden = table.hidden = true;
    const a = document.getElementById("diff-a").files[0];
    const b = document.getElementById("diff-b").files[0];
    try {
      const data = await call("/diff", { method: "POST", body: form([["a", a], ["b", b]]) });
      title.textContent = `${data.a.file} (${data.a.format}) and ${data.b.file} (${data.b.format}): ` +
        (data.identical ? "identical" : plural(data.count, "difference"));
      title.hidden = false;
      const body = table.querySelector("tbody");
      body.replaceChildren();
      const rows = [...data.sections];
      // Entries matched across the files (by id, keys or position), each change named by its entry.
      for (const entry of data.entries || []) {
        for (const change of entry.changes || []) {
          rows.push({ path: `${entry.label}: ${change.path}`, kind: change.kind, detail: change.detail || "" });
        }
      }
      for (const label of data.only_a || []) rows.push({ path: label, kind: "only in the first", detail: "" });
      for (const label of data.only_b || []) rows.push({ path: label, kind: "only in the second", detail: "" });
      for (const r of rows) {
        const cls = r.kind === "added" ? "diff-added" : r.kind === "removed" ? "diff-removed" : "";
        body.append(el("tr", { class: cls },
          el("td", { class: "path", text: r.path }), el("td", { text: r.kind }), el("td", { class: "prose", text: r.detail })));
      }
      table.hidden = !rows.length;
    } catch (err) {
      error.textContent = err.message;
      error.hidden = false;
    }
  });
}

/* ---------------------------------------------------------------- playground */

// "message 1 (0 = newest)" from the engine, in plain words.
function plainWhere(where) {
  const m = /^message (\d+) \(0 = newest\)$/.exec(where || "");
  if (!m) return where;
  const n = Number(m[1]);
  if (n === 0) return "in the newest message";
  if (n === 1) return "in the message before the newest";
  return `in the message ${n} before the newest`;
}

function initPlayground() {
  const formNode = document.getElementById("activate");
  const status = document.getElementById("play-status");
  const error = document.getElementById("play-error");
  const onlyDiff = document.getElementById("only-diff");
  const chat = document.getElementById("chat");
  const chatFile = document.getElementById("chat-file");
  onlyDiff.addEventListener("change", () => {
    for (const row of document.querySelectorAll("#side tbody tr")) row.hidden = onlyDiff.checked && !row.classList.contains("differs");
  });
  const source = document.getElementById("chat-source");
  // A dropped or opened chat file is sent as the file (its bytes and name: the server detects the
  // format, applies the size limit and names a line in another encoding, which the text shown
  // here, decoded by the browser, would hide); the box shows its text. Editing the box sends the text.
  let chatUpload = null;
  const setUpload = (file) => {
    chatUpload = file;
    source.textContent = file ? `${file.name} is sent as a file; edit the text to send the text instead` : "";
  };
  const readChat = async (file) => {
    if (!file) return;
    chat.value = await file.text();
    setUpload(file);
  };
  chat.addEventListener("input", () => setUpload(null));
  chatFile.addEventListener("change", () => { readChat(chatFile.files[0]).catch(showFatal); chatFile.value = ""; });
  chat.addEventListener("dragover", (e) => { e.preventDefault(); chat.classList.add("over"); });
  chat.addEventListener("dragleave", () => chat.classList.remove("over"));
  chat.addEventListener("drop", (e) => {
    if (!e.dataTransfer.files.length) return; // dropped text: the browser's default (insert it)
    e.preventDefault();
    chat.classList.remove("over");
    readChat(e.dataTransfer.files[0]).catch(showFatal);
  });
  formNode.addEventListener("submit", async (e) => {
    e.preventDefault();
    error.hidden = true;
    document.getElementById("play-result").hidden = true; // never show the last run's answer as this one's
    status.textContent = "running…";
    const fields = [["book", document.getElementById("book").files[0]],
      chatUpload ? ["chat", chatUpload] : ["chat_text", chat.value], ["seed", document.getElementById("seed").value]];
    for (const [id, name] of [["scan-depth", "scan_depth"], ["budget", "budget"]]) {
      const value = document.getElementById(id).value.trim();
      if (value) fields.push([name, value]);
    }
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
  head.replaceChildren(el("th", { scope: "col", text: "entry" }), ...data.platforms.map((p) => el("th", { scope: "col", text: p })));
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
      if (cell.where) why.push(plainWhere(cell.where));
      tr.append(el("td", { class: cell.fired ? "fired" : "quiet" },
        el("strong", { text: cell.fired ? "fires" : "does not fire" }), el("br"),
        el("span", { class: "why", text: why.join(" · ") + (cell.detail ? " — " + cell.detail : "") })));
    }
    body.append(tr);
  }
  const fired = data.platforms.map((p) => `${p}: ${data.results[p].activated.length} injected`).join(", ");
  const chatFormat = data.chat && data.chat.format ? ` (${data.chat.format})` : "";
  document.getElementById("play-title").textContent =
    `${data.books.join(", ")} over ${data.messages} messages${chatFormat} — ${fired}; ${data.differences} entr${data.differences === 1 ? "y differs" : "ies differ"}`;
  const injected = document.getElementById("injected");
  injected.replaceChildren();
  for (const p of data.platforms) {
    const result = data.results[p];
    const text = result.activated.map((a) => a.content).join("\n");
    const budget = result.budget ? ` of a ${result.budget}-token budget` : "";
    const details = el("details", { class: "injected" },
      el("summary", { text: `${p}: ${plural(result.activated.length, "entry", "entries")}, ${result.tokens_used} tokens${budget}` }),
      el("pre", { class: "prose", text: text || "(nothing injected)" }));
    details.dataset.platform = p;
    injected.append(details);
  }
  document.getElementById("play-result").hidden = false;
  document.getElementById("only-diff").dispatchEvent(new Event("change"));
}

function showFatal(e) {
  const main = document.querySelector("main");
  main.prepend(el("p", { class: "error", text: e.message }));
}

document.addEventListener("DOMContentLoaded", () => {
  const init = {
    convert: initConvert, catalog: initCatalog, item: initItem, playground: initPlayground,
    validate: initValidate, diff: initDiff,
  }[document.body.dataset.page];
  if (init) init();
});
