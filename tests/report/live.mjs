// live.mjs - /inspect of `apstream serve` in headless Chromium: the page
// of `apstream report`, live (ctest report-inspect):
//
//   - the page lists the server's threads; the test starts a run (run.start
//     from here, never from the page), the harness picks the thread, and
//     the page's event count grows while the run plays, ending with every
//     event of the script; its lanes are the script's namespaces and its
//     messages' texts are `apstream assemble`'s;
//   - read-only: every request the page makes is a GET but the one SSE
//     subscription (POST /threads/ID/stream/events);
//   - a hostile script (and a hostile thread id) played live runs no script
//     (a canary stays unset) and makes no element, handler or link;
//   - the CSP: the live page may connect to its own origin, the file page
//     of `apstream report` to nothing; with --api-key, the page is open and
//     its data routes want the key.
//
//   node live.mjs --apstream BIN --chromium CMD --script WEATHER.jsonl
//
// The harness and the page are served by one node http server, which
// proxies every path but its own (/, /harness/*) to `apstream serve`, so
// the page is same-origin with the harness (which reads its DOM) and each
// of its requests is seen. Everything started here is killed at the end.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { freePort, startProcess, withTimeout } from "../interop/process.mjs";
import { startChromium, stopChromium } from "./chromium.mjs";

const o = {};
for (let i = 2; i < process.argv.length; i++) {
  if (process.argv[i] === "--apstream") o.apstream = process.argv[++i];
  else if (process.argv[i] === "--chromium") o.chromium = process.argv[++i];
  else if (process.argv[i] === "--script") o.script = process.argv[++i];
}
if (!o.apstream || !o.chromium || !o.script) {
  console.error("usage: node live.mjs --apstream BIN --chromium CMD --script WEATHER.jsonl");
  process.exit(2);
}

const tmp = mkdtempSync(join(tmpdir(), "report-inspect-"));
const failures = [];
const fail = (what) => failures.push(what);
const PACE = 150; // ms between events: the weather run plays for about 3 s

// ---- the scripts and what the page should show of them ----------------------

const EVIL = ["<script>window.__pwned='script'</script>", "</script><script>window.__pwned='close'</script>",
  "<img src=x onerror=\"window.__pwned='img'\">", "javascript:window.__pwned='url'", "a\u2028b",
  "<svg onload=\"window.__pwned='svg'\">", "</SCRIPT/x>", "<!--<script>"].join(" ");
const EVIL_THREAD = "<img src=x onerror=\"window.__pwned='thread'\"><b>x"; // (no '/' or '%': a path segment)

function hostileScript(path) {
  const ev = (method, ns, data) => JSON.stringify({ type: "event", eventId: EVIL, method, params: { namespace: ns, timestamp: 1, data } });
  const ns = [EVIL];
  writeFileSync(path, [
    ev("lifecycle", [], { event: "running", graph_name: EVIL }),
    ev("lifecycle", ns, { event: "started", graph_name: EVIL }),
    ev("messages", ns, { event: "message-start", role: EVIL, id: EVIL }),
    ev("messages", ns, { event: "content-block-start", index: 0, content: { type: "text", text: "" } }),
    ev("messages", ns, { event: "content-block-delta", index: 0, delta: { type: "text-delta", text: EVIL } }),
    ev("messages", ns, { event: "content-block-finish", index: 0, content: { type: "text", text: EVIL } }),
    ev("messages", ns, { event: "message-finish", reason: EVIL }),
    ev("tools", ns, { event: "tool-started", tool_call_id: EVIL, tool_name: EVIL, input: { [EVIL]: EVIL } }),
    ev("tools", ns, { event: "tool-finished", tool_call_id: EVIL, output: EVIL }),
    ev("input.requested", ns, { interruptId: "i1", payload: { [EVIL]: [EVIL] } }),
    ev("values", ns, { [EVIL]: EVIL }),
    ev("updates", ns, { [EVIL]: EVIL }),
    ev("custom", [EVIL, EVIL], EVIL),
    ev("lifecycle", ns, { event: "completed", graph_name: EVIL }),
    ev("lifecycle", [], { event: "completed" }),
  ].join("\n") + "\n");
}

function expected(path) {
  const recs = readFileSync(path, "utf8").split("\n").filter((l) => l.trim() !== "").map((l) => JSON.parse(l));
  const lanes = new Set(["[]"]);
  for (const r of recs) lanes.add(JSON.stringify(r.params.namespace));
  const messages = spawnSync(o.apstream, ["assemble", path]).stdout.toString().split("\n").filter((l) => l !== "")
    .map((l) => JSON.parse(l)).filter((v) => v.kind === "message")
    .map((m) => m.content.filter((b) => typeof b?.text === "string").map((b) => b.text));
  return { events: recs.length, lanes: [...lanes].sort(), messages };
}

// ---- the harness: the browser side --------------------------------------------

const harness = `<!DOCTYPE html><meta charset="utf-8"><body><script>
(async function () {
  const cfg = await (await fetch("/harness/config")).json();
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
  async function until(f, ms) { const end = Date.now() + ms; while (!f()) { if (Date.now() > end) return false; await sleep(20); } return true; }
  async function watch(c) {
    const frame = document.createElement("iframe");
    frame.width = 1400; frame.height = 900; frame.src = "/inspect";
    document.body.appendChild(frame);
    const f = {};
    if (!await until(() => { try { return frame.contentDocument.documentElement.getAttribute("data-ready") === "1"; } catch (e) { return false; } }, 10000))
      return { error: "the page did not get ready" };
    const d = frame.contentDocument, w = frame.contentWindow, sel = d.getElementById("live-thread");
    f.verdictBefore = d.getElementById("verdict").textContent;
    await fetch("/harness/start?n=" + c.n);          /* the test starts the run, not the page */
    if (!await until(() => [...sel.options].some((x) => x.value === c.thread), 5000)) return { error: "the thread is not in the list" };
    f.option = [...sel.options].find((x) => x.value === c.thread).textContent;
    sel.value = c.thread;
    sel.dispatchEvent(new Event("change"));
    f.samples = [];
    await until(() => { const n = w.apstreamReport.events; if (f.samples[f.samples.length - 1] !== n) f.samples.push(n); return d.getElementById("verdict").textContent === "ENDED"; }, 30000);
    await sleep(1000);                                /* the last assembled values, and their render */
    f.verdict = d.getElementById("verdict").textContent;
    f.events = w.apstreamReport.events;
    f.status = d.getElementById("live-status").textContent;
    f.lanes = [...d.querySelectorAll("svg g.lane")].map((g) => g.getAttribute("data-ns"));
    f.bubbles = [...d.querySelectorAll(".bubble")].map((b) => [...b.querySelectorAll(".btext")].map((x) => x.textContent));
    f.tools = d.querySelectorAll("#tools .tool").length;
    f.pwned = [w.__pwned, window.__pwned].filter((x) => x !== undefined).map(String);
    f.tags = {};
    for (const e of d.querySelectorAll("*")) f.tags[e.tagName.toLowerCase()] = (f.tags[e.tagName.toLowerCase()] || 0) + 1;
    f.handlers = [...d.querySelectorAll("*")].filter((e) => [...e.attributes].some((a) => /^on/i.test(a.name))).length;
    f.hrefs = [...d.querySelectorAll("[href],[src]")].map((e) => e.getAttribute("href") || e.getAttribute("src")).filter((h) => !/^#/.test(h));
    f.text = c.lookFor ? [...d.querySelectorAll(".btext, pre, .bhead, text, .c-text, li, option")].some((e) => e.textContent.indexOf(c.lookFor) >= 0) : null;
    frame.remove();
    await sleep(100);
    return f;
  }
  const out = [];
  for (const c of cfg.cases) { try { out.push(await watch(c)); } catch (e) { out.push({ error: String(e) }); } }
  await fetch("/harness/result", { method: "POST", body: JSON.stringify(out) });
})().catch((e) => fetch("/harness/result", { method: "POST", body: JSON.stringify({ error: String(e) }) }));
</script>`;

async function command(serveUrl, thread, body) {
  const r = await fetch(`${serveUrl}/threads/${encodeURIComponent(thread)}/commands`, {
    method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  return r.json();
}

// A run of `thread`; one that asks for input (the hostile script) is answered, from here.
async function startRun(serveUrl, thread) {
  const r = await command(serveUrl, thread, { id: 1, method: "run.start", params: { assistant_id: "agent", input: {} } });
  if (r.type !== "success") fail(`run.start on ${thread}: ${JSON.stringify(r)}`);
  (async () => {
    for (let i = 0; i < 200; i++) {
      const j = await (await fetch(`${serveUrl}/inspect/threads`)).json();
      const t = j.threads.find((x) => x.id === thread);
      if (t?.waiting) {
        await command(serveUrl, thread, { id: 2, method: "input.respond", params: { namespace: [EVIL], interrupt_id: "i1", response: "ok" } });
        return;
      }
      if (t && !t.playing) return;
      await new Promise((res) => setTimeout(res, 50));
    }
  })();
}

function harnessServer(serveUrl, config, log) {
  let gotResult;
  const result = new Promise((r) => { gotResult = r; });
  const upstream = new URL(serveUrl);
  const http = createServer((req, res) => {
    if (req.method === "GET" && req.url === "/") return res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(harness);
    if (req.method === "GET" && req.url === "/harness/config") return res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(config));
    const start = /^\/harness\/start\?n=(\d+)$/.exec(req.url);
    if (start) return startRun(serveUrl, config.cases[+start[1]].thread).then(() => res.writeHead(204).end());
    if (req.method === "POST" && req.url === "/harness/result") {
      let body = "";
      req.on("data", (d) => { body += d; });
      return req.on("end", () => { res.writeHead(204).end(); gotResult(JSON.parse(body)); });
    }
    // the page's own requests: logged, and passed on to apstream serve
    log.push({ method: req.method, url: req.url });
    const up = request({ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers }, (ur) => {
      res.writeHead(ur.statusCode, ur.headers);
      ur.pipe(res);
    });
    up.on("error", () => res.destroy());
    res.on("close", () => up.destroy());
    req.pipe(up);
  });
  return new Promise((resolve) => http.listen(0, "127.0.0.1", () => resolve({ http, url: `http://127.0.0.1:${http.address().port}`, result })));
}

async function stopServe(s) {
  s.child.kill("SIGTERM");
  await withTimeout(s.exited, 10000, "apstream serve stopping");
}

// ---- the checks -----------------------------------------------------------------

const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

function checkRun(name, want, got) {
  if (got.error) return fail(`${name}: ${got.error}`);
  if (got.verdictBefore !== "LIVE") fail(`${name}: the verdict before a run is "${got.verdictBefore}", want LIVE`);
  if (got.verdict !== "ENDED") fail(`${name}: the verdict after the run is "${got.verdict}", want ENDED`);
  if (got.events !== want.events) fail(`${name}: the page shows ${got.events} events, the script has ${want.events}`);
  // as it plays: the count was seen at three values or more on its way up, starting short of the end
  const rising = got.samples.filter((n) => n > 0);
  if (rising.length < 3 || rising[0] >= want.events || !rising.every((n, i) => i === 0 || n > rising[i - 1]))
    fail(`${name}: the event count did not grow as the run played: ${JSON.stringify(got.samples)}`);
  if (!same([...got.lanes].sort(), want.lanes)) fail(`${name}: lanes ${JSON.stringify(got.lanes)}, the script's namespaces ${JSON.stringify(want.lanes)}`);
  if (!same(got.bubbles, want.messages)) fail(`${name}: message texts ${JSON.stringify(got.bubbles)}, apstream assemble's ${JSON.stringify(want.messages)}`);
}

function checkSafe(name, got) {
  if (got.error) return;
  if (got.pwned.length) fail(`${name}: a script of the stream ran: canary ${got.pwned}`);
  if (got.handlers) fail(`${name}: ${got.handlers} elements with an event handler attribute`);
  if (got.hrefs.length) fail(`${name}: links or sources that are no anchor of the page: ${got.hrefs.slice(0, 3)}`);
  // the page's own elements: its three scripts and one timeline, no image, frame or object
  if (got.tags.script !== 3 || got.tags.img || got.tags.iframe || got.tags.object || got.tags.embed || got.tags.svg !== 1)
    fail(`${name}: elements the page does not make: ${JSON.stringify(got.tags)}`);
}

// Read-only: the page's requests are GETs, but one SSE subscription per thread watched.
function checkRequests(log, cases) {
  const subs = log.filter((r) => r.method !== "GET");
  for (const r of subs)
    if (r.method !== "POST" || !/^\/threads\/[^/?]+\/stream\/events$/.test(r.url)) fail(`the page sent ${r.method} ${r.url}`);
  for (const c of cases)
    if (!subs.some((r) => decodeURIComponent(r.url) === `/threads/${c.thread}/stream/events`)) fail(`no subscription to ${c.thread}`);
  const gets = new Set(log.filter((r) => r.method === "GET").map((r) => r.url.replace(/\/threads\/[^/]+\/assembled$/, "/threads/ID/assembled")));
  console.log(`the page's requests: ${log.length} (${[...gets].sort().join(", ")} and ${subs.length} SSE subscriptions)`);
}

// The CSP of both pages, and --api-key: the page is open, its data wants the key.
async function checkHttp(inspectUrl) {
  const page = await (await fetch(`${inspectUrl}/inspect`)).text();
  if (!page.includes("connect-src 'self'")) fail("/inspect: its CSP does not let it connect to its origin");
  const file = join(tmp, "file.html");
  spawnSync(o.apstream, ["report", o.script, "-o", file]);
  const csp = /Content-Security-Policy" content="([^"]*)"/.exec(readFileSync(file, "utf8"));
  if (!csp || csp[1] !== "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'")
    fail(`the file page's CSP: ${csp && csp[1]}`);
  const port = await freePort();
  const s = await startProcess(o.apstream, ["serve", "--listen", `127.0.0.1:${port}`, "--script", o.script, "--pace", "0", "--api-key", "k3y"]);
  try {
    const get = async (path, key, method = "GET") => (await fetch(`${s.url}${path}`, { method, headers: key ? { "x-api-key": key } : {} })).status;
    const got = [await get("/inspect"), await get("/inspect/threads"), await get("/inspect/threads", "k3y"), await get("/inspect/threads", "nope"),
      await get("/inspect/threads/t/assembled"), await get("/inspect/threads", "k3y", "POST"), await get("/inspect/nothing", "k3y")];
    const want = [200, 401, 200, 401, 401, 405, 404];
    if (!same(got, want)) fail(`--api-key: /inspect, /inspect/threads (none, the key, a wrong key), assembled, POST, unknown: ${got}, want ${want}`);
  } finally {
    await stopServe(s);
  }
}

// ---- main -------------------------------------------------------------------------

async function main() {
  const hostile = join(tmp, "hostile.jsonl");
  hostileScript(hostile);
  const port = await freePort();
  const serve = await startProcess(o.apstream, ["serve", "--listen", `127.0.0.1:${port}`, "--script", o.script,
    "--script", hostile, "--pace", String(PACE)]);
  const cases = [{ n: 0, thread: "weather", lookFor: null }, { n: 1, thread: EVIL_THREAD, lookFor: EVIL }];
  const log = [];
  const origin = await harnessServer(serve.url, { cases }, log);
  let b = null;
  try {
    b = startChromium(o.chromium, tmp, [`${origin.url}/`]);
    const got = await withTimeout(Promise.race([origin.result, b.exited.then((c) => { throw new Error(`chromium exited ${c}`); })]),
      90000, "the harness");
    if (got.error) fail(`the harness: ${got.error}`);
    else {
      checkRun("weather", expected(o.script), got[0]);
      checkSafe("weather", got[0]);
      if (got[1].error) fail(`hostile: ${got[1].error}`);
      checkSafe("hostile", got[1]);
      if (!got[1].error && got[1].text !== true) fail("hostile: the hostile strings are not shown as text");
      if (!got[1].error && got[1].verdict !== "ENDED") fail(`hostile: the verdict after the run is "${got[1].verdict}"`);
      for (const [i, g] of got.entries())
        if (!g.error) console.log(`${cases[i].n ? "hostile" : "weather"}: ${g.events} events, counted ${JSON.stringify(g.samples)} as they came, ${g.lanes.length} lanes, ${g.bubbles.length} messages, ${g.tools} tool runs; ${g.status}`);
      checkRequests(log, cases);
    }
    await checkHttp(origin.url);
  } catch (e) {
    fail(String(e.message ?? e));
  } finally {
    if (b !== null) await stopChromium(b);
    origin.http.closeAllConnections();
    origin.http.close();
    await stopServe(serve);
  }
  if (failures.length === 0) {
    rmSync(tmp, { recursive: true, force: true });
    console.log("report-inspect: /inspect shows the runs as they play, read-only and safe: pass");
    process.exit(0);
  }
  for (const f of failures) console.log(`FAIL ${f}`);
  console.log(`apstream serve's log, last lines:\n${serve.log().split("\n").slice(-15).join("\n")}`);
  if (b !== null) console.log(`chromium's stderr, last lines:\n${b.log.split("\n").slice(-10).join("\n")}`);
  process.exit(1);
}

main();
