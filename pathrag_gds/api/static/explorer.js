// pathrag_gds path explorer: asks /v1/query with stream: true, draws the ranked paths (Cytoscape.js)
// and lists them with their score parts, words and source passages. No build step, no inline code.
"use strict";

(() => {
  const TOKEN_KEY = "pathrag_gds.token";
  const PALETTE = ["#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1",
    "#ff9da7", "#9c755f", "#86bcb6", "#8cd17d", "#d37295"];
  const TITLES = {
    0: "Cannot reach the server",
    401: "This server needs a token",
    403: "Not allowed",
    404: "Not found",
    413: "Question too long",
    422: "The server refused the request",
    429: "The server is busy",
    500: "Server error",
    503: "The service is unavailable",
    504: "The search took too long",
  };
  // the status of an error that arrives as an SSE `error` event (the stream itself answered 200)
  const CODE_STATUS = { invalid_request: 422, invalid_input: 422, community_not_found: 404, busy: 429,
    database_unavailable: 503, schema_error: 503, model_unavailable: 503, timeout: 504, internal_error: 500 };

  const $ = (id) => document.getElementById(id);
  const view = { cy: null, paths: [], nodes: new Map(), answerId: null, controller: null };

  class ApiError extends Error {
    constructor(status, code, message) {
      super(message);
      this.status = status;
      this.code = code;
    }
  }

  // --- the API --------------------------------------------------------------------------------

  function authHeaders() {
    const token = sessionStorage.getItem(TOKEN_KEY);
    return token ? { Authorization: `Bearer ${token}` } : {};
  }

  async function errorOf(resp) {
    let code = "http_error";
    let message = `${resp.status} ${resp.statusText}`;
    try {
      const body = await resp.json();
      if (body && body.error) ({ code, message } = body.error);
    } catch (_) { /* not JSON: keep the status line */ }
    return new ApiError(resp.status, code, message);
  }

  async function call(path, init = {}) {
    let resp;
    try {
      resp = await fetch(path, { ...init, headers: { ...authHeaders(), ...(init.headers || {}) } });
    } catch (exc) {
      if (exc.name === "AbortError") throw exc;
      throw new ApiError(0, "network", "the server did not answer: is `python -m pathrag_gds serve` running?");
    }
    if (!resp.ok) throw await errorOf(resp);
    return resp;
  }

  // Server-Sent Events from a fetch body: yields [event, data] pairs.
  async function* sseEvents(resp) {
    const reader = resp.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += value;
      let end;
      while ((end = buffer.indexOf("\n\n")) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        let event = "message";
        const data = [];
        for (const line of block.split(/\r\n|\r|\n/)) {
          if (line.startsWith("event:")) event = line.slice(6).trim();
          else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
        }
        if (data.length) yield [event, JSON.parse(data.join("\n"))];
      }
    }
  }

  // --- messages -------------------------------------------------------------------------------

  function showError(err) {
    const status = err.status || CODE_STATUS[err.code] || 0;
    $("error-title").textContent = `${TITLES[status] || "Error"}${status ? ` (${status})` : ""}:`;
    $("error-message").textContent = err.message;
    $("error").hidden = false;
    if (status === 401 || status === 403) {
      sessionStorage.removeItem(TOKEN_KEY);
      $("forget-token").hidden = true;
      $("token-panel").hidden = false;
      $("token").focus();
    }
  }

  function clearError() {
    $("error").hidden = true;
  }

  function setStatus(state, text) {
    const el = $("status");
    el.dataset.state = state;
    el.textContent = text;
  }

  // --- server info: communities and limits ------------------------------------------------------

  async function loadInfo() {
    $("forget-token").hidden = !sessionStorage.getItem(TOKEN_KEY);
    try {
      const info = await (await call("/v1/info")).json();
      clearError();
      $("token-panel").hidden = true;
      const list = $("communities");
      list.replaceChildren();
      for (const c of info.graph.communities) {
        const opt = document.createElement("option");
        opt.value = c.id;
        opt.label = `${c.size ?? "?"} entities`;
        list.append(opt);
      }
      const ids = info.graph.communities.map((c) => c.id);
      if (!$("community").value && ids.length) $("community").value = ids[0];
      $("hop-depth").max = info.limits.max_hop_depth;
      $("top-n").max = info.limits.max_top_n;
      $("hop-depth").min = $("top-n").min = 1;
      $("server").textContent = `${info.graph.entities} entities in ${ids.length} ` +
        (ids.length === 1 ? "community" : "communities");
    } catch (err) {
      showError(err);
    }
  }

  // --- asking -----------------------------------------------------------------------------------

  function request() {
    const body = { question: $("question").value, mode: $("mode").value, stream: true };
    const community = $("community").value.trim();
    if (community) body.community_id = community;
    const depth = $("hop-depth").valueAsNumber;
    const topN = $("top-n").valueAsNumber;
    if (!Number.isNaN(depth) && body.mode !== "naive") body.hop_depth = depth;
    if (!Number.isNaN(topN)) body.top_n = topN;
    return body;
  }

  async function ask(ev) {
    ev.preventDefault();
    if (view.controller) view.controller.abort();
    const controller = (view.controller = new AbortController());
    clearError();
    clearResults();
    const status = $("status");
    delete status.dataset.firstPathMs;
    delete status.dataset.totalMs;
    setStatus("asking", "asking…");
    const t0 = performance.now();
    try {
      const resp = await call("/v1/query", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify(request()),
        signal: controller.signal,
      });
      for await (const [event, data] of sseEvents(resp)) {
        const ms = Math.round(performance.now() - t0);
        if (event === "depth") {
          onDepth(data, ms);
        } else if (event === "paths") {  // the answer model writes next (docs/http-api.md)
          render(data.paths, null);
          $("answer").textContent = "";
          $("answer-line").hidden = false;
          setStatus("streaming", "paths found; the answer model is writing…");
        } else if (event === "answer_token") {
          $("answer").textContent += data.token;
        } else if (event === "answer") {  // the answer once written, or the extractive one
          $("answer").textContent = data.answer ?? "(none)";
        } else if (event === "result") {
          onResult(data, ms);
          return;
        } else if (event === "error") {
          throw new ApiError(0, data.error.code, data.error.message);
        }
      }
      throw new ApiError(0, "stream_ended", "the answer stream ended before its result: ask again");
    } catch (err) {
      if (err.name === "AbortError") return;
      setStatus("error", "no answer");
      showError(err);
    } finally {
      if (view.controller === controller) view.controller = null;
    }
  }

  function onDepth(event, ms) {
    const li = document.createElement("li");
    li.textContent = `depth ${event.depth}: ${event.paths.length} paths · ${ms} ms`;
    $("depths").append(li);
    if (event.paths.length && !$("status").dataset.firstPathMs) $("status").dataset.firstPathMs = ms;
    setStatus("streaming", `depth ${event.depth} scored; searching deeper…`);
    render(event.paths, null);
  }

  function onResult(result, ms) {
    const best = result.answers.length ? result.answers[0] : null;
    $("answer").textContent = result.answer ?? "(none)";
    $("answer-line").hidden = false;
    render(result.paths, best ? best.id : null);
    $("status").dataset.totalMs = ms;
    const stages = Object.entries(result.timings_ms).map(([k, v]) => `${k} ${Math.round(v)}`).join(", ");
    setStatus("done", `${result.paths.length} paths in ${ms} ms · ${result.round_trips} round trips · ` +
      `scorer ${result.scorer} · server ms: ${stages}`);
  }

  // --- drawing ------------------------------------------------------------------------------------

  function colorOf(type) {
    let h = 0;
    for (const c of type) h = (h * 31 + c.charCodeAt(0)) >>> 0;
    return PALETTE[h % PALETTE.length];
  }

  const typeOf = (node) => node.labels[0] || "Entity";

  function clearResults() {
    view.paths = [];
    view.nodes.clear();
    view.answerId = null;
    if (view.cy) view.cy.destroy();
    view.cy = null;
    for (const id of ["depths", "paths", "legend", "node-attrs"]) $(id).replaceChildren();
    for (const id of ["answer-line", "node-panel"]) $(id).hidden = true;
    const graph = $("graph");
    for (const key of Object.keys(graph.dataset)) delete graph.dataset[key];
  }

  function elementsOf(paths, answerId) {
    const nodes = new Map();
    const edges = new Map();
    for (const p of paths) {
      for (const n of p.nodes) {
        view.nodes.set(n.id, n);
        if (!nodes.has(n.id)) {
          nodes.set(n.id, { group: "nodes", classes: n.id === answerId ? "answer" : "",
            data: { id: `n:${n.id}`, label: n.name, color: colorOf(typeOf(n)) } });
        }
      }
      for (const e of p.edges) {
        const id = `e:${e.source}|${e.type}|${e.target}`;
        if (!edges.has(id)) {
          edges.set(id, { group: "edges", data: { id, source: `n:${e.source}`, target: `n:${e.target}`, label: e.type } });
        }
      }
    }
    return [...nodes.values(), ...edges.values()];
  }

  const STYLE = [
    { selector: "node", style: { "background-color": "data(color)", label: "data(label)", "font-size": 11,
      "text-valign": "bottom", "text-margin-y": 4, width: 26, height: 26, "border-width": 1, "border-color": "#fff" } },
    { selector: "edge", style: { width: 1.6, "line-color": "#9aa5b4", "target-arrow-color": "#9aa5b4",
      "target-arrow-shape": "triangle", "curve-style": "bezier", label: "data(label)", "font-size": 9,
      color: "#5d6776", "text-rotation": "autorotate", "text-background-color": "#fff", "text-background-opacity": 0.8 } },
    { selector: "node.answer", style: { width: 38, height: 38, "border-width": 5, "border-color": "#d49a00",
      "font-weight": "bold", "font-size": 13 } },
    { selector: "edge.on-path", style: { "line-color": "#2f6fde", "target-arrow-color": "#2f6fde", width: 3 } },
    { selector: "node.on-path", style: { "border-color": "#2f6fde", "border-width": 3 } },
    { selector: "node.answer.on-path", style: { "border-color": "#d49a00", "border-width": 5 } },
    { selector: ".faded", style: { opacity: 0.35 } },
  ];

  function render(paths, answerId) {
    view.paths = paths;
    view.answerId = answerId;
    if (view.cy) view.cy.destroy();
    const container = $("graph");
    const elements = elementsOf(paths, answerId);
    const cy = (view.cy = cytoscape({ container, elements, style: STYLE, minZoom: 0.2, maxZoom: 1.6,
      layout: { name: "preset" } }));
    // the answer at the top (the paths fan out from it), else the seeds the paths start from
    const rootIds = answerId ? [answerId] : paths.filter((p) => p.nodes.length).map((p) => p.nodes[0].id);
    const roots = cy.collection(rootIds.map((id) => cy.getElementById(`n:${id}`)));
    cy.layout({ name: "breadthfirst", directed: false, roots, spacingFactor: 1.75, padding: 24, animate: false }).run();
    view.cy.on("tap", "node", (e) => showNode(e.target.id().slice(2)));
    container.dataset.nodes = view.cy.nodes().length;
    container.dataset.edges = view.cy.edges().length;
    if (answerId) {
      const pos = view.cy.getElementById(`n:${answerId}`).renderedPosition();
      container.dataset.answer = view.nodes.get(answerId).name;
      container.dataset.answerX = Math.round(pos.x);
      container.dataset.answerY = Math.round(pos.y);
    }
    renderLegend(paths);
    renderList(paths, answerId);
    if (paths.length) selectPath(0);
  }

  function renderLegend(paths) {
    const types = [...new Set(paths.flatMap((p) => p.nodes.map(typeOf)))].sort();
    $("legend").replaceChildren(...types.map((t) => {
      const item = document.createElement("span");
      const dot = document.createElement("span");
      dot.className = "swatch";
      dot.style.backgroundColor = colorOf(t);
      item.append(dot, t);
      return item;
    }));
  }

  function selectPath(index) {
    const p = view.paths[index];
    [...$("paths").children].forEach((li, i) => li.classList.toggle("selected", i === index));
    if (!view.cy || !p) return;
    view.cy.elements().removeClass("on-path faded");
    const ids = [...p.nodes.map((n) => `n:${n.id}`), ...p.edges.map((e) => `e:${e.source}|${e.type}|${e.target}`)];
    const on = view.cy.collection(ids.map((id) => view.cy.getElementById(id)));
    on.addClass("on-path");
    view.cy.elements().difference(on).addClass("faded");
  }

  // --- the ranked list ----------------------------------------------------------------------------

  function el(tag, className, text) {
    const e = document.createElement(tag);
    if (className) e.className = className;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  const PART_ORDER = ["model", "chain", "inherited"];

  function partsOf(p) {
    const keys = Object.keys(p.score_parts).filter((k) => k !== "final");
    keys.sort((a, b) => {
      const ia = PART_ORDER.indexOf(a);
      const ib = PART_ORDER.indexOf(b);
      return (ia < 0 ? 99 : ia) - (ib < 0 ? 99 : ib) || a.localeCompare(b);
    });
    const box = el("div", "parts");
    for (const k of keys) box.append(el("span", "part", `${k} ${p.score_parts[k].toFixed(3)}`));
    return box;
  }

  function walkOf(p, answerId) {
    const walk = el("div", "walk");
    p.nodes.forEach((n, i) => {
      const b = el("button", n.id === answerId ? "answer-node" : "", n.name);
      b.type = "button";
      b.dataset.node = n.id;
      b.addEventListener("click", (ev) => { ev.stopPropagation(); showNode(n.id); });
      walk.append(b);
      const e = p.edges[i];
      if (e) walk.append(el("span", "rel", e.direction === "out" ? `—${e.type}→` : `←${e.type}—`));
    });
    return walk;
  }

  function sourcesOf(p) {
    const details = el("details", "sources");
    details.append(el("summary", "", `${p.sources.length} source passage${p.sources.length === 1 ? "" : "s"}`));
    const list = el("ul");
    for (const s of p.sources) {
      const li = el("li", "", s.text);
      if (s.source) li.append(" ", el("span", "src", `(${s.source})`));
      list.append(li);
    }
    details.append(list);
    return details;
  }

  function renderList(paths, answerId) {
    $("paths").replaceChildren(...paths.map((p, index) => {
      const li = el("li", "path");
      li.dataset.rank = p.rank;
      const head = el("div", "path-head");
      head.append(el("span", "rank", `#${p.rank}`), el("span", "score", `score ${p.score.toFixed(3)}`),
        el("span", "muted", `${p.path_length} hop${p.path_length === 1 ? "" : "s"}`));
      li.append(head, partsOf(p), walkOf(p, answerId), el("div", "words", p.text.split(" ||| ")[0]));
      if (p.sources.length) li.append(sourcesOf(p));
      li.addEventListener("click", () => selectPath(index));
      return li;
    }));
  }

  function showNode(id) {
    const n = view.nodes.get(id);
    if (!n) return;
    $("node-name").textContent = n.name;
    const rows = [["id", n.id], ["type", n.labels.join(", ")]];
    if (n.description) rows.push(["description", n.description]);
    for (const [k, v] of Object.entries(n.attributes || {})) rows.push([k, Array.isArray(v) ? v.join(", ") : String(v)]);
    $("node-attrs").replaceChildren(...rows.flatMap(([k, v]) => [el("dt", "", k), el("dd", "", v)]));
    $("node-panel").hidden = false;
    $("node-panel").dataset.node = id;
  }

  // --- start ----------------------------------------------------------------------------------------

  document.addEventListener("DOMContentLoaded", () => {
    $("ask-form").addEventListener("submit", ask);
    $("token-form").addEventListener("submit", (ev) => {
      ev.preventDefault();
      sessionStorage.setItem(TOKEN_KEY, $("token").value.trim());
      $("token").value = "";
      loadInfo();
    });
    $("forget-token").addEventListener("click", () => {
      sessionStorage.removeItem(TOKEN_KEY);
      $("server").textContent = "";
      loadInfo();
    });
    $("mode").addEventListener("change", () => { $("hop-depth").disabled = $("mode").value === "naive"; });
    loadInfo();
  });
})();
