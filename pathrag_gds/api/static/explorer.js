// pathrag_gds path explorer: asks /v1/query with stream: true, draws the ranked paths (Cytoscape.js)
// and lists them with their score parts, words and source passages. No build step, no inline code.
"use strict";

(() => {
  const TOKEN_KEY = "pathrag_gds.token";
  // Kelly's colours of maximum contrast (less white and black, a teal for the near-black olive); past
  // 20 types, golden-angle hues
  const PALETTE = ["#0067a5", "#f38400", "#008856", "#be0032", "#875692", "#f3c300", "#882d17", "#a1caf1",
    "#e68fac", "#8db600", "#604e97", "#f99379", "#654522", "#c2b280", "#b3446c", "#00a3a3", "#848482",
    "#f6a600", "#e25822", "#dcd300"];
  // modes that do not walk the graph, so ignore the hop depth (the server's `modes` says it too)
  const NO_HOPS = ["global", "naive"];
  // what the server's timings and the paths' score parts mean (the status line's details)
  const STAGE_TERMS = {
    total: "the whole search on the server",
    db: "waiting for Neo4j (included in the other stages)",
    embed: "turning the question into a vector",
    intent: "reading what the question asks for (answer type, relations hinted)",
    plan: "choosing the chains of relation types worth walking",
    seed: "finding the entities the question starts from (vector index)",
    expand: "walking one hop further from the kept paths",
    score: "scoring the paths with the path model",
    prune: "keeping the best paths at each depth",
    sources: "fetching the source passages of the paths",
    clusters: "matching the question against the cluster summaries",
  };
  const PART_TERMS = {
    model: "how well the path's words match the question (path model)",
    chain: "how likely the question asks for this chain of relation types (chain model)",
    chain_prefix: "a path that stops early: how likely its chain leads into a chain the question asks for",
    instance: "how well this path's own entities fit, beyond its chain",
    kind_step: "whether each step reaches the entity types the question expects",
    inherited: "mix: the share of the related graph paths' score a vector match inherits",
    type: "the path reaches an entity of the type the question expects (best at its end)",
    relation_prior: "how well the path's relations fit those the question hints at",
    coverage: "the share of the entities the question names that the path touches",
    described: "the share of the entities the question describes in other words that the path touches",
    length: "fewer hops walked past the answer-like entity score higher",
    lexical: "the share of the question's own words that the path's relations or entities hold",
  };
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
  const view = { cy: null, paths: [], nodes: new Map(), answerId: null, controller: null, info: null,
    askFromUrl: false, examplesFor: null };

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
      view.info = info;
      // the server's own defaults (what a question that names none runs with), unless the URL set them
      if (info.defaults) {
        if ($("hop-depth").value === "") $("hop-depth").value = info.defaults.hop_depth;
        if ($("top-n").value === "") $("top-n").value = info.defaults.top_n;
      }
      onModeChange();
      $("server").textContent = `${info.graph.entities} entities in ${ids.length} ` +
        (ids.length === 1 ? "community" : "communities");
      loadExamples();
      if (view.askFromUrl && $("question").value.trim()) {
        view.askFromUrl = false;
        run();
      }
    } catch (err) {
      showError(err);
    }
  }

  // --- modes ----------------------------------------------------------------------------------------

  function modeInfo(name) {
    const listed = view.info && view.info.modes ? view.info.modes.find((m) => m.name === name) : null;
    return listed || { name, description: "", uses_hop_depth: !NO_HOPS.includes(name) };
  }

  function onModeChange() {
    const mode = modeInfo($("mode").value);
    $("hop-depth").disabled = !mode.uses_hop_depth;
    $("hop-depth").title = mode.uses_hop_depth ? "" : `${mode.name} does not walk the graph: no hop depth`;
    $("mode-help").textContent = mode.description ? `${mode.name}: ${mode.description}` : "";
  }

  // --- example questions ----------------------------------------------------------------------------

  async function loadExamples() {
    const community = $("community").value.trim();
    if (community === view.examplesFor) return;
    view.examplesFor = community;
    $("example-list").replaceChildren();
    $("examples").hidden = true;
    if (!community) return;
    let examples;
    try {
      examples = await (await call(`/v1/communities/${encodeURIComponent(community)}/examples`)).json();
    } catch (_) {
      return;  // an unknown community: asking says so
    }
    if (view.examplesFor !== community) return;
    $("example-list").replaceChildren(...examples.questions.map((q) => {
      const li = el("li");
      const b = el("button", "example", q);
      b.type = "button";
      b.addEventListener("click", () => {
        $("question").value = q;
        $("ask-form").requestSubmit();
      });
      li.append(b);
      return li;
    }));
    $("examples").hidden = !examples.questions.length;
  }

  // --- the URL: /ui?q=...&community=...&mode=...&hops=...&top=... ------------------------------------

  function urlOfForm() {
    const params = new URLSearchParams();
    params.set("q", $("question").value);
    const community = $("community").value.trim();
    if (community) params.set("community", community);
    params.set("mode", $("mode").value);
    if (!$("hop-depth").disabled && $("hop-depth").value !== "") params.set("hops", $("hop-depth").value);
    if ($("top-n").value !== "") params.set("top", $("top-n").value);
    return `${location.pathname}?${params}`;
  }

  // fill the form from the URL; true when it holds a question
  function formFromUrl() {
    const params = new URLSearchParams(location.search);
    $("question").value = params.get("q") || "";
    if (params.has("community")) $("community").value = params.get("community");
    const mode = params.get("mode");
    if (mode && [...$("mode").options].some((o) => o.value === mode)) $("mode").value = mode;
    for (const [key, id] of [["hops", "hop-depth"], ["top", "top-n"]]) {
      if (params.has(key)) $(id).value = params.get(key);
      else if (view.info && view.info.defaults) $(id).value = view.info.defaults[key === "hops" ? "hop_depth" : "top_n"];
    }
    onModeChange();
    return Boolean($("question").value.trim());
  }

  // --- asking -----------------------------------------------------------------------------------

  function request() {
    const body = { question: $("question").value, mode: $("mode").value, stream: true };
    const community = $("community").value.trim();
    if (community) body.community_id = community;
    const depth = $("hop-depth").valueAsNumber;
    const topN = $("top-n").valueAsNumber;
    if (!Number.isNaN(depth) && modeInfo(body.mode).uses_hop_depth) body.hop_depth = depth;
    if (!Number.isNaN(topN)) body.top_n = topN;
    return body;
  }

  // the form's submit: the question goes in the URL (a new history entry), then it is asked
  function ask(ev) {
    ev.preventDefault();
    const url = urlOfForm();
    if (url !== `${location.pathname}${location.search}`) history.pushState(null, "", url);
    run();
  }

  async function run() {
    if (view.controller) view.controller.abort();
    const controller = (view.controller = new AbortController());
    clearError();
    clearResults();
    $("status-details").hidden = true;
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
    const n = event.paths.length;
    li.textContent = `depth ${event.depth}: ${n} path${n === 1 ? "" : "s"} · ${ms} ms`;
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
    const n = result.paths.length;
    const trips = result.round_trips;
    setStatus("done", `${n} path${n === 1 ? "" : "s"} in ${(ms / 1000).toFixed(2)} s, ` +
      `${trips} database round trip${trips === 1 ? "" : "s"}`);
    showDetails(result, ms);
  }

  // the status line's details: each number with what it means
  function showDetails(result, ms) {
    const rows = [
      ["in the browser", `${ms} ms`, "from the click to the last event of the answer"],
      ["database round trips", String(result.round_trips), "queries sent to Neo4j for this question"],
      ["paths explored", String(result.explored), "paths scored before the best were kept"],
      ["scorer", result.scorer, "the model that scored the paths"],
    ];
    if (result.scoring) rows.push(["scoring", result.scoring, "how a path's score parts are combined"]);
    for (const [stage, v] of Object.entries(result.timings_ms)) {
      rows.push([`server: ${stage}`, `${Math.round(v)} ms`, STAGE_TERMS[stage] || "a stage of the search"]);
    }
    const parts = new Set(result.paths.flatMap((p) => Object.keys(p.score_parts).filter((k) => k !== "final")));
    for (const part of [...parts].sort()) {
      rows.push([`score part: ${part}`, "", PART_TERMS[part] || "a term of the path's score"]);
    }
    $("status-terms").replaceChildren(...rows.flatMap(([term, value, meaning]) => {
      const dd = el("dd");
      if (value) dd.append(el("strong", "", value), " ");
      dd.append(meaning);
      return [el("dt", "", term), dd];
    }));
    $("status-details").hidden = false;
  }

  // --- drawing ------------------------------------------------------------------------------------

  function hashOf(type) {
    let h = 0;
    for (const c of type) h = (h * 31 + c.charCodeAt(0)) >>> 0;
    return h;
  }

  // a distinct colour for each type: its hash's slot of the palette, the next free one when taken
  // (types taken in sorted order, so the same types get the same colours); golden-angle hues past it
  function coloursOf(types) {
    const out = new Map();
    const used = new Set();
    [...new Set(types)].sort().forEach((type, i) => {
      if (used.size >= PALETTE.length) {
        out.set(type, `hsl(${Math.round((i * 137.508) % 360)}, 55%, 42%)`);
        return;
      }
      let slot = hashOf(type) % PALETTE.length;
      while (used.has(slot)) slot = (slot + 1) % PALETTE.length;
      used.add(slot);
      out.set(type, PALETTE[slot]);
    });
    return out;
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

  function elementsOf(paths, answerId, colours) {
    const nodes = new Map();
    const edges = new Map();
    for (const p of paths) {
      for (const n of p.nodes) {
        view.nodes.set(n.id, n);
        if (!nodes.has(n.id)) {
          nodes.set(n.id, { group: "nodes", classes: n.id === answerId ? "answer" : "",
            data: { id: `n:${n.id}`, label: n.name, color: colours.nodes.get(typeOf(n)) } });
        }
      }
      for (const e of p.edges) {
        const id = `e:${e.source}|${e.type}|${e.target}`;
        if (!edges.has(id)) {
          edges.set(id, { group: "edges", data: { id, source: `n:${e.source}`, target: `n:${e.target}`, label: e.type,
            color: colours.edges.get(e.type) } });
        }
      }
    }
    return [...nodes.values(), ...edges.values()];
  }

  const STYLE = [
    { selector: "node", style: { "background-color": "data(color)", label: "data(label)", "font-size": 11,
      "text-valign": "bottom", "text-margin-y": 4, width: 26, height: 26, "border-width": 1, "border-color": "#fff" } },
    // labels along the edge, lifted off the line, on a white pad: never across a node's name
    { selector: "edge", style: { width: 2, "line-color": "data(color)", "target-arrow-color": "data(color)",
      "target-arrow-shape": "triangle", "curve-style": "bezier", label: "data(label)", "font-size": 9,
      color: "#3b4350", "text-rotation": "autorotate", "text-margin-y": -8, "text-background-color": "#fff",
      "text-background-opacity": 0.85, "text-background-padding": 1, "text-events": "no" } },
    { selector: "node.answer", style: { width: 38, height: 38, "border-width": 5, "border-color": "#d49a00",
      "font-weight": "bold", "font-size": 13 } },
    { selector: "edge.on-path", style: { width: 4, "font-weight": "bold" } },
    { selector: "node.on-path", style: { "border-color": "#2f6fde", "border-width": 3 } },
    { selector: "node.answer.on-path", style: { "border-color": "#d49a00", "border-width": 5 } },
    { selector: ".faded", style: { opacity: 0.3 } },
  ];

  const PAD = 28;

  // the graph as tall as its paths need at the width it has (within the window), then fitted
  function sizeGraph(cy, container) {
    const bb = cy.elements().boundingBox({ includeLabels: true });
    const width = container.clientWidth || 600;
    const zoom = Math.min(1.3, (width - 2 * PAD) / Math.max(bb.w, 1));
    const least = Math.max(320, window.innerHeight * 0.45);
    const most = Math.max(window.innerHeight * 0.85, 420);
    const height = Math.round(Math.min(Math.max(bb.h * zoom + 2 * PAD, least), most));
    container.style.height = `${height}px`;
    cy.resize();
    cy.fit(undefined, PAD);
    if (cy.zoom() > 1.3) cy.zoom({ level: 1.3, renderedPosition: { x: width / 2, y: height / 2 } });
    // for the browser test: every node and its name inside the canvas (nothing cut off)
    const box = cy.nodes().renderedBoundingBox({ includeLabels: true });
    container.dataset.fits = String(box.x1 >= -1 && box.y1 >= -1 && box.x2 <= width + 1 && box.y2 <= height + 1);
  }

  function render(paths, answerId) {
    view.paths = paths;
    view.answerId = answerId;
    if (view.cy) view.cy.destroy();
    const container = $("graph");
    $("results").hidden = false;  // before the layout: Cytoscape measures its container
    const colours = {
      nodes: coloursOf(paths.flatMap((p) => p.nodes.map(typeOf))),
      edges: coloursOf(paths.flatMap((p) => p.edges.map((e) => e.type))),
    };
    const elements = elementsOf(paths, answerId, colours);
    const cy = (view.cy = cytoscape({ container, elements, style: STYLE, minZoom: 0.2, maxZoom: 2,
      layout: { name: "preset" } }));
    // the answer on the left (the paths fan out from it to the right), else the seeds they start from;
    // left to right, so most edges run across and their labels lie between the nodes' names
    const rootIds = answerId ? [answerId] : paths.filter((p) => p.nodes.length).map((p) => p.nodes[0].id);
    const roots = cy.collection(rootIds.map((id) => cy.getElementById(`n:${id}`)));
    cy.layout({ name: "breadthfirst", directed: false, roots, spacingFactor: 1.4, padding: PAD, animate: false }).run();
    cy.nodes().positions((n) => ({ x: n.position("y") * 1.6, y: n.position("x") * 0.8 }));
    sizeGraph(cy, container);
    view.cy.on("tap", "node", (e) => showNode(e.target.id().slice(2)));
    container.dataset.nodes = view.cy.nodes().length;
    container.dataset.edges = view.cy.edges().length;
    container.dataset.nodeColours = JSON.stringify(Object.fromEntries(colours.nodes));
    container.dataset.edgeColours = JSON.stringify(Object.fromEntries(colours.edges));
    if (answerId) {
      const pos = view.cy.getElementById(`n:${answerId}`).renderedPosition();
      container.dataset.answer = view.nodes.get(answerId).name;
      container.dataset.answerX = Math.round(pos.x);
      container.dataset.answerY = Math.round(pos.y);
    }
    renderLegend(colours);
    renderList(paths, answerId);
    $("results").hidden = false;
    if (paths.length) selectPath(0);
  }

  function renderLegend(colours) {
    const items = [];
    for (const [kind, map] of [["swatch", colours.nodes], ["swatch line", colours.edges]]) {
      for (const [type, colour] of [...map.entries()].sort()) {
        const item = el("span", "legend-item");
        const mark = el("span", kind);
        mark.style.backgroundColor = colour;
        item.append(mark, type);
        items.push(item);
      }
    }
    $("legend").replaceChildren(...items);
  }

  function selectPath(index) {
    const p = view.paths[index];
    [...$("paths").children].forEach((li, i) => {
      li.classList.toggle("selected", i === index);
      const head = li.querySelector(".path-select");
      if (head) head.setAttribute("aria-pressed", String(i === index));
    });
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
    for (const k of keys) {
      const part = el("span", "part", `${k} ${p.score_parts[k].toFixed(3)}`);
      if (PART_TERMS[k]) part.title = PART_TERMS[k];
      box.append(part);
    }
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
      // the head is a button: Tab reaches each path, Enter or Space selects it in the graph
      const head = el("button", "path-head path-select");
      head.type = "button";
      head.setAttribute("aria-pressed", "false");
      head.append(el("span", "rank", `#${p.rank}`), el("span", "score", `score ${p.score.toFixed(3)}`),
        el("span", "muted", `${p.path_length} hop${p.path_length === 1 ? "" : "s"}`));
      head.addEventListener("click", (ev) => { ev.stopPropagation(); selectPath(index); });
      li.append(head, partsOf(p), walkOf(p, answerId), el("div", "words", p.text.split(" ||| ")[0]));
      if (p.sources.length) li.append(sourcesOf(p));
      li.addEventListener("click", (ev) => { if (!ev.target.closest("button, summary, a")) selectPath(index); });
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
    $("mode").addEventListener("change", onModeChange);
    $("community").addEventListener("change", loadExamples);
    // back / forward: the question of that URL, asked again (or the empty page)
    window.addEventListener("popstate", () => {
      const asked = formFromUrl();
      loadExamples();
      if (asked) {
        run();
      } else {
        if (view.controller) view.controller.abort();
        clearError();
        clearResults();
        $("status-details").hidden = true;
        $("results").hidden = true;
        setStatus("idle", "Ask a question to see the paths that answer it.");
      }
    });
    let resizing = null;
    window.addEventListener("resize", () => {
      clearTimeout(resizing);
      resizing = setTimeout(() => { if (view.cy) sizeGraph(view.cy, $("graph")); }, 150);
    });
    view.askFromUrl = formFromUrl();
    loadInfo();
  });
})();
