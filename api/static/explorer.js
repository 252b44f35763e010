// MotivGraph explorer. Every view has a URL (/explorer?q=…, /explorer/node/<key>, /explorer/paper/<id>),
// so back/forward, reload and shared links work; all data comes from the JSON API of this server.
"use strict";
const $ = (id) => document.getElementById(id);
const BASE = "/explorer";
let cy = null;
let lastQuery = null;
const paperTitles = new Map();

// The API key lives in the server's HttpOnly cookie, as on /docs: the page never stores it (no localStorage) and its
// script cannot read it back. A typed key is sent once to /explorer/login, which sets the cookie; every request
// after that carries it. A 401 asks for the key; the request that got it is sent again once the key is in.
localStorage.removeItem("motivgraph-key");  // what earlier versions kept there
let needKey = false;
async function login() {
  const key = $("key").value; if (!key) return false;
  $("key").value = "";
  const r = await fetch("/explorer/login", {method: "POST", headers: {"X-API-Key": key}, credentials: "same-origin"});
  needKey = !r.ok;
  $("key").placeholder = r.ok ? "(key set)" : "wrong key, try again";
  return r.ok;
}
$("key").addEventListener("keydown", (ev) => { if (ev.key === "Enter") { ev.preventDefault(); login().then((ok) => { if (ok) rerender(); }); } });

function esc(s) { return String(s ?? "").replace(/[&<>"']/g, (c) => ({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;"}[c])); }
async function api(path, body) {
  const headers = {"Content-Type": "application/json"};
  const r = await fetch(path, {credentials: "same-origin", ...(body ? {method: "POST", headers, body: JSON.stringify(body)} : {headers})});
  const data = await r.json().catch(() => ({message: r.statusText}));
  if (r.status === 401) { needKey = true; $("key").placeholder = "API key needed"; $("key").focus(); }
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
// Evidence (#39): the quotes of the papers that state a node or a triple, each with its paper, section and page,
// and whether the miner located it in the paper's text (an unlocated quote shows why).
function quote(q, withElement) {
  if (q.title) paperTitles.set(q.paper_id, q.title);
  const where = [q.section ? esc(q.section) : "", q.page ? "p. " + esc(q.page) : ""].filter(Boolean).join(" · ");
  const mark = q.verified ? '<span class="ok" title="located in the paper">✓ located</span>'
    : `<span class="err" title="not located in the paper">✗ ${esc(q.reason || "not located")}</span>`;
  return `<blockquote class="quote ${q.verified ? "verified" : "unverified"}">` +
    (withElement ? `<span class="t ${esc(q.element)}">${esc(q.element[0].toUpperCase())}</span>` : "") +
    `“${esc(q.text)}”<cite>${paper(q.paper_id)}${q.year ? " " + esc(q.year) : ""}${where ? " · " + where : ""} · ${mark}</cite></blockquote>`;
}
function quotes(list, withElement) { return (list || []).map((q) => quote(q, withElement)).join(""); }
function tripleRow(t) {
  return `<tr><td>${node(t.problem)}</td><td>${node(t.challenge)}</td><td>${node(t.solution)}</td>` +
    `<td>${(t.papers || []).map(paper).join("<br>")}${t.evidence && t.evidence.length ? `<div class="quotes">${quotes(t.evidence, true)}</div>` : ""}</td></tr>`;
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

// The search (q, type, min) stays in the URL of the views opened from the page, so the hit list stays beside
// the node or paper it led to (and comes back with reload and back/forward); the header link starts afresh.
const SEARCH_PARAMS = ["q", "type", "min"];
function withSearch(url) {
  const u = new URL(url, location.origin);
  if (u.search) return u.pathname + u.search;
  const cur = new URLSearchParams(location.search); const keep = new URLSearchParams();
  SEARCH_PARAMS.forEach((k) => { if (cur.has(k)) keep.set(k, cur.get(k)); });
  return u.pathname + (keep.toString() ? "?" + keep : "");
}
function navigate(url, keepSearch = true) { history.pushState(null, "", keepSearch ? withSearch(url) : url); render(); }
document.body.addEventListener("click", (ev) => {
  const a = ev.target.closest("a[data-nav]");
  if (!a || ev.ctrlKey || ev.metaKey || ev.shiftKey || ev.button !== 0) return;
  ev.preventDefault(); navigate(a.getAttribute("href"), !a.hasAttribute("data-fresh"));
});
function markCurrentHit() {
  const here = decodeURIComponent(location.pathname);
  document.querySelectorAll("#hits .hit").forEach((h) => {
    const a = h.querySelector("a[data-nav]");
    h.classList.toggle("current", !!a && decodeURIComponent(a.getAttribute("href")) === here);
  });
}
window.addEventListener("popstate", render);
function rerender() { lastQuery = null; render(); }  // everything shown again, the search too (after a login)
$("search").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  // a key typed in the field goes in first; then the same search is sent again even when the URL does not change
  if ($("key").value && !(await login())) return;
  const q = $("q").value.trim(); if (!q) { rerender(); return; }
  const p = new URLSearchParams(location.search); p.set("q", q);
  if ($("qt").value) p.set("type", $("qt").value); else p.delete("type");
  p.set("min", $("qmin").value);
  const url = location.pathname + "?" + p;
  lastQuery = null;  // Search always sends the search, also when the URL stays the same (e.g. after a 401)
  if (url === location.pathname + location.search) render(); else navigate(url);
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
    markCurrentHit();
  } catch (e) { $("hits").innerHTML = `<p class="err">${esc(e.message)}</p>`; }
}

function list(title, items) {
  if (!items || !items.length) return "";
  return `<h4>${title} (${items.length})</h4>` + items.map((n) => `<div>${node(n)}</div>`).join("");
}
function triplesTable(rows, empty) {
  $("triples").tBodies[0].innerHTML = rows.map(tripleRow).join("");
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
  // labels under their node, on a background so the edges running behind them do not cross the text
  {selector: "node", style: {label: "data(label)", "font-size": 9, "text-wrap": "wrap", "text-max-width": 110,
    "text-valign": "bottom", "text-margin-y": 3, "text-background-color": "#fbfcfd", "text-background-opacity": 0.85,
    "text-background-padding": 1, width: 18, height: 18, "background-color": "#7b8794"}},
  {selector: "node.problem", style: {"background-color": "#c0392b"}},
  {selector: "node.challenge", style: {"background-color": "#d68910"}},
  {selector: "node.solution", style: {"background-color": "#1e8449"}},
  {selector: "node.centre", style: {width: 30, height: 30, "border-width": 3, "border-color": "#243b53", "font-weight": "bold"}},
  {selector: "edge", style: {width: 1.5, "line-color": "#bcccdc", "target-arrow-color": "#bcccdc", "target-arrow-shape": "triangle", "curve-style": "bezier"}},
  {selector: "edge.parent", style: {"line-style": "dashed", "line-color": "#9fb3c8", "target-arrow-color": "#9fb3c8"}},
];
// Layered layout: one column per step of problem → challenge → solution (a node's parents above it and its
// children below it in its own column), each column's rows stacked by the node's measured size including its
// wrapped label, so no two labels overlap whatever their length. A force-directed layout places node centres
// only, and its long labels collided. Columns longer than MAX_ROWS continue in a next column.
const COL = {problem: 0, challenge: 1, solution: 2};
const GAP_X = 40, GAP_Y = 8, MAX_ROWS = 8, MAX_FIT_ZOOM = 1.4;
function layered(cy) {
  const byRank = new Map();
  cy.nodes().forEach((n) => { const r = n.data("col"); if (!byRank.has(r)) byRank.set(r, []); byRank.get(r).push(n); });
  const row = new Map(); const columns = [];
  [...byRank.keys()].sort((a, b) => a - b).forEach((r) => {
    // within a column: parents, the rest, children; the rest by the mean row of their neighbours in earlier
    // columns (fewer crossing edges), then by label so the drawing is the same on every load
    const bary = (n) => {
      const rows = n.neighborhood("node").filter((m) => row.has(m.id())).map((m) => row.get(m.id()));
      return rows.length ? rows.reduce((a, b) => a + b, 0) / rows.length : 0;
    };
    const members = byRank.get(r).map((n) => ({n, tier: n.data("tier") || 0, b: bary(n), label: String(n.data("label"))}));
    members.sort((a, b) => a.tier - b.tier || a.b - b.b || a.label.localeCompare(b.label));
    members.forEach((m, i) => row.set(m.n.id(), i));
    for (let i = 0; i < members.length; i += MAX_ROWS) columns.push(members.slice(i, i + MAX_ROWS).map((m) => m.n));
  });
  const positions = {}; let x = 0;
  columns.forEach((col, ci) => {
    const ext = col.map((n) => {
      const p = n.position(); const bb = n.boundingBox({includeLabels: true, includeOverlays: false});
      return {n, left: p.x - bb.x1, right: bb.x2 - p.x, top: p.y - bb.y1, bottom: bb.y2 - p.y};
    });
    const left = Math.max(...ext.map((e) => e.left)); const right = Math.max(...ext.map((e) => e.right));
    if (ci) x += left + GAP_X;
    const height = ext.reduce((h, e) => h + e.top + e.bottom, 0) + GAP_Y * (ext.length - 1);
    let y = -height / 2;
    ext.forEach((e) => { y += e.top; positions[e.n.id()] = {x, y}; y += e.bottom + GAP_Y; });
    x += right;
  });
  cy.layout({name: "preset", positions, fit: true, padding: 15}).run();
  if (cy.zoom() > MAX_FIT_ZOOM) { cy.zoom(MAX_FIT_ZOOM); cy.center(); }  // a small graph is not blown up
}
function drawGraph(nodes, edges) {
  if (cy) { cy.destroy(); cy = null; }
  const box = $("graph");
  if (typeof cytoscape !== "function" || !nodes.length) { box.hidden = true; $("legend").hidden = true; return; }
  box.hidden = false; $("legend").hidden = false;
  cy = cytoscape({
    container: box, style: STYLE, wheelSensitivity: 0.3,
    elements: [...nodes.map((n) => ({data: {id: n.id, label: n.label, col: n.col, tier: n.tier || 0}, classes: n.classes})),
               ...edges.map((e, i) => ({data: {id: "e" + i, source: e.source, target: e.target}, classes: e.classes || ""}))],
    layout: {name: "preset"},
  });
  layered(cy);
  cy.on("tap", "node", (ev) => { const id = ev.target.id(); if (!ev.target.hasClass("centre")) navigate(nodeUrl(id)); });
}
// The node's graph draws every triple through it as its path problem → challenge → solution, so each solution
// hangs off the challenge it answers (a solution answering two challenges shows both); a problem and a solution
// are never joined directly. Parents and children of the node join it by dashed arrows.
function nodeGraph(d) {
  const c = d.node; const ct = typeOf(c);
  const nodes = new Map([[c.key, {id: c.key, label: c.name, classes: ct + " centre", col: COL[ct] ?? 0}]]);
  const edges = new Map();
  const addNode = (n, tier) => {
    if (!nodes.has(n.key)) nodes.set(n.key, {id: n.key, label: n.name, classes: typeOf(n), col: COL[typeOf(n)] ?? 0, tier});
  };
  const addEdge = (source, target, classes) => { if (!edges.has(source + "\n" + target)) edges.set(source + "\n" + target, {source, target, classes}); };
  d.parents.forEach((n) => { addNode(n, -1); addEdge(n.key, c.key, "parent"); });
  d.children.forEach((n) => { addNode(n, 1); addEdge(c.key, n.key, "parent"); });
  d.triples.forEach((t) => {
    [t.problem, t.challenge, t.solution].forEach((n) => addNode(n, 0));
    addEdge(t.problem.key, t.challenge.key); addEdge(t.challenge.key, t.solution.key);
  });
  // neighbours whose triples were cut at the list limit: only the direct steps (problem–challenge,
  // challenge–solution); a problem's solutions and a solution's problems need their challenge, so they stay out
  if (ct === "challenge") {
    d.problems.forEach((n) => { addNode(n, 0); addEdge(n.key, c.key); });
    d.solutions.forEach((n) => { addNode(n, 0); addEdge(c.key, n.key); });
  } else if (ct === "problem") d.challenges.forEach((n) => { addNode(n, 0); addEdge(c.key, n.key); });
  else if (ct === "solution") d.challenges.forEach((n) => { addNode(n, 0); addEdge(n.key, c.key); });
  const shown = [...nodes.values()].slice(0, 80); const ids = new Set(shown.map((n) => n.id));
  drawGraph(shown, [...edges.values()].filter((e) => ids.has(e.source) && ids.has(e.target)));
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
    (d.aliases.length ? `<p class="muted">also: ${d.aliases.map(esc).join("; ")}</p>` : "") +
    `<div id="evidence"><h4>Evidence (${d.evidence.length})</h4>` +
    (d.evidence.length ? quotes(d.evidence, false) : '<p class="empty">no quote of a paper is stored for this node</p>') + "</div>";
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
    solution: {name: t.solution, key: "solution:" + t.solution, type: "solution"}, papers: [], evidence: t.evidence || []}));
  // node pages resolve names too, so the links use names (the paper view carries names, not keys)
  rows.forEach((r) => { for (const k of ["problem", "challenge", "solution"]) r[k].key = r[k].name; });
  const nodes = new Map(); const edges = new Map();
  v.triples.forEach((t) => {
    [["problem", t.problem], ["challenge", t.challenge], ["solution", t.solution]].forEach(([ty, n]) => { if (!nodes.has(n)) nodes.set(n, {id: n, label: n, classes: ty, col: COL[ty]}); });
    for (const [source, target] of [[t.problem, t.challenge], [t.challenge, t.solution]]) edges.set(source + "\n" + target, {source, target});
  });
  drawGraph([...nodes.values()], [...edges.values()]);
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
    $("triples").tBodies[0].insertAdjacentHTML("beforeend", page.items.map(tripleRow).join(""));
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
  markCurrentHit();
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
