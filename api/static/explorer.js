// MotivGraph explorer. Every view has a URL (/explorer?q=…, /explorer/node/<key>, /explorer/paper/<id>),
// so back/forward, reload and shared links work; all data comes from the JSON API of this server.
"use strict";
const $ = (id) => document.getElementById(id);
const BASE = "/explorer";
let cy = null;
let lastQuery = null;
const paperTitles = new Map();

$("key").value = localStorage.getItem("motivgraph-key") || "";
$("key").addEventListener("change", () => localStorage.setItem("motivgraph-key", $("key").value));

function esc(s) { return String(s ?? "").replace(/[&<>"']/g, (c) => ({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;"}[c])); }
async function api(path, body) {
  const headers = {"Content-Type": "application/json"};
  if ($("key").value) headers["X-API-Key"] = $("key").value;
  const r = await fetch(path, body ? {method: "POST", headers, body: JSON.stringify(body)} : {headers});
  const data = await r.json().catch(() => ({message: r.statusText}));
  if (!r.ok) { const e = new Error(data.message || r.statusText); e.data = data; e.status = r.status; throw e; }
  return data;
}
const nodeUrl = (key) => `${BASE}/node/${encodeURIComponent(key)}`;
const paperUrl = (id) => `${BASE}/paper/${encodeURIComponent(id)}`;
function typeOf(n) { return n.type || (n.key || "").split(":")[0] || "node"; }
function node(n) {
  const t = typeOf(n);
  return `<span class="t ${esc(t)}">${esc(t[0].toUpperCase())}</span><a class="node" href="${esc(nodeUrl(n.key || n.name))}" data-nav>${esc(n.name)}</a>`;
}
function paper(id) {
  const title = paperTitles.get(id);
  return `<a class="paper" href="${esc(paperUrl(id))}" data-nav data-paper="${esc(id)}">${esc(title || id)}</a>`;
}
// Papers are shown by title: fetch the titles not seen yet, then fill every link still showing an id.
async function fillPaperTitles() {
  const ids = [...new Set([...document.querySelectorAll("a[data-paper]")].map((a) => a.dataset.paper))]
    .filter((id) => !paperTitles.has(id));
  await Promise.all(ids.map(async (id) => {
    try { const p = await api("/papers/" + encodeURIComponent(id)); paperTitles.set(id, p.paper.title || id); }
    catch (e) { paperTitles.set(id, id); }
  }));
  document.querySelectorAll("a[data-paper]").forEach((a) => { a.textContent = paperTitles.get(a.dataset.paper) || a.dataset.paper; });
}

function navigate(url) { history.pushState(null, "", url); render(); }
document.body.addEventListener("click", (ev) => {
  const a = ev.target.closest("a[data-nav]");
  if (!a || ev.ctrlKey || ev.metaKey || ev.shiftKey || ev.button !== 0) return;
  ev.preventDefault(); navigate(a.getAttribute("href"));
});
window.addEventListener("popstate", render);
$("search").addEventListener("submit", (ev) => {
  ev.preventDefault();
  const q = $("q").value.trim(); if (!q) return;
  const p = new URLSearchParams(location.search); p.set("q", q);
  if ($("qt").value) p.set("type", $("qt").value); else p.delete("type");
  p.set("min", $("qmin").value);
  navigate(location.pathname + "?" + p);
});

async function search(params) {
  const q = params.get("q"); const type = params.get("type") || ""; const min = parseFloat(params.get("min") ?? "0.25");
  $("q").value = q; $("qt").value = type; $("qmin").value = isNaN(min) ? 0.25 : min;
  const body = {query: q, k: 25};
  if (type) body.types = [type];
  if (!isNaN(min)) body.min_score = Math.max(-1, Math.min(1, min));
  $("hits").innerHTML = '<p class="muted">searching…</p>';
  try {
    const res = await api("/tools/node_search", body);
    const stale = res.index_stale ? '<p class="err">index is stale: run motivgraph reindex</p>' : "";
    $("hits").innerHTML = stale + (res.hits.map((h) => `<div class="hit">${node(h)} <span class="muted">${h.score.toFixed(3)}</span><div class="desc">${esc(h.description)}</div></div>`).join("") ||
      `<p class="empty" id="no-hits">No node is similar enough to “${esc(q)}” (minimum ${esc(body.min_score)}). Try other words or lower the minimum.</p>`);
  } catch (e) { $("hits").innerHTML = `<p class="err">${esc(e.message)}</p>`; }
}

function list(title, items) {
  if (!items || !items.length) return "";
  return `<h4>${title} (${items.length})</h4>` + items.map((n) => `<div>${node(n)}</div>`).join("");
}
function triplesTable(rows, empty) {
  $("triples").tBodies[0].innerHTML = rows.map((t) =>
    `<tr><td>${node(t.problem)}</td><td>${node(t.challenge)}</td><td>${node(t.solution)}</td><td>${(t.papers || []).map(paper).join("<br>")}</td></tr>`).join("");
  $("triples").hidden = !rows.length;
  $("triples-empty").hidden = !!rows.length;
  $("triples-empty").textContent = empty;
  fillPaperTitles();
}
// Up the parent hierarchy (first parent each step) for the breadcrumbs; bounded, and stops on a cycle.
async function ancestors(d) {
  const chain = []; const seen = new Set([d.node.key]); let cur = d;
  while (cur.parents && cur.parents.length && chain.length < 6) {
    const p = cur.parents[0]; if (seen.has(p.key)) break;
    seen.add(p.key); chain.unshift(p);
    try { cur = await api("/nodes/" + encodeURIComponent(p.key)); } catch (e) { break; }
  }
  return chain;
}
const STYLE = [
  {selector: "node", style: {label: "data(label)", "font-size": 9, "text-wrap": "wrap", "text-max-width": 110, width: 18, height: 18, "background-color": "#7b8794"}},
  {selector: "node.problem", style: {"background-color": "#c0392b"}},
  {selector: "node.challenge", style: {"background-color": "#d68910"}},
  {selector: "node.solution", style: {"background-color": "#1e8449"}},
  {selector: "node.centre", style: {width: 30, height: 30, "border-width": 3, "border-color": "#243b53", "font-weight": "bold"}},
  {selector: "edge", style: {width: 1.5, "line-color": "#bcccdc", "target-arrow-color": "#bcccdc", "target-arrow-shape": "triangle", "curve-style": "bezier", label: "data(label)", "font-size": 7, color: "#829ab1"}},
];
function drawGraph(nodes, edges) {
  if (cy) { cy.destroy(); cy = null; }
  const box = $("graph");
  if (typeof cytoscape !== "function" || !nodes.length) { box.hidden = true; return; }
  box.hidden = false;
  cy = cytoscape({
    container: box, style: STYLE, wheelSensitivity: 0.3,
    elements: [...nodes.map((n) => ({data: {id: n.id, label: n.label}, classes: n.classes})),
               ...edges.map((e, i) => ({data: {id: "e" + i, source: e.source, target: e.target, label: e.label || ""}}))],
    layout: {name: "cose", animate: false, nodeRepulsion: 8000, padding: 20},
  });
  cy.on("tap", "node", (ev) => { const id = ev.target.id(); if (!ev.target.hasClass("centre")) navigate(nodeUrl(id)); });
}
function nodeGraph(d) {
  const c = d.node; const nodes = new Map([[c.key, {id: c.key, label: c.name, classes: typeOf(c) + " centre"}]]);
  const edges = [];
  const add = (n, rel, outward) => {
    if (!nodes.has(n.key)) nodes.set(n.key, {id: n.key, label: n.name, classes: typeOf(n)});
    edges.push(outward ? {source: c.key, target: n.key, label: rel} : {source: n.key, target: c.key, label: rel});
  };
  d.parents.forEach((n) => add(n, "parent of", false));
  d.children.forEach((n) => add(n, "parent of", true));
  d.problems.forEach((n) => add(n, "", false));
  d.challenges.forEach((n) => add(n, "", typeOf(c) === "problem"));
  d.solutions.forEach((n) => add(n, "", true));
  drawGraph([...nodes.values()].slice(0, 80), edges.filter((e) => nodes.has(e.source) && nodes.has(e.target)));
}

async function showNode(key) {
  $("detail").innerHTML = '<p class="muted">loading…</p>'; $("detail-lists").innerHTML = "";
  let d;
  try { d = await api("/nodes/" + encodeURIComponent(key)); }
  catch (e) {
    const s = (e.data && e.data.suggestions) || [];
    $("detail").innerHTML = `<p class="err" id="not-found">${esc(e.message)}</p>` +
      (s.length ? "<p>Did you mean:</p>" + s.map((n) => `<div><a href="${esc(nodeUrl(n))}" data-nav>${esc(n)}</a></div>`).join("") : "");
    drawGraph([], []); triplesTable([], ""); $("triples-empty").hidden = true; return;
  }
  document.title = `${d.node.name} · MotivGraph explorer`;
  const chain = await ancestors(d);
  $("detail").innerHTML = `<nav class="crumbs" id="crumbs"><a href="${BASE}" data-nav>home</a>` +
    chain.map((p) => `<a href="${esc(nodeUrl(p.key))}" data-nav>${esc(p.name)}</a>`).join("") + `<span>${esc(d.node.name)}</span></nav>` +
    `<h2 id="node-title">${node(d.node)}</h2><p>${esc(d.node.description) || '<span class="empty">no description</span>'}</p>` +
    (d.aliases.length ? `<p class="muted">also: ${d.aliases.map(esc).join("; ")}</p>` : "");
  nodeGraph(d);
  $("detail-lists").innerHTML = list("Parents", d.parents) + list("Children", d.children) + list("Problems", d.problems) +
    list("Challenges", d.challenges) + list("Solutions", d.solutions) +
    (d.papers.length ? `<h4>Papers (${d.papers.length})</h4>` + d.papers.map((p) => { paperTitles.set(p.paper_id, p.title || p.paper_id); return `<div>${paper(p.paper_id)} <span class="muted">${esc(p.year ?? "")}</span></div>`; }).join("") : "") +
    (d.truncated ? '<p class="muted">lists cut at their limits</p>' : "");
  const empty = d.node.level > 0
    ? `No triple states this node directly: it is a parent node grouping ${d.children.length} more specific ${esc(typeOf(d.node))}s — open one of its children to see their triples.`
    : "No problem → challenge → solution triple passes through this node.";
  $("triples-title").textContent = `Triples through this node (${d.triples.length})`;
  triplesTable(d.triples, empty);
}

async function showPaper(id) {
  $("detail").innerHTML = '<p class="muted">loading…</p>'; $("detail-lists").innerHTML = "";
  let v;
  try { v = await api("/papers/" + encodeURIComponent(id)); }
  catch (e) { $("detail").innerHTML = `<p class="err" id="not-found">${esc(e.message)}</p>`; drawGraph([], []); triplesTable([], ""); $("triples-empty").hidden = true; return; }
  const p = v.paper; paperTitles.set(p.paper_id, p.title || p.paper_id);
  document.title = `${p.title || p.paper_id} · MotivGraph explorer`;
  $("detail").innerHTML = `<nav class="crumbs"><a href="${BASE}" data-nav>home</a><span>paper</span></nav>` +
    `<h2 id="paper-title">${esc(p.title || p.paper_id)}</h2>` +
    `<p id="paper-meta">${esc((p.authors || []).join(", ") || "authors unknown")} · ${esc(p.year ?? "year unknown")}${p.venue ? " · " + esc(p.venue) : ""} · <span class="muted">${esc(p.paper_id)}</span></p>` +
    (p.abstract ? `<p class="desc">${esc(p.abstract)}</p>` : "");
  const rows = v.triples.map((t) => ({problem: {name: t.problem, key: "problem:" + t.problem, type: "problem"},
    challenge: {name: t.challenge, key: "challenge:" + t.challenge, type: "challenge"},
    solution: {name: t.solution, key: "solution:" + t.solution, type: "solution"}, papers: []}));
  // node pages resolve names too, so the links use names (the paper view carries names, not keys)
  rows.forEach((r) => { for (const k of ["problem", "challenge", "solution"]) r[k].key = r[k].name; });
  const nodes = new Map(); const edges = [];
  v.triples.forEach((t) => {
    [["problem", t.problem], ["challenge", t.challenge], ["solution", t.solution]].forEach(([ty, n]) => { if (!nodes.has(n)) nodes.set(n, {id: n, label: n, classes: ty}); });
    edges.push({source: t.problem, target: t.challenge}, {source: t.challenge, target: t.solution});
  });
  drawGraph([...nodes.values()], edges);
  $("triples-title").textContent = `Triples this paper states (${rows.length})`;
  triplesTable(rows, "No triple was mined from this paper.");
}

let cursor = null;
async function browseTriples(reset) {
  if (reset) { cursor = null; $("triples").tBodies[0].innerHTML = ""; }
  const p = new URLSearchParams({limit: "50"});
  for (const [id, name] of [["fp", "problem"], ["fc", "challenge"], ["fs", "solution"], ["fpa", "paper"]]) {
    if ($(id).value.trim()) p.set(name, $(id).value.trim());
  }
  if (cursor) p.set("cursor", cursor);
  try {
    const page = await api("/triples?" + p);
    $("triples").tBodies[0].insertAdjacentHTML("beforeend", page.items.map((t) =>
      `<tr><td>${node(t.problem)}</td><td>${node(t.challenge)}</td><td>${node(t.solution)}</td><td>${t.papers.map(paper).join("<br>")}</td></tr>`).join(""));
    cursor = page.next_cursor; $("tmore").disabled = !cursor;
    const none = !$("triples").tBodies[0].rows.length;
    $("triples").hidden = none; $("triples-empty").hidden = !none;
    $("triples-empty").textContent = "No triple matches these filters.";
    fillPaperTitles();
  } catch (e) { $("triples").tBodies[0].innerHTML = `<tr><td colspan=4 class="err">${esc(e.message)}</td></tr>`; }
}
$("tgo").onclick = () => browseTriples(true); $("tmore").onclick = () => browseTriples(false);

async function render() {
  const path = decodeURIComponent(location.pathname.replace(/\/+$/, ""));
  const params = new URLSearchParams(location.search);
  const q = params.get("q");
  if (q && q !== lastQuery) { lastQuery = q; search(params); }
  else if (!q) { lastQuery = null; $("hits").innerHTML = '<p class="muted">Type what interests you and press Search.</p>'; $("q").value = ""; }
  const onHome = !path.startsWith(BASE + "/");
  $("triple-filters").hidden = !onHome;
  if (path.startsWith(BASE + "/node/")) return showNode(path.slice((BASE + "/node/").length));
  if (path.startsWith(BASE + "/paper/")) return showPaper(path.slice((BASE + "/paper/").length));
  document.title = "MotivGraph explorer";
  drawGraph([], []);
  $("detail").innerHTML = '<p class="muted">Search, then pick a node; or browse the triples below.</p>';
  $("detail-lists").innerHTML = ""; $("triples-title").textContent = "Triples";
  browseTriples(true);
}
fetch("/health").then((r) => r.json()).then((h) => { $("health").textContent = `graph ${h.graph.ok ? "ok" : "down"} · index ${h.index_stale ? "stale" : (h.index.ok ? "ok" : "unavailable")}`; }).catch(() => {});
render();
