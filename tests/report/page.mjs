// page.mjs - headless Chromium loads the page `apstream report` writes of
// each capture, and the page is checked against the capture and the other
// commands (ctest report-page, report-hostile, report-bench):
//
//   - lanes: one per namespace of the capture (and the root);
//   - messages: each bubble's texts are those of `apstream assemble`;
//   - findings: the page's are `apstream validate --output json`'s, and each
//     finding's link selects its event's row, scrolled into view;
//   - filters: each channel and namespace narrows the list to the events
//     the capture has there; the list keeps a few dozen rows in the DOM;
//   - hostile strings: no script of the capture runs (a page-level canary
//     stays unset), no element, event handler or link comes from it, and
//     its strings are there as text;
//   - a screenshot of the first capture: its lanes' lifecycle spans, a
//     message bubble and a finding marker are in the pixels.
//
//   node page.mjs --apstream BIN --chromium CMD [--hostile] [--screenshot]
//                 [--bench EVENTS --gen GEN_CAPTURE] CAPTURE...
//
// The pages are served by a node http server on 127.0.0.1 together with a
// harness page that loads each in a same-origin iframe, reads its DOM and
// POSTs what it found; everything started here is killed at the end.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { inflateSync } from "node:zlib";

import { withTimeout } from "../interop/process.mjs";
import { startChromium, stopChromium } from "./chromium.mjs";

function parseArgs(argv) {
  const o = { captures: [] };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--apstream") o.apstream = argv[++i];
    else if (argv[i] === "--chromium") o.chromium = argv[++i];
    else if (argv[i] === "--hostile") o.hostile = true;
    else if (argv[i] === "--screenshot") o.screenshot = true;
    else if (argv[i] === "--bench") o.bench = Number(argv[++i]);
    else if (argv[i] === "--gen") o.gen = argv[++i];
    else o.captures.push(argv[i]);
  }
  if (!o.apstream || !o.chromium || (o.captures.length === 0 && !o.hostile && !o.bench)) {
    console.error("usage: node page.mjs --apstream BIN --chromium CMD [--hostile] [--screenshot] [--bench N --gen GEN] CAPTURE...");
    process.exit(2);
  }
  return o;
}

const tmp = mkdtempSync(join(tmpdir(), "report-page-"));
const failures = [];
const fail = (what) => failures.push(what);

// ---- the capture, as the checks need it -----------------------------------

// The capture's records (JSONL: its non-blank lines; SSE: sse2jsonl's), parsed where they parse.
function records(o, path) {
  const text = readFileSync(path, "latin1").slice(0, 300);
  const sse = /^(data|event|id|:)/m.test(text.split("\n").find((l) => l.trim() !== "") ?? "");
  const body = sse ? spawnSync(o.apstream, ["sse2jsonl", path], { maxBuffer: 1 << 30 }).stdout.toString()
                   : readFileSync(path, "utf8");
  return body.split("\n").filter((l) => l.trim() !== "").map((l) => {
    try { return JSON.parse(l); } catch { return null; }
  });
}
const channelOf = (m) => (m === "input.requested" ? "input" : m);
const nsOf = (r) => {
  const ns = r?.params?.namespace;
  return Array.isArray(ns) && ns.every((s) => typeof s === "string") ? JSON.stringify(ns) : null;
};

function expected(o, path) {
  const recs = records(o, path);
  const lanes = new Set(["[]"]), channels = {}, spaces = {};
  for (const r of recs) {
    const ns = nsOf(r);
    if (ns !== null) { lanes.add(ns); spaces[ns] = (spaces[ns] ?? 0) + 1; }
    if (r !== null && typeof r.method === "string") channels[channelOf(r.method)] = (channels[channelOf(r.method)] ?? 0) + 1;
  }
  const assembled = spawnSync(o.apstream, ["assemble", path], { maxBuffer: 1 << 30 }).stdout.toString()
    .split("\n").filter((l) => l !== "").map((l) => JSON.parse(l));
  const messages = assembled.filter((v) => v.kind === "message")
    .map((m) => (Array.isArray(m.content) ? m.content : []).filter((b) => typeof b?.text === "string").map((b) => b.text));
  const v = spawnSync(o.apstream, ["validate", "--output", "json", "--max-errors", "0", path], { maxBuffer: 1 << 30 });
  let findings = [];
  try { findings = JSON.parse(v.stdout.toString()).errors; } catch { /* no capture: the gate said so */ }
  return { records: recs, lanes: [...lanes].sort(), channels, spaces, messages, findings };
}

function report(o, path, out) {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(o.apstream, ["report", path, "-o", out], { maxBuffer: 1 << 30 });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status === 2 || r.error) fail(`${path}: apstream report exited ${r.status}: ${r.stderr}`);
  return { ms, status: r.status, bytes: statSync(out).size };
}

// ---- the harness: the browser side ----------------------------------------

const harness = `<!DOCTYPE html><meta charset="utf-8"><body><script>
(async function () {
  const cfg = await (await fetch("/config.json")).json();
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
  async function until(f, ms) { const end = Date.now() + ms; while (!f()) { if (Date.now() > end) return false; await sleep(10); } return true; }
  async function facts(frame, c) {
    const w = frame.contentWindow, d = frame.contentDocument, f = {};
    f.lanes = [...d.querySelectorAll("svg g.lane")].map((g) => g.getAttribute("data-ns"));
    f.bubbles = [...d.querySelectorAll(".bubble")].map((b) => [...b.querySelectorAll(".btext")].map((x) => x.textContent));
    f.summary = JSON.parse(d.getElementById("aps-summary").textContent);
    f.rowsInDom = d.querySelectorAll(".ev-row").length;
    const count = () => d.getElementById("f-count").textContent;
    const change = (id) => d.getElementById(id).dispatchEvent(new Event("change"));
    f.channels = {}; f.spaces = {}; f.subtree = {};
    const ch = d.getElementById("f-channel"), ns = d.getElementById("f-ns"), sub = d.getElementById("f-sub");
    for (const opt of [...ch.options].filter((x) => x.value !== "")) { ch.value = opt.value; change("f-channel"); f.channels[opt.value] = count(); }
    ch.value = ""; change("f-channel");
    sub.checked = false;
    for (const opt of [...ns.options].filter((x) => x.value !== "")) {
      ns.value = opt.value; change("f-ns");
      f.spaces[JSON.stringify(f.summary.namespaces[+opt.value])] = count();
    }
    ns.value = ""; sub.checked = true; change("f-ns");
    f.links = [];
    for (const a of [...d.querySelectorAll("#findings a.flink")].slice(0, c.maxLinks)) {
      a.click();
      await sleep(20);
      const row = d.querySelector(".ev-row.selected"), vp = d.getElementById("ev-viewport");
      let visible = false, got = null;
      if (row) {
        const rr = row.getBoundingClientRect(), vr = vp.getBoundingClientRect();
        visible = rr.top >= vr.top - 1 && rr.bottom <= vr.bottom + 1 && row.style.display !== "none";
        got = row.querySelector(".c-line").textContent;
      }
      f.links.push({ want: a.getAttribute("href"), got, visible });
    }
    f.pwned = [w.__pwned, window.__pwned].filter((x) => x !== undefined).map(String);
    f.tags = {};
    for (const e of d.querySelectorAll("*")) f.tags[e.tagName.toLowerCase()] = (f.tags[e.tagName.toLowerCase()] || 0) + 1;
    f.handlers = [...d.querySelectorAll("*")].filter((e) => [...e.attributes].some((a) => /^on/i.test(a.name))).length;
    f.hrefs = [...d.querySelectorAll("[href],[src]")].map((e) => e.getAttribute("href") || e.getAttribute("src")).filter((h) => !/^#/.test(h));
    f.text = c.lookFor ? [...d.querySelectorAll(".btext, pre, .bhead, text, .c-text, li")].some((e) => e.textContent.indexOf(c.lookFor) >= 0) : null;
    f.heap = performance.memory ? w.performance.memory.usedJSHeapSize : null;
    f.renderMs = w.apstreamReport ? w.apstreamReport.renderMs : null;
    return f;
  }
  const out = [];
  for (const c of cfg.cases) {
    const frame = document.createElement("iframe");
    frame.width = 1400; frame.height = 900;
    const t0 = performance.now();
    frame.src = c.url;
    document.body.appendChild(frame);
    const ok = await until(() => { try { return frame.contentDocument.documentElement.getAttribute("data-ready") === "1"; } catch (e) { return false; } }, c.timeoutMs);
    const loadMs = performance.now() - t0;
    let f;
    try { f = ok ? await facts(frame, c) : { error: "the page did not get ready" }; } catch (e) { f = { error: String(e) }; }
    f.loadMs = loadMs;
    out.push(f);
    frame.remove();
    await sleep(50);
  }
  await fetch("/result", { method: "POST", body: JSON.stringify(out) });
})().catch((e) => fetch("/result", { method: "POST", body: JSON.stringify({ error: String(e) }) }));
</script>`;

function serve(config, pages) {
  let gotResult;
  const result = new Promise((r) => { gotResult = r; });
  const http = createServer((req, res) => {
    const m = /^\/r\/(\d+)\.html$/.exec(req.url);
    if (req.method === "GET" && req.url === "/") res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(harness);
    else if (req.method === "GET" && req.url === "/config.json") res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(config));
    else if (req.method === "GET" && m && pages[+m[1]]) res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(readFileSync(pages[+m[1]]));
    else if (req.method === "POST" && req.url === "/result") {
      let body = "";
      req.on("data", (d) => { body += d; });
      req.on("end", () => { res.writeHead(204).end(); gotResult(JSON.parse(body)); });
    } else res.writeHead(404).end();
  });
  return new Promise((resolve) => http.listen(0, "127.0.0.1", () => resolve({ http, url: `http://127.0.0.1:${http.address().port}`, result })));
}


// ---- the checks on what the page showed -----------------------------------

const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
const key = (f) => `${f.line}|${f.rule}|${f.message}`;

function check(name, want, got, hostile) {
  if (got.error) return fail(`${name}: ${got.error}`);
  const lanes = [...got.lanes].sort();
  if (!same(lanes, want.lanes)) fail(`${name}: lanes ${JSON.stringify(lanes)}, the capture's namespaces ${JSON.stringify(want.lanes)}`);
  // the page shows messages 200 at a time (a button shows more): those it shows are assemble's first ones
  const shown = want.messages.slice(0, 200);
  if (!same(got.bubbles, shown)) fail(`${name}: message texts differ from apstream assemble's:\n  page     ${JSON.stringify(got.bubbles).slice(0, 400)}\n  assemble ${JSON.stringify(shown).slice(0, 400)}`);
  // every finding of validate is on the page (the page has the gate's and the still-open ones too)
  const page = new Set(got.summary.findings.map(key));
  for (const f of want.findings) if (!page.has(key(f))) fail(`${name}: validate's finding is not on the page: ${key(f)}`);
  const fromChecker = got.summary.findings.filter((f) => f.rule !== "unfinished" && f.rule !== "input");
  if (fromChecker.length !== want.findings.length) fail(`${name}: ${fromChecker.length} findings of the checker on the page, validate has ${want.findings.length}`);
  for (const l of got.links) if (l.want !== `#L${l.got}` || !l.visible) fail(`${name}: the link ${l.want} selected line ${l.got} (visible: ${l.visible})`);
  const total = want.records.length;
  for (const [ch, n] of Object.entries(want.channels))
    if (got.channels[ch] !== `${n} of ${total} events`) fail(`${name}: channel ${ch}: "${got.channels[ch]}", the capture has ${n}`);
  for (const [ns, n] of Object.entries(want.spaces))
    if (got.spaces[ns] !== `${n} of ${total} events`) fail(`${name}: namespace ${ns}: "${got.spaces[ns]}", the capture has ${n}`);
  if (got.rowsInDom > 60) fail(`${name}: ${got.rowsInDom} rows in the DOM: the list is not virtualised`);
  if (got.pwned.length) fail(`${name}: a script of the capture ran: canary ${got.pwned}`);
  if (got.handlers) fail(`${name}: ${got.handlers} elements with an event handler attribute`);
  if (got.hrefs.length) fail(`${name}: links or sources that are no anchor of the page: ${got.hrefs.slice(0, 3)}`);
  // the page's own elements: its three scripts, no image, frame or object
  if (got.tags.script !== 3 || got.tags.img || got.tags.iframe || got.tags.object || got.tags.embed)
    fail(`${name}: elements the page does not make: ${JSON.stringify(got.tags)}`);
  if (hostile && got.text !== true) fail(`${name}: the hostile strings are not shown as text`);
}

// ---- the screenshot --------------------------------------------------------

// The RGB pixels of an 8-bit RGB or RGBA PNG (what Chromium writes).
function decodePng(buf) {
  let p = 8, w = 0, h = 0, type = 0;
  const idat = [];
  while (p < buf.length) {
    const len = buf.readUInt32BE(p), kind = buf.toString("latin1", p + 4, p + 8), data = buf.subarray(p + 8, p + 8 + len);
    if (kind === "IHDR") { w = data.readUInt32BE(0); h = data.readUInt32BE(4); type = data[9]; if (data[8] !== 8) throw new Error("not 8-bit"); }
    else if (kind === "IDAT") idat.push(data);
    p += 12 + len;
  }
  const bpp = type === 6 ? 4 : 3, raw = inflateSync(Buffer.concat(idat)), stride = w * bpp, px = Buffer.alloc(h * stride);
  for (let y = 0; y < h; y++) {
    const f = raw[y * (stride + 1)], src = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    for (let x = 0; x < stride; x++) {
      const a = x >= bpp ? px[y * stride + x - bpp] : 0, b = y > 0 ? px[(y - 1) * stride + x] : 0;
      const c = x >= bpp && y > 0 ? px[(y - 1) * stride + x - bpp] : 0;
      let v = src[x];
      if (f === 1) v += a; else if (f === 2) v += b; else if (f === 3) v += (a + b) >> 1;
      else if (f === 4) { const q = a + b - c, pa = Math.abs(q - a), pb = Math.abs(q - b), pc = Math.abs(q - c); v += pa <= pb && pa <= pc ? a : pb <= pc ? b : c; }
      px[y * stride + x] = v & 255;
    }
  }
  return { w, h, at: (x, y) => { const i = y * stride + x * bpp; return (px[i] << 16) | (px[i + 1] << 8) | px[i + 2]; } };
}

async function screenshot(o, page, want) {
  const png = join(tmp, "shot.png");
  const b = startChromium(o.chromium, tmp, ["--force-device-scale-factor=1", "--window-size=1400,1600", "--hide-scrollbars", `--screenshot=${png}`, `file://${page}`], "profile-shot");
  await withTimeout(b.exited, 60000, "chromium --screenshot");
  const img = decodePng(readFileSync(png));
  const RUN = 0x4c8bf5, DONE = 0x2e9d5b, MARK = 0xd93025, BUBBLE = 0xe8f0fe;
  // the rows holding lifecycle spans above the first message bubble, as bands: the legend's, then one
  // per lane with states (below, "finished" is written in the colour of completed)
  let bands = 0, inBand = false, marks = 0, bubble = 0;
  for (let y = 0; y < img.h; y++) {
    let span = false;
    for (let x = 0; x < img.w; x++) {
      const c = img.at(x, y);
      if (c === RUN || c === DONE) span = bubble === 0;
      else if (c === MARK) marks += bubble === 0 ? 1 : 0;
      else if (c === BUBBLE) bubble++;
    }
    if (span && !inBand) bands++;
    inBand = span;
  }
  const lanesWithStates = new Set(want.records.filter((r) => r?.method === "lifecycle").map(nsOf)).size;
  console.log(`screenshot: ${img.w}x${img.h}: ${bands} bands of lifecycle spans (legend + ${lanesWithStates} lanes), ${marks} finding-marker pixels, ${bubble} bubble pixels`);
  if (bands !== lanesWithStates + 1) fail(`screenshot: ${bands} bands of lifecycle spans, want the legend and ${lanesWithStates} lanes`);
  if (marks < 20) fail("screenshot: no finding marker");
  if (bubble < 2000) fail("screenshot: no message bubble");
}

// ---- hostile strings -------------------------------------------------------

const EVIL = ["<script>window.__pwned='script'</script>", "</script><script>window.__pwned='close'</script>",
  "<img src=x onerror=\"window.__pwned='img'\">", "javascript:window.__pwned='url'", "a\u2028b\u2029c",
  "<!--", "<svg onload=\"window.__pwned='svg'\">", "\"'&amp;\\", "</script >", "</SCRIPT/x>",
  "<!--<script>", "]]>"].join(" ");

function hostileCapture(path) {
  let seq = 0;
  const ev = (method, ns, data) => JSON.stringify({ type: "event", eventId: `${EVIL}${++seq}`, seq, method, params: { namespace: ns, timestamp: seq, data } });
  const ns = [EVIL], lines = [
    ev("lifecycle", [], { event: "running", graph_name: EVIL }),
    ev("lifecycle", ns, { event: "started", graph_name: EVIL }),
    ev("messages", ns, { event: "message-start", role: EVIL, id: EVIL }),
    ev("messages", ns, { event: "content-block-start", index: 0, content: { type: "text", text: "" } }),
    ev("messages", ns, { event: "content-block-delta", index: 0, delta: { type: "text-delta", text: EVIL } }),
    ev("messages", ns, { event: "content-block-finish", index: 0, content: { type: "text", text: EVIL } }),
    ev("messages", ns, { event: "message-finish", reason: EVIL }),
    ev("tools", ns, { event: "tool-started", tool_call_id: EVIL, tool_name: EVIL, input: { [EVIL]: EVIL } }),
    ev("tools", ns, { event: "tool-finished", tool_call_id: EVIL, output: EVIL }),
    ev("input.requested", ns, { interruptId: EVIL, payload: { [EVIL]: [EVIL] } }),
    ev("values", ns, { [EVIL]: EVIL }),
    ev("updates", ns, { [EVIL]: EVIL }),
    ev("lifecycle", ns, { event: EVIL, graph_name: EVIL }),
    ev(EVIL, [EVIL, EVIL], EVIL),
    `</script><script>window.__pwned='line'</script><img src=x onerror="window.__pwned='line-img'">`,
    ev("lifecycle", [], { event: "completed" }),
  ];
  writeFileSync(path, lines.join("\n") + "\n");
}

// ---- main ------------------------------------------------------------------

async function main() {
  const o = parseArgs(process.argv.slice(2));
  const cases = [];
  if (o.hostile) { const p = join(tmp, "hostile.jsonl"); hostileCapture(p); cases.push({ path: p, hostile: true }); }
  for (const c of o.captures) cases.push({ path: c });
  if (o.bench) {
    // gen_capture writes by bytes: about 310 bytes an event; cut at the event count asked for
    const p = join(tmp, "bench.jsonl");
    const g = spawnSync(o.gen, [String(o.bench * 400)], { maxBuffer: 1 << 30 });
    writeFileSync(p, g.stdout.toString().split("\n").slice(0, o.bench).join("\n") + "\n");
    cases.push({ path: p, bench: true });
  }
  const pages = [], stats = [];
  cases.forEach((c, i) => { pages.push(join(tmp, `r${i}.html`)); stats.push(report(o, c.path, pages[i])); });
  const wants = cases.map((c) => expected(o, c.path));
  const origin = await serve({
    cases: cases.map((c, i) => ({ url: `/r/${i}.html`, maxLinks: c.bench ? 5 : 30, timeoutMs: c.bench ? 120000 : 20000, lookFor: c.hostile ? EVIL : null })),
  }, pages);
  let b = null;
  try {
    b = startChromium(o.chromium, tmp, [`${origin.url}/`]);
    const got = await withTimeout(Promise.race([origin.result, b.exited.then((c) => { throw new Error(`chromium exited ${c}`); })]),
      30000 + (o.bench ? 180000 : 0) + 20000 * cases.length, "the harness");
    if (got.error) fail(`the harness: ${got.error}`);
    else cases.forEach((c, i) => {
      const g = got[i];
      check(c.path, wants[i], g, c.hostile);
      const line = `${c.hostile ? "hostile capture" : c.path}: ${wants[i].records.length} events, ${stats[i].bytes} bytes of page in ${stats[i].ms.toFixed(0)} ms; ` +
        `in Chromium ready in ${g.loadMs?.toFixed(0)} ms (script ${g.renderMs?.toFixed(0)} ms), JS heap ${g.heap === null || g.heap === undefined ? "?" : (g.heap / 1048576).toFixed(1) + " MiB"}, ` +
        `${g.lanes?.length} lanes, ${g.bubbles?.length} messages, ${g.summary?.findings.length} findings, ${g.rowsInDom} rows in the DOM`;
      console.log(line);
    });
    if (o.screenshot && cases.length) await screenshot(o, pages[cases.findIndex((c) => !c.hostile && !c.bench)], wants[cases.findIndex((c) => !c.hostile && !c.bench)]);
  } catch (e) {
    fail(String(e.message ?? e));
  } finally {
    if (b !== null) await stopChromium(b);
    origin.http.closeAllConnections();
    origin.http.close();
  }
  if (failures.length === 0) {
    rmSync(tmp, { recursive: true, force: true });
    console.log(`report-page: ${cases.length} pages checked in Chromium: pass`);
    process.exit(0);
  }
  for (const f of failures) console.log(`FAIL ${f}`);
  if (b !== null) console.log(`chromium's stderr, last lines:\n${b.log.split("\n").slice(-20).join("\n")}`);
  console.log(`(pages kept in ${tmp})`);
  process.exit(1);
}

main();
