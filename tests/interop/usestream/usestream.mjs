// usestream.mjs - a LangGraph UI on a server: app.jsx (React and useStream of
// @langchain/langgraph-sdk 1.15), bundled here with esbuild, in headless
// Chromium (ctest interop-usestream-reference, interop-usestream-serve;
// docs/testing.md, "useStream in Chromium"). For each case (the reference
// server's graphs, below) the page is driven as a person would: it sends the
// user's message, the messages render as they stream, an interrupt is
// answered from the page's form, the continued run renders. Then:
//
//   - the DOM's transcript (its AI texts, tool calls and tool results, in
//     order) equals `apstream assemble` of the case's capture (the reference
//     server's recorded run of the same graph: captures/ of
//     tests/interop/reference); its human messages are the capture's;
//   - the interrupt's question is the capture's input.requested payload;
//   - every answer the page got was 2xx, and the requests useStream made
//     (method, path with ids as {thread_id} and {run_id}, query, body
//     members, stream_mode, Last-Event-ID) are exchange.jsonl's: the SDK's traffic
//     did not drift from what docs/testing.md documents; every stream
//     starts with `metadata` naming its run;
//   - on serve (paced), an AI text was seen partial: the page rendered the
//     run as it streamed;
//   - no script or element came from the server's strings (a canary; the
//     page's own tags only).
//
//   node usestream.mjs --modules DIR --chromium CMD --apstream BIN
//        --server reference --reference DIR [--record FILE]
//   node usestream.mjs --modules DIR --chromium CMD --apstream BIN
//        --server serve [--assistant ID] [--script FILE]...
//
// DIR (--modules): install.sh's folder of this page's packages; --reference:
// the reference server's (tests/interop/reference/install.sh). --server
// reference starts the reference server (server.mjs) with the graphs agent
// and subgraph_interrupt; --server serve starts one `apstream serve --script
// CAPTURE` for each case, playing the capture of the same run, with the
// assistant ID (by default the one of its POST /assistants/search whose
// graph_id is the capture's graph, else the first), and is
// skipped (77) when serve answers POST /threads with 404 (no REST routes).
// Each --script FILE adds a case on serve: the page must show `apstream
// assemble` of FILE (the user's text is FILE's first human message; an
// interrupt is answered "yes").
// --record FILE writes the exchange (every request and answer, SSE bodies as
// events) as JSON Lines: how exchange.jsonl was made.
//
// The page, its bundle and a harness page are served by one node http server
// on 127.0.0.1 that also proxies /api/CASE/* to the case's server, so that
// the page is same-origin with the harness (which reads its DOM) and every
// request is seen. Everything started here is stopped at the end.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, request } from "node:http";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

import { skip, withTimeout } from "../process.mjs";
import { startReference } from "../reference/client.mjs";
import { startChromium, stopChromium } from "../../report/chromium.mjs";

const here = fileURLToPath(new URL(".", import.meta.url));
const usage = "usage: node usestream.mjs --modules DIR --chromium CMD --apstream BIN " +
  "(--server reference --reference DIR [--record FILE] | --server serve [--assistant ID] [--script FILE]...)";
const o = {};
for (let i = 2; i < process.argv.length; i++) {
  const name = process.argv[i].replace(/^--/, "");
  if (!["modules", "chromium", "apstream", "server", "reference", "record", "assistant", "script"].includes(name) || i + 1 >= process.argv.length) {
    console.error(usage);
    process.exit(2);
  }
  if (name === "script") (o.scripts ??= []).push(process.argv[++i]);
  else o[name] = process.argv[++i];
}
if (!o.modules || !o.chromium || !o.apstream || !["reference", "serve"].includes(o.server) || (o.server === "reference" && (!o.reference || o.scripts))) {
  console.error(usage);
  process.exit(2);
}
const who = `interop-usestream-${o.server}`;
if (!existsSync(join(o.modules, "node_modules/@langchain/langgraph-sdk/package.json"))) {
  skip(who, `the page's packages are not installed in ${o.modules} (interop-usestream-install)`);
}
if (o.server === "reference" && !existsSync(join(o.reference, "node_modules/@langchain/langgraph-api/package.json"))) {
  skip(who, `the reference server is not installed in ${o.reference} (interop-reference-install)`);
}
setTimeout(() => { console.log(`${who}: FAIL not done after 120 s`); process.exit(1); }, 120000).unref();

// The cases: a graph of the reference server, the capture of its run
// (recorded from that server: tests/interop/reference/captures), what the
// person types, and the answer to the interrupt when there is one.
const captures = join(here, "../reference/captures");
const EVIL = "<img src=x onerror=\"window.__pwned='img'\"><script>window.__pwned='script'</script></p><b>bold</b> " +
  "<svg onload=\"window.__pwned='svg'\"> javascript:window.__pwned='url' \u2028 ]]> <!--";
const CASES = [
  { name: "agent", graph: "agent", capture: join(captures, "agent.sse"), text: "What is the weather in Paris?" },
  { name: "interrupt", graph: "subgraph_interrupt", capture: join(captures, "interrupt.sse"),
    text: "Book me a flight to Paris.", respond: "yes" },
  // The page as agent-chat-ui is (resumable=1), reloaded while its run goes
  // on: it reads the thread's history and joins the run (Last-Event-ID).
  { name: "rejoin", graph: "agent", capture: join(captures, "agent.sse"), text: "What is the weather in Paris?",
    resumable: true, reload: true },
  // Markup typed by the person comes back from the server in the thread's
  // values: the page must show it as text (reference only: serve's values
  // are its script's).
  { name: "hostile", graph: "agent", capture: join(captures, "agent.sse"), text: EVIL, humans: [EVIL], like: "agent", only: "reference" },
].filter((c) => c.only === undefined || c.only === o.server);
// serve --script FILE: a case more each, the user's text the script's own
// (its first human message), an interrupt answered "yes".
for (const [i, script] of (o.scripts ?? []).entries()) {
  const all = events(script);
  const human = all.filter((e) => e.method === "values" && e.params?.namespace?.length === 0)
    .flatMap((e) => e.params.data?.messages ?? []).find((m) => m.type === "human" || m.role === "user");
  const graph = all.find((e) => e.method === "lifecycle" && e.params?.namespace?.length === 0 && e.params.data?.graph_name)?.params.data.graph_name;
  const asks = all.some((e) => e.method === "input.requested");
  CASES.push({ name: `script${i + 1}`, graph, capture: resolve(script), text: typeof human?.content === "string" ? human.content : "Hello.",
    respond: asks ? "yes" : undefined, like: asks ? "interrupt" : "agent" });
}
const CASE_MS = 30000;

const failures = [];
const fail = (what) => failures.push(what);
// Chromium's profile: removed however this process ends (a skip included).
const tmp = mkdtempSync(join(tmpdir(), "usestream-"));
process.on("exit", () => rmSync(tmp, { recursive: true, force: true }));

// ---- what each case must show ----------------------------------------------

// The capture's events (SSE or JSON Lines), as apstream sse2jsonl reads them.
function events(capture) {
  const text = capture.endsWith(".sse")
    ? spawnSync(o.apstream, ["sse2jsonl", capture], { maxBuffer: 1 << 28 }).stdout.toString()
    : readFileSync(capture, "utf8");
  return text.split("\n").filter((l) => l.trim() !== "").map((l) => JSON.parse(l));
}

// The transcript a page shows of a run: its AI texts, tool calls (name and
// arguments as JSON with sorted keys) and tool results, one line each, in
// order. From `apstream assemble` of the capture: its messages' text and
// tool_call blocks, and each tool's output (a ToolMessage's content, or the
// output itself when it is a string).
function expected(kase) {
  const a = spawnSync(o.apstream, ["assemble", kase.capture], { maxBuffer: 1 << 28 });
  if (a.status === 2 || a.error) throw new Error(`apstream assemble ${kase.capture} exited ${a.status}: ${a.stderr}`);
  const assembled = a.stdout.toString().split("\n").filter((l) => l !== "").map((l) => JSON.parse(l));
  // A tool's result follows its call, as the page shows it (assemble lists
  // the tools after the message that called them, in the order they ended).
  const results = new Map();
  for (const v of assembled) if (v.kind === "tool") results.set(v.toolCallId, v);
  const result = (v) => {
    const out = v.output;
    return `tool-result: ${typeof out === "string" ? out : typeof out?.content === "string" ? out.content : JSON.stringify(out)}`;
  };
  const lines = [];
  const placed = new Set();
  for (const v of assembled) {
    if (v.kind === "message") {
      const text = v.content.filter((b) => b.type === "text").map((b) => b.text).join("");
      if (text !== "") lines.push(`ai: ${text}`);
      for (const b of v.content.filter((c) => c.type === "tool_call")) {
        lines.push(`tool-call: ${b.name} ${canonical(b.args)}`);
        if (results.has(b.id)) { lines.push(result(results.get(b.id))); placed.add(b.id); }
      }
    } else if (v.kind === "tool" && !placed.has(v.toolCallId)) lines.push(result(v));
  }
  const asked = events(kase.capture).filter((e) => e.method === "input.requested").map((e) => e.params.data.payload);
  const question = asked.length ? (typeof asked[0]?.question === "string" ? asked[0].question : JSON.stringify(asked[0])) : null;
  // The human messages of the run's last root values: those the page shows.
  const values = events(kase.capture).filter((e) => e.method === "values" && e.params?.namespace?.length === 0).at(-1);
  const humans = (values?.params.data.messages ?? []).filter((m) => m.type === "human" || m.role === "user" || m.role === "human")
    .map((m) => (typeof m.content === "string" ? m.content : m.content.filter((b) => b.type === "text").map((b) => b.text).join("")));
  return { lines, question, humans: kase.humans ?? humans };
}

// JSON with object keys sorted: the arguments of a tool call, compared.
function canonical(v) {
  if (Array.isArray(v)) return `[${v.map(canonical).join(",")}]`;
  if (v !== null && typeof v === "object") return `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${canonical(v[k])}`).join(",")}}`;
  return JSON.stringify(v);
}

// The page's transcript, from the items the harness read off its DOM.
function shownLines(items) {
  return items.filter((i) => i.kind !== "human").map((i) => {
    if (i.kind !== "tool-call") return `${i.kind}: ${i.text}`;
    const cut = i.text.indexOf(" ");
    let args = i.text.slice(cut + 1);
    try { args = canonical(JSON.parse(args)); } catch { /* shown as it is: the comparison says */ }
    return `tool-call: ${i.text.slice(0, cut)} ${args}`;
  });
}

// ---- the page: bundle, harness, proxy ---------------------------------------

async function bundle() {
  const esbuild = createRequire(join(resolve(o.modules), "package.json"))("esbuild");
  const t0 = Date.now();
  const out = await esbuild.build({
    entryPoints: [join(here, "app.jsx")], bundle: true, write: false, format: "iife", platform: "browser",
    target: "es2022", jsx: "automatic", minify: true, logLevel: "silent",
    nodePaths: [join(resolve(o.modules), "node_modules")],
    define: { "process.env.NODE_ENV": '"production"' },
  });
  const js = out.outputFiles[0].contents;
  console.log(`${who}: app.jsx bundled by esbuild in ${Date.now() - t0} ms: ${js.length} bytes`);
  return js;
}

const APP_HTML = `<!DOCTYPE html><html><head><meta charset="utf-8"><title>useStream</title></head>` +
  `<body><div id="root"></div><script src="/app.js"></script></body></html>`;

// The harness (the browser side): loads the page of each case in a
// same-origin iframe, types the message and sends it, answers an interrupt,
// waits (bounded) for the run's end and POSTs what the DOM shows.
const HARNESS = `<!DOCTYPE html><meta charset="utf-8"><body><script>
(async function () {
  const cfg = await (await fetch("/harness/config.json")).json();
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
  async function until(f, ms) { const end = Date.now() + ms; while (!f()) { if (Date.now() > end) return false; await sleep(10); } return true; }
  function type(form, name, text) {
    form.querySelector("input[name=" + name + "]").value = text;
    form.querySelector("button[type=submit]").click();
  }
  const out = [];
  for (const c of cfg.cases) {
    const frame = document.createElement("iframe");
    frame.width = 900; frame.height = 700;
    frame.src = "/app.html?api=" + encodeURIComponent(location.origin + "/api/" + c.name) + "&assistant=" + encodeURIComponent(c.assistant) +
      (c.resumable ? "&resumable=1" : "");
    document.body.appendChild(frame);
    const f = { name: c.name, statuses: [], renders: 0, partial: 0 };
    const doc = () => frame.contentDocument;
    const status = () => doc().getElementById("status").getAttribute("data-status");
    // Waits for the page's composer (in a document other than "old"), then
    // notes every committed status and every render of the messages.
    async function attach(old) {
      if (!(await until(() => { try { return doc() !== old && doc().getElementById("composer") !== null; } catch (e) { return false; } }, 10000))) return false;
      const s = status();
      if (f.statuses[f.statuses.length - 1] !== s) f.statuses.push(s);
      new MutationObserver(() => {
        const s = status();
        if (f.statuses[f.statuses.length - 1] !== s) f.statuses.push(s);
      }).observe(doc().getElementById("status"), { attributes: true });
      new MutationObserver(() => {
        f.renders++;
        const ai = [...doc().querySelectorAll("[data-kind=ai]")].map((e) => e.textContent);
        for (const t of ai) if (c.finalTexts.some((x) => x !== t && x.startsWith(t))) f.partial++;
      }).observe(doc().getElementById("messages"), { childList: true, subtree: true, characterData: true });
      return true;
    }
    if (!(await attach(null))) {
      out.push({ name: c.name, error: "the page did not render its composer within 10 s" });
      continue;
    }
    const t0 = performance.now();
    type(doc().getElementById("composer"), "text", c.text);
    if (c.reload) {
      // Reloaded once useStream has kept the run's id (sessionStorage): the new page joins the run.
      const kept = () => Object.keys(frame.contentWindow.sessionStorage).some((k) => k.indexOf("lg:stream:") === 0);
      if (!(await until(kept, 10000))) { out.push({ name: c.name, error: "useStream kept no run id in sessionStorage within 10 s" }); continue; }
      f.reloadMs = performance.now() - t0;
      f.statuses.push("(reloaded)");
      const old = doc();
      frame.contentWindow.location.reload();
      if (!(await attach(old))) { out.push({ name: c.name, error: "the reloaded page did not render its composer within 10 s" }); continue; }
    }
    let answered = false;
    const ended = () => {
      const s = status();
      if (!f.statuses.includes("running")) return false;
      if (s === "interrupted" && c.respond !== null && !answered) {
        const q = doc().querySelector("[data-kind=question]");
        f.question = q ? q.textContent : null;
        f.interruptMs = performance.now() - t0;
        answered = true;
        f.statuses.push("(answered)");
        type(doc().getElementById("interrupt"), "answer", c.respond);
        return false;
      }
      return answered === (c.respond !== null) && f.statuses[f.statuses.length - 1] === s && s !== "running";
    };
    if (!(await until(ended, c.timeoutMs))) f.error = "the run did not end within " + c.timeoutMs + " ms; statuses " + JSON.stringify(f.statuses);
    f.ms = performance.now() - t0;
    f.status = status();
    f.statusText = doc().getElementById("status").textContent;
    f.items = [...doc().querySelectorAll("#messages [data-kind]")].map((e) => ({ kind: e.getAttribute("data-kind"), text: e.textContent }));
    f.tags = [...new Set([...doc().querySelectorAll("*")].map((e) => e.tagName.toLowerCase()))].sort();
    f.handlers = [...doc().querySelectorAll("*")].filter((e) => [...e.attributes].some((a) => /^on/i.test(a.name))).length;
    f.pwned = [frame.contentWindow.__pwned, window.__pwned].filter((x) => x !== undefined).map(String);
    out.push(f);
    frame.remove();
  }
  await fetch("/harness/result", { method: "POST", body: JSON.stringify(out) });
})().catch((e) => fetch("/harness/result", { method: "POST", body: JSON.stringify({ error: String(e && e.stack || e) }) }));
</script>`;

// Request headers that say something about the client (the rest are the
// browser's own: host, user agent, encodings, fetch metadata).
const BROWSER_HEADERS = /^(host|connection|user-agent|accept-encoding|accept-language|sec-.*|referer|origin|content-length|cache-control|pragma|priority|cookie)$/;

// Parses an SSE body into its events: { event, id, data } (data parsed when JSON).
function sseEvents(text) {
  const out = [];
  for (const block of text.split(/\r?\n\r?\n/)) {
    const e = {};
    const data = [];
    for (const line of block.split(/\r?\n/)) {
      if (line === "" || line.startsWith(":")) continue;
      const cut = line.indexOf(":");
      const field = cut < 0 ? line : line.slice(0, cut);
      const value = cut < 0 ? "" : line.slice(cut + 1).replace(/^ /, "");
      if (field === "data") data.push(value);
      else if (field === "event" || field === "id") e[field] = value;
    }
    if (data.length === 0 && e.event === undefined) continue;
    const joined = data.join("\n");
    try { e.data = JSON.parse(joined); } catch { e.data = joined; }
    out.push(e);
  }
  return out;
}

// One node http server: the harness, the page, its bundle, and /api/CASE/*
// proxied to upstreams[CASE], each exchange recorded in `exchanges`.
function serve(config, js, upstreams, exchanges) {
  let gotResult;
  const result = new Promise((r) => { gotResult = r; });
  const http = createServer((req, res) => {
    const api = /^\/api\/([a-z0-9]+)(\/.*)$/.exec(req.url);
    if (req.method === "GET" && req.url === "/") res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(HARNESS);
    else if (req.method === "GET" && req.url.startsWith("/app.html?")) res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(APP_HTML);
    else if (req.method === "GET" && req.url === "/app.js") res.writeHead(200, { "content-type": "text/javascript" }).end(js);
    else if (req.method === "GET" && req.url === "/harness/config.json") res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(config));
    else if (req.method === "POST" && req.url === "/harness/result") {
      let body = "";
      req.on("data", (d) => { body += d; });
      req.on("end", () => { res.writeHead(204).end(); gotResult(JSON.parse(body)); });
    } else if (api && upstreams[api[1]]) proxy(req, res, api[1], api[2], upstreams[api[1]], exchanges);
    else res.writeHead(404).end();
  });
  return new Promise((r) => http.listen(0, "127.0.0.1", () => r({ http, url: `http://127.0.0.1:${http.address().port}`, result })));
}

function proxy(req, res, kase, path, upstream, exchanges) {
  const headers = { ...req.headers };
  delete headers.host;
  delete headers["accept-encoding"]; // the body recorded as it is
  const chunks = [];
  req.on("data", (d) => chunks.push(d));
  req.on("end", () => {
    const body = Buffer.concat(chunks);
    const record = {
      case: kase, n: exchanges.filter((e) => e.case === kase).length + 1,
      request: { method: req.method, path, headers: Object.fromEntries(Object.entries(req.headers).filter(([k]) => !BROWSER_HEADERS.test(k))) },
    };
    if (body.length) { try { record.request.body = JSON.parse(body); } catch { record.request.body = body.toString(); } }
    exchanges.push(record);
    const url = new URL(path, upstream);
    const up = request(url, { method: req.method, headers }, (ur) => {
      res.writeHead(ur.statusCode, ur.headers);
      const got = [];
      ur.on("data", (d) => { got.push(d); res.write(d); });
      ur.on("end", () => { res.end(); answer(Buffer.concat(got)); });
      ur.on("error", () => { res.destroy(); answer(Buffer.concat(got), "the upstream answer broke off"); });
      res.on("close", () => { if (!ur.complete) { ur.destroy(); answer(Buffer.concat(got), "the page closed the stream"); } });
      let done = false;
      function answer(bytes, note) {
        if (done) return;
        done = true;
        const type = ur.headers["content-type"] ?? "";
        record.response = { status: ur.statusCode, headers: pick(ur.headers, ["content-type", "content-location", "location"]) };
        if (type.startsWith("text/event-stream")) record.response.events = sseEvents(bytes.toString());
        else if (bytes.length) { try { record.response.body = JSON.parse(bytes); } catch { record.response.body = bytes.toString(); } }
        if (note) record.response.note = note;
      }
    });
    up.on("error", (e) => {
      record.response = { status: 502, error: e.message };
      if (!res.headersSent) res.writeHead(502, { "content-type": "text/plain" });
      res.end(`usestream.mjs proxy: ${e.message}`);
    });
    up.end(body);
  });
}

const pick = (h, names) => Object.fromEntries(names.filter((n) => h[n] !== undefined).map((n) => [n, h[n]]));

// ---- the requests, compared with exchange.jsonl -------------------------------

// A request as docs/testing.md documents it: method, path with the ids as
// {thread_id} and {run_id}, query parameters, body members (sorted),
// stream_mode, the command's members, Last-Event-ID's value.
function shape(e) {
  const url = new URL(e.request.path, "http://x");
  const path = url.pathname.replace(/^\/threads\/[^/]+/, "/threads/{thread_id}").replace(/\/runs\/(?!stream$|wait$)[^/]+/, "/runs/{run_id}");
  const b = e.request.body;
  const s = { method: e.request.method, path };
  // Query parameters by name; the value where it is no id. A join's
  // checkpoint_id is the head of the history the page read when it was
  // reloaded: on serve a reload in the run's first milliseconds can come
  // before its first state (the reference has written its input checkpoint
  // by then), and useStream then sends none; so it is left out of the shape
  // (docs/testing.md, step 4).
  if (url.search) {
    s.query = [...url.searchParams].filter(([k]) => k !== "checkpoint_id")
      .map(([k, v]) => (/_id$/.test(k) ? `${k}={${k}}` : `${k}=${v}`));
  }
  if (b !== null && typeof b === "object") {
    s.body = Object.keys(b).sort();
    if (b.stream_mode) s.stream_mode = b.stream_mode;
    if (b.command) s.command = Object.keys(b.command).sort();
  }
  if (e.request.headers["last-event-id"] !== undefined) s.lastEventId = e.request.headers["last-event-id"];
  return JSON.stringify(s);
}

// ---- the servers ---------------------------------------------------------------

async function startServe(kase) {
  const args = ["serve", "--listen", "127.0.0.1:0", "--pace", "20", "--script", kase.capture];
  const child = spawn(o.apstream, args, { stdio: ["ignore", "pipe", "pipe"] });
  let log = "";
  child.stderr.on("data", (d) => { log += d; });
  const exited = new Promise((r) => child.on("exit", (code, signal) => r(signal ?? code)));
  const url = await withTimeout(new Promise((res, rej) => {
    let out = "";
    child.stdout.on("data", (d) => { out += d; const m = /listening on (http:\/\/\S+)/.exec(out); if (m) res(m[1]); });
    child.on("exit", (code) => rej(new Error(`apstream serve exited ${code}: ${log}`)));
  }), 10000, "apstream serve's ready line").catch((e) => { child.kill("SIGKILL"); throw e; });
  return { url, log: () => log, stop: async () => { child.kill("SIGTERM"); await withTimeout(exited, 10000, "apstream serve after SIGTERM"); } };
}

// serve's assistant for a case: --assistant, or of those POST
// /assistants/search names, the one whose graph_id is the case's graph (the
// capture's root graph_name), else the first. Skips the test when serve has
// no REST routes.
async function serveAssistant(server, kase) {
  const t = await fetch(`${server.url}/threads`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
  if (t.status === 404) {
    await server.stop();
    skip(who, "apstream serve answers POST /threads with 404: it has no Agent Protocol REST routes yet (issue 45)");
  }
  if (o.assistant) return o.assistant;
  const r = await fetch(`${server.url}/assistants/search`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
  const list = r.status === 200 ? await r.json() : null;
  if (!Array.isArray(list) || typeof list[0]?.assistant_id !== "string") throw new Error(`POST /assistants/search on serve: HTTP ${r.status}, no assistant`);
  return (list.find((a) => a.graph_id === kase.graph) ?? list[0]).assistant_id;
}

// ---- main ----------------------------------------------------------------------

async function main() {
  const wants = Object.fromEntries(CASES.map((c) => [c.name, expected(c)]));
  const js = await bundle();
  const upstreams = {};
  const assistants = {};
  const stops = [];
  let chromium = null;
  let origin = null;
  const exchanges = [];
  try {
    if (o.server === "reference") {
      const t0 = Date.now();
      const ref = await startReference(resolve(o.reference));
      stops.push(ref.stop);
      console.log(`${who}: the reference server ready in ${Date.now() - t0} ms at ${ref.url}`);
      for (const c of CASES) { upstreams[c.name] = ref.url; assistants[c.name] = c.graph; }
    } else {
      for (const c of CASES) {
        const s = await startServe(c);
        stops.push(s.stop);
        upstreams[c.name] = s.url;
        assistants[c.name] = await serveAssistant(s, c);
      }
    }
    const config = {
      cases: CASES.map((c) => ({ name: c.name, assistant: assistants[c.name], text: c.text, respond: c.respond ?? null,
        resumable: c.resumable === true, reload: c.reload === true,
        timeoutMs: CASE_MS, finalTexts: wants[c.name].lines.filter((l) => l.startsWith("ai: ")).map((l) => l.slice(4)) })),
    };
    origin = await serve(config, js, upstreams, exchanges);
    chromium = startChromium(o.chromium, tmp, [`${origin.url}/`]);
    const got = await withTimeout(Promise.race([origin.result, chromium.exited.then((c) => { throw new Error(`chromium exited ${c}`); })]),
      20000 + CASE_MS * CASES.length, "the harness");
    if (got.error) fail(`the harness: ${got.error}`);
    else for (const c of CASES) check(c, wants[c.name], got.find((g) => g.name === c.name));
  } catch (e) {
    fail(String(e.stack ?? e));
  } finally {
    if (chromium !== null) await stopChromium(chromium);
    if (origin !== null) { origin.http.closeAllConnections(); origin.http.close(); }
    for (const stop of stops) await stop().catch((e) => fail(`stopping a server: ${e.message}`));
  }
  checkExchange(exchanges);
  if (o.record) {
    writeFileSync(o.record, exchanges.map((e) => JSON.stringify(e)).join("\n") + "\n");
    console.log(`${who}: ${exchanges.length} exchanges recorded in ${o.record}`);
  }
  if (failures.length === 0) {
    console.log(`${who}: pass`);
    process.exit(0);
  }
  for (const f of failures) console.log(`FAIL ${f}`);
  if (chromium !== null) console.log(`chromium's stderr, last lines:\n${chromium.log.split("\n").slice(-10).join("\n")}`);
  process.exit(1);
}

const PAGE_TAGS = ["body", "button", "div", "form", "head", "html", "input", "li", "main", "meta", "ol", "p", "script", "title", "ul"];

function check(c, want, g) {
  if (g === undefined) return fail(`${c.name}: the harness said nothing of it`);
  if (g.error) fail(`${c.name}: ${g.error}`);
  if (g.status !== "idle") fail(`${c.name}: the page ends "${g.statusText}", not idle`);
  const lines = shownLines(g.items ?? []);
  if (JSON.stringify(lines) !== JSON.stringify(want.lines)) {
    fail(`${c.name}: the page's transcript is not apstream assemble's of ${c.capture}:\n  page:\n    ${lines.join("\n    ")}\n  assemble:\n    ${want.lines.join("\n    ")}`);
  }
  const humans = (g.items ?? []).filter((i) => i.kind === "human").map((i) => i.text);
  if (JSON.stringify(humans) !== JSON.stringify(want.humans)) fail(`${c.name}: the human messages shown are ${JSON.stringify(humans)}, the capture's ${JSON.stringify(want.humans)}`);
  if (want.question !== null && g.question !== want.question) fail(`${c.name}: the interrupt's question shown is ${JSON.stringify(g.question)}, the capture's ${JSON.stringify(want.question)}`);
  if (want.question === null && g.statuses?.includes("interrupted")) fail(`${c.name}: the page showed an interrupt the capture has not`);
  // Paced, serve's runs must render while they stream (a text seen partial);
  // the reference streams its tokens too fast to require it.
  if (o.server === "serve" && g.partial === 0) fail(`${c.name}: no AI text was ever shown partial: the page did not render the run as it streamed`);
  const extra = (g.tags ?? []).filter((t) => !PAGE_TAGS.includes(t));
  if (extra.length) fail(`${c.name}: elements the page does not make: ${extra}`);
  if (g.handlers) fail(`${c.name}: ${g.handlers} elements with an event handler attribute`);
  if (g.pwned?.length) fail(`${c.name}: a script from the server ran: ${g.pwned}`);
  console.log(`${c.name}: ${g.items?.length} items shown, run ended in ${g.ms?.toFixed(0)} ms` +
    (g.interruptMs !== undefined ? ` (interrupted at ${g.interruptMs.toFixed(0)} ms, answered from the page)` : "") +
    (g.reloadMs !== undefined ? ` (reloaded at ${g.reloadMs.toFixed(0)} ms, the run joined)` : "") +
    `; statuses ${g.statuses?.join(" > ")}; ${g.renders} renders of the messages, ${g.partial} with an AI text still partial`);
}

// Every answer was 2xx, and the requests are exchange.jsonl's (by shape).
function checkExchange(exchanges) {
  for (const e of exchanges) {
    if (!e.response) fail(`${e.case} #${e.n} ${e.request.method} ${e.request.path}: no answer recorded`);
    else if (e.response.status < 200 || e.response.status > 299) {
      fail(`${e.case} #${e.n} ${e.request.method} ${e.request.path}: HTTP ${e.response.status} ${JSON.stringify(e.response.body ?? e.response.error ?? "").slice(0, 300)}`);
    }
  }
  // A stream starts with `metadata` naming its run: the run the answer's
  // Content-Location names (runs/stream), or the path's (a join).
  for (const e of exchanges.filter((x) => x.response?.events)) {
    const what = `${e.case} #${e.n} ${e.request.method} ${e.request.path}`;
    const first = e.response.events[0];
    const run = e.response.headers["content-location"]?.match(/^\/threads\/[^/]+\/runs\/([^/?]+)$/)?.[1] ??
      e.request.path.match(/\/runs\/([^/?]+)\/stream/)?.[1];
    if (first?.event !== "metadata" || typeof first.data?.run_id !== "string") fail(`${what}: the first event is not metadata with a run_id: ${JSON.stringify(first).slice(0, 200)}`);
    else if (first.data.run_id !== run) fail(`${what}: metadata names run ${first.data.run_id}, the answer ${run}`);
  }
  const fixture = join(here, "exchange.jsonl");
  if (o.record || !existsSync(fixture)) return;
  const committed = readFileSync(fixture, "utf8").split("\n").filter((l) => l !== "").map((l) => JSON.parse(l));
  for (const c of CASES) {
    // A script's case makes the requests of the reference case like it.
    const want = committed.filter((e) => e.case === (c.like ?? c.name)).map(shape);
    const got = exchanges.filter((e) => e.case === c.name).map(shape);
    if (JSON.stringify(want) !== JSON.stringify(got)) {
      fail(`${c.name}: useStream's requests differ from exchange.jsonl's:\n  now:\n    ${got.join("\n    ")}\n  exchange.jsonl:\n    ${want.join("\n    ")}`);
    } else console.log(`${c.name}: useStream made ${got.length} requests, those of exchange.jsonl`);
  }
}

main();
