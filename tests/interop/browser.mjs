// browser.mjs - a browser against `apstream serve`: headless Chromium loads
// browser.html from an origin of ours (a node http server on another port
// of 127.0.0.1), and the page, with fetch, starts a run of each script on
// its own thread and reads the run's events from the SSE body of
// POST /threads/ID/stream/events. The events the page got must be the
// script's, in order: the same count, and each with the script's method and
// params.data (the server numbers and stamps them anew, so nothing else is
// compared). The subscription has the channels below, so a script's events
// on any other channel (checkpoints in the shared trace) must not come.
//
// CORS is exercised both ways: the server allows the page's origin, and its
// log must show an allowed OPTIONS preflight of both endpoints of every
// thread (JSON POSTs from another origin need one); a second server allows
// another origin only, and there the page's fetch must fail, its log must
// show the preflight refused, and no command may have reached it.
//
//   node browser.mjs --apstream BIN --chromium CMD SCRIPT...
//
// Everything listens on 127.0.0.1, port 0; each run has 5 s to end, the
// page 20 s more than all of them, then every process started here is
// killed.
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

import { startProcess, withTimeout } from "./process.mjs";

const channels = ["messages", "lifecycle", "values", "tools", "input"];

function parseArgs(argv) {
  const o = { scripts: [] };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--apstream") o.apstream = argv[++i];
    else if (argv[i] === "--chromium") o.chromium = argv[++i];
    else o.scripts.push(argv[i]);
  }
  if (!o.apstream || !o.chromium || o.scripts.length === 0) {
    console.error("usage: node browser.mjs --apstream BIN --chromium CMD SCRIPT...");
    process.exit(2);
  }
  return o;
}

// A JSON value as text with sorted keys: exact, as the page forwards what
// the wire carried (sdk.mjs's form forgives the SDK's holes instead).
function canonical(v) {
  if (Array.isArray(v)) return `[${v.map(canonical).join(",")}]`;
  if (v !== null && typeof v === "object")
    return `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${canonical(v[k])}`).join(",")}}`;
  return JSON.stringify(v);
}

// A script's events (JSONL or SSE), as the subscription must give them:
// those on its channels, framed by a root running and completed when the
// script has no root lifecycle event (apstream serve adds them).
function expected(path) {
  const text = readFileSync(path, "utf8");
  const sse = /^(data|event|id): /m.test(text.slice(0, 200));
  const raw = sse
    ? text.split(/\r?\n\r?\n/).map((b) => b.split(/\r?\n/).filter((l) => l.startsWith("data:"))
        .map((l) => l.slice(5).replace(/^ /, "")).join("\n")).filter((d) => d !== "")
    : text.split("\n").filter((l) => l.trim() !== "");
  let events = raw.map((d) => JSON.parse(d)).filter((e) => e.type === undefined || e.type === "event");
  const rootLifecycle = (e) => e.method === "lifecycle" && e.params.namespace.length === 0;
  if (!events.some(rootLifecycle)) {
    const frame = (event) => ({ method: "lifecycle", params: { namespace: [], data: { event } } });
    events = [frame("running"), ...events, frame("completed")];
  }
  const channel = (e) => (e.method === "input.requested" ? "input" : e.method);
  return events.filter((e) => channels.includes(channel(e)));
}

// The first difference between the events got and those wanted, or null.
function difference(got, want) {
  const n = Math.min(got.length, want.length);
  for (let i = 0; i < n; i++) {
    if (got[i].method !== want[i].method) return `event ${i}: method ${got[i].method}, the script's ${want[i].method}`;
    const g = canonical(got[i].params?.data), w = canonical(want[i].params.data);
    if (g !== w) return `event ${i} (${want[i].method}): params.data\n    got    ${g}\n    script ${w}`;
  }
  return got.length !== want.length ? `${got.length} events, the script has ${want.length}` : null;
}

// apstream serve on a free port, answering CORS preflights for `cors` only.
function startServer(apstream, scripts, cors) {
  const args = ["serve", "--listen", "127.0.0.1:0", "--pace", "0", "--cors", cors];
  for (const s of scripts) args.push("--script", s);
  return startProcess(apstream, args);
}

async function stopServer(server) {
  if (server.child.exitCode === null && server.child.signalCode === null) server.child.kill("SIGTERM");
  const timer = setTimeout(() => server.child.kill("SIGKILL"), 5000);
  await server.exited;
  clearTimeout(timer);
}

// The page's origin: browser.html, its config, and the report it POSTs back.
function startOrigin(config) {
  const page = readFileSync(join(dirname(fileURLToPath(import.meta.url)), "browser.html"));
  let gotReport;
  const report = new Promise((r) => { gotReport = r; });
  const http = createServer((req, res) => {
    if (req.method === "GET" && req.url === "/") {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(page);
    } else if (req.method === "GET" && req.url === "/config.json") {
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(config));
    } else if (req.method === "POST" && req.url === "/report") {
      let body = "";
      req.on("data", (d) => { body += d; });
      req.on("end", () => {
        res.writeHead(204).end();
        try { gotReport(JSON.parse(body)); } catch (e) { gotReport({ error: `an unreadable report: ${e}` }); }
      });
    } else {
      res.writeHead(404).end();
    }
  });
  return new Promise((resolve) => {
    http.listen(0, "127.0.0.1", () => resolve({ http, url: `http://127.0.0.1:${http.address().port}`, report }));
  });
}

// Chromium in a process group of its own, so that all of it can be killed.
function startChromium(cmd, url, profile) {
  const args = ["--headless=new", "--disable-gpu", "--no-sandbox", `--user-data-dir=${profile}`,
    "--no-first-run", "--no-default-browser-check", "--disable-extensions", "--disable-sync",
    "--disable-background-networking", "--disable-component-update", url];
  const child = spawn(cmd, args, { stdio: ["ignore", "ignore", "pipe"], detached: true });
  const browser = { child, log: "" };
  child.stderr.on("data", (d) => { browser.log += d; });
  browser.exited = new Promise((r) => child.on("exit", r));
  return browser;
}

async function stopChromium(browser) {
  const group = (sig) => { try { process.kill(-browser.child.pid, sig); } catch { /* gone */ } };
  group("SIGTERM");
  const timer = setTimeout(() => group("SIGKILL"), 5000);
  await browser.exited;
  clearTimeout(timer);
  group("SIGKILL"); // whatever of the group outlived its leader
}

// Every check on the report and the two servers' logs; the failures.
function check(o, config, report, allowed, refused) {
  const failures = [];
  if (report.error !== undefined) return [`the page failed: ${report.error}`];
  o.scripts.forEach((script, i) => {
    const thread = config.threads[i];
    const got = report.threads.find((t) => t.thread === thread);
    const want = expected(script);
    if (got === undefined) failures.push(`${script}: the page reported nothing for ${thread}`);
    else if (got.error !== undefined) failures.push(`${script}: ${got.error}`);
    else {
      const d = difference(got.events, want);
      console.log(`${script}: ${got.events.length} events in the browser, the script's ${want.length}: ${d === null ? "equal" : "different"}`);
      if (d !== null) failures.push(`${script} on ${thread}: ${d}`);
    }
    for (const path of ["commands", "stream/events"])
      if (!allowed.log().includes(`OPTIONS /threads/${thread}/${path}: preflight allowed`))
        failures.push(`${thread}: no allowed preflight of /${path} in the server's log`);
  });
  report.refused.forEach((r, i) => {
    if (!r.ok) failures.push(`request ${i} from a refused origin got through: HTTP ${r.status}`);
  });
  const t = config.refusedThread;
  for (const path of ["commands", "stream/events"])
    if (!refused.log().includes(`OPTIONS /threads/${t}/${path}: preflight refused`))
      failures.push(`${t}: no refused preflight of /${path} in the second server's log`);
  if (refused.log().includes(`${t}: command`) || refused.log().includes(`${t}: SSE stream opened`))
    failures.push(`${t}: a request from a refused origin reached the second server`);
  return failures;
}

async function main() {
  const o = parseArgs(process.argv.slice(2));
  const started = Date.now();
  // Runs at --pace 0 take milliseconds; Chromium's start, a second.
  const pageTimeoutMs = 20000 + 5000 * o.scripts.length;
  const config = {
    channels,
    graceMs: 300,
    runTimeoutMs: 5000,
    threads: o.scripts.map((_, i) => `browser-${process.pid}-${i}`),
    refusedThread: `browser-${process.pid}-refused`,
  };
  const origin = await startOrigin(config);
  const profile = mkdtempSync(join(tmpdir(), "interop-browser-"));
  let allowed = null, refused = null, browser = null, failures;
  try {
    // One server plays the scripts in turn, one run.start each; the page
    // starts them in the same order.
    allowed = await startServer(o.apstream, o.scripts, origin.url);
    refused = await startServer(o.apstream, o.scripts.slice(0, 1), "http://refused.invalid");
    config.server = allowed.url;
    config.refusedServer = refused.url;
    browser = startChromium(o.chromium, `${origin.url}/`, profile);
    const report = await withTimeout(Promise.race([origin.report, browser.exited.then((code) => {
      throw new Error(`chromium exited ${code} before the page reported`);
    })]), pageTimeoutMs, "the page's report");
    await stopServer(allowed);
    await stopServer(refused);
    failures = check(o, config, report, allowed, refused);
  } catch (e) {
    failures = [String(e.message ?? e)];
  } finally {
    if (browser !== null) await stopChromium(browser);
    for (const s of [allowed, refused]) if (s !== null) await stopServer(s);
    origin.http.closeAllConnections();
    origin.http.close();
    rmSync(profile, { recursive: true, force: true });
  }
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  if (failures.length === 0) {
    console.log(`interop-browser: ${o.scripts.length} scripts through Chromium from ${origin.url}: equal; ` +
      `CORS preflights allowed, and refused for another origin (${seconds} s)`);
    process.exit(0);
  }
  for (const f of failures) console.log(`FAIL ${f}`);
  const tail = (s) => s.split("\n").slice(-30).join("\n");
  if (allowed !== null) console.log(`the server's log, last lines:\n${tail(allowed.log())}`);
  if (refused !== null) console.log(`the second server's log, last lines:\n${tail(refused.log())}`);
  if (browser !== null) console.log(`chromium's stderr, last lines:\n${tail(browser.log)}`);
  process.exit(1);
}

main();
