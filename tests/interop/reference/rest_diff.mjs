// rest_diff.mjs - the REST differential: one script of the SDK's classic
// Client (assistants, threads, runs, store, refusals) played against the
// reference server (server.mjs) and against `apstream serve`, which plays
// captures of the same graphs' runs that this test records from the
// reference server first. Every HTTP exchange is compared: its status, and
// the JSON shape of its answer (key sets and value types; ids, timestamps
// and other run-dependent values aside); each stream by its event names and
// the shape of each event's data.
//
//   node rest_diff.mjs MODULES APSTREAM BASELINE [--write-shapes DIR]
//
// MODULES is install.sh's folder, BASELINE the differences we keep
// (docs/baselines/rest-langgraph-api-1.5.1.jsonl, each a decision written
// in docs/interpretations.md, "The REST API beside the reference server").
// Fails on a difference the baseline does not name, and on a baseline entry
// that no longer differs. --write-shapes writes both sides' shapes for a
// reader. Exits 0 or 1; bounded (every wait has a limit).
import { randomUUID } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { startProcess, withTimeout } from "../process.mjs";
import { CASES, runWs, startReference } from "./client.mjs";

const args = process.argv.slice(2);
const shapesAt = args.indexOf("--write-shapes");
const shapesDir = shapesAt >= 0 ? args.splice(shapesAt, 2)[1] : null;
const [modulesArg, apstream, baselineFile] = args;
if (!modulesArg || !apstream || !baselineFile) {
  console.error("usage: node rest_diff.mjs MODULES APSTREAM BASELINE [--write-shapes DIR]");
  process.exit(2);
}
const modules = resolve(modulesArg);
const require = createRequire(join(modules, "package.json"));
const sdk = await import(pathToFileURL(require.resolve("@langchain/langgraph-sdk")).href);

// ---- shapes: what is compared of a JSON value

// Keys that name a run-dependent thing (a message, run or tool call id) are
// one key, "{id}": messages/metadata is keyed by message id, for example.
const idKey = /^([0-9a-f]{8}-[0-9a-f]{4}-|run-|lc_run-|call_|chatcmpl-)/;

function shape(v) {
  if (v === null) return "null";
  if (Array.isArray(v)) return { "[]": v.map(shape).reduce(merge, "empty") };
  if (typeof v === "object") {
    const out = {};
    for (const [k, x] of Object.entries(v)) {
      const key = idKey.test(k) ? "{id}" : k;
      out[key] = key in out ? merge(out[key], shape(x)) : shape(x);
    }
    return out;
  }
  return typeof v;
}

// Two shapes of values that can stand in one place (array elements): an
// empty array merges with any, objects merge key by key, other differences
// become "a|b".
function merge(a, b) {
  if (a === "empty") return b;
  if (b === "empty") return a;
  const kind = (s) => (typeof s === "string" ? s : "[]" in s ? "array" : "object");
  if (kind(a) === "object" && kind(b) === "object") {
    const out = { ...a };
    for (const [k, s] of Object.entries(b)) out[k] = k in out ? merge(out[k], s) : s;
    return out;
  }
  if (kind(a) === "array" && kind(b) === "array") return { "[]": merge(a["[]"], b["[]"]) };
  const names = new Set([...String(typeName(a)).split("|"), ...String(typeName(b)).split("|")]);
  if (names.size === 1) return a;
  return [...names].sort().join("|");
}
const typeName = (s) => (typeof s === "string" ? s : "[]" in s ? "array" : "object");

// The differences between two shapes, as { path, kind, reference, serve }:
// kind "missing" (the reference has the key, serve not), "extra" (the
// other way), "type".
function compareShapes(ref, ours, path, out) {
  if (typeName(ref) === "object" && typeName(ours) === "object") {
    for (const k of Object.keys(ref)) {
      if (!(k in ours)) out.push({ path: `${path}/${k}`, kind: "missing", reference: typeName(ref[k]) });
      else compareShapes(ref[k], ours[k], `${path}/${k}`, out);
    }
    for (const k of Object.keys(ours)) if (!(k in ref)) out.push({ path: `${path}/${k}`, kind: "extra", serve: typeName(ours[k]) });
    return out;
  }
  if (typeName(ref) === "array" && typeName(ours) === "array") {
    if (ref["[]"] !== "empty" && ours["[]"] !== "empty") compareShapes(ref["[]"], ours["[]"], `${path}/[]`, out);
    return out;
  }
  if (typeName(ref) !== typeName(ours)) out.push({ path, kind: "type", reference: typeName(ref), serve: typeName(ours) });
  return out;
}

// ---- the exchanges: every request the SDK (or the script) makes, recorded

let exchanges = null; // the current step's, or null between steps
const realFetch = globalThis.fetch;
async function recordingFetch(input, init = {}) {
  const res = await realFetch(input, init);
  if (exchanges == null) return res;
  const url = new URL(typeof input === "string" ? input : input.url);
  const entry = { method: init.method ?? "GET", path: url.pathname, status: res.status };
  exchanges.push(entry);
  const type = res.headers.get("content-type") ?? "";
  if (type.startsWith("application/json")) {
    const text = await res.clone().text();
    try { entry.body = text === "" ? undefined : JSON.parse(text); } catch { entry.body = `not JSON: ${text.slice(0, 80)}`; }
  } else {
    entry.type = type.split(";")[0];
  }
  return res;
}
sdk.overrideFetchImplementation(recordingFetch);

async function collect(iter) {
  const parts = [];
  for await (const p of iter) parts.push(p);
  return parts;
}

// A stream's parts as what is compared: the set of event names, and the
// shape of each event's data, merged over its events.
function streamShape(parts) {
  const byEvent = {};
  for (const p of parts) byEvent[p.event] = p.event in byEvent ? merge(byEvent[p.event], shape(p.data)) : shape(p.data);
  return { streamShape: byEvent };
}

// ---- the script: the same calls against either server

// Returns [{ step, exchanges: [{method, path, status, body?, type?}], result? }]:
// result is a stream's shape (streamShape).
async function play(url, graphs) {
  // No retries (the SDK's default is four more attempts on a 5xx, after 1, 2, 4 and 8 s or so):
  // each request is one exchange, its status compared. A retry only ever followed a 5xx, which
  // is a status difference already; the attempts' count is the SDK's, not either server's. (The
  // reference's 500 to assistants.getSchemas cost 21 s of retries, two thirds of this test.)
  const client = new sdk.Client({ apiUrl: url, callerOptions: { maxRetries: 0 } });
  const limit = (p, what) => withTimeout(p, 30000, what);
  const log = [];
  // One step: its name, and a function returning what is compared beside
  // its exchanges (a stream's shape, say), or throwing (an HTTP error: its
  // exchange already holds the status and body).
  async function step(name, fn) {
    exchanges = [];
    const entry = { step: name, exchanges };
    try {
      const result = await limit(fn(), name);
      // a stream's shape (its exchange has no JSON body); other results are their exchanges' bodies
      if (result?.streamShape !== undefined) entry.result = result.streamShape;
    } catch (e) {
      if (e.status === undefined && !/HTTP|status/.test(String(e.message))) entry.error = String(e.message).slice(0, 200);
    }
    exchanges = null;
    log.push(entry);
    return entry;
  }
  const raw = (method, path, body) => recordingFetch(`${url}${path}`, {
    method, headers: { "content-type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) });
  let thread, other, agentId, runId, copyId, paused;

  await step("GET /ok", () => raw("GET", "/ok"));
  await step("GET /info", () => raw("GET", "/info"));
  await step("assistants.search", async () => {
    const found = await client.assistants.search({ graphId: graphs.agent });
    agentId = found[0]?.assistant_id;
  });
  await step("assistants.get", () => client.assistants.get(agentId));
  await step("assistants.getGraph", () => client.assistants.getGraph(agentId));
  await step("assistants.getSchemas", () => client.assistants.getSchemas(agentId));
  await step("assistants.get unknown", () => client.assistants.get(randomUUID()));
  await step("threads.create", async () => { thread = (await client.threads.create({ metadata: { user: "ada" } })).thread_id; });
  await step("threads.create other", async () => { other = (await client.threads.create({ metadata: { user: "bob" } })).thread_id; });
  await step("threads.get", () => client.threads.get(thread));
  await step("threads.update", () => client.threads.update(thread, { metadata: { n: 2 } }));
  await step("threads.search", () => client.threads.search({ metadata: { user: "ada" } }));
  await step("threads.count", () => client.threads.count({}));
  await step("threads.create taken", () => client.threads.create({ threadId: thread }));
  await step("threads.get unknown", () => client.threads.get(randomUUID()));
  await step("runs.stream values updates messages-tuple", async () => {
    const parts = await collect(client.runs.stream(thread, graphs.agent, {
      input: { messages: [{ type: "human", content: "What is the weather in Paris?" }] },
      streamMode: ["values", "updates", "messages-tuple"] }));
    runId = parts[0]?.data?.run_id;
    return streamShape(parts);
  });
  await step("runs.stream messages", async () => streamShape(await collect(client.runs.stream(thread, graphs.agent, {
    input: { messages: [{ type: "human", content: "And in Rome?" }] }, streamMode: ["messages"] }))));
  await step("runs.stream tasks checkpoints debug custom", async () => streamShape(await collect(client.runs.stream(other, graphs.agent, {
    input: { messages: [{ type: "human", content: "What is the weather in Paris?" }] },
    streamMode: ["tasks", "checkpoints", "debug", "custom"] }))));
  await step("threads.get after runs", () => client.threads.get(thread));
  await step("threads.getState", () => client.threads.getState(thread));
  await step("threads.getHistory", () => client.threads.getHistory(thread, { limit: 3 }));
  await step("runs.list", () => client.runs.list(thread));
  await step("runs.get", () => client.runs.get(thread, runId));
  await step("runs.get unknown", () => client.runs.get(thread, randomUUID()));
  await step("runs.joinStream ended", async () => streamShape(await collect(
    client.runs.joinStream(thread, runId, { lastEventId: "1", streamMode: ["values"] }))));
  await step("threads.updateState", () => client.threads.updateState(thread, { values: { messages: [] } }));
  await step("threads.copy", async () => { copyId = (await client.threads.copy(thread)).thread_id; });
  await step("threads.get copy", () => client.threads.get(copyId));
  await step("runs.wait", () => client.runs.wait(other, graphs.agent, {
    input: { messages: [{ type: "human", content: "What is the weather in Paris?" }] } }));
  await step("runs.wait stateless", () => client.runs.wait(null, graphs.agent, {
    input: { messages: [{ type: "human", content: "What is the weather in Paris?" }] } }));
  await step("runs.wait unknown thread", () => client.runs.wait(randomUUID(), graphs.agent, { input: {} }));
  await step("runs.wait if_not_exists", () => client.runs.wait(randomUUID(), graphs.agent, {
    input: { messages: [{ type: "human", content: "What is the weather in Paris?" }] }, ifNotExists: "create" }));
  await step("runs.create and join", async () => {
    const run = await client.runs.create(other, graphs.agent, {
      input: { messages: [{ type: "human", content: "What is the weather in Paris?" }] } });
    await client.runs.join(other, run.run_id);
  });
  await step("interrupt: runs.stream", async () => {
    paused = (await client.threads.create()).thread_id;
    return streamShape(await collect(client.runs.stream(paused, graphs.interrupt, {
      input: { messages: [{ type: "human", content: "Book me a flight to Paris." }] }, streamMode: ["values", "updates"] })));
  });
  await step("interrupt: threads.get", () => client.threads.get(paused));
  await step("interrupt: threads.getState", () => client.threads.getState(paused));
  await step("interrupt: resume", async () => streamShape(await collect(client.runs.stream(paused, graphs.interrupt, {
    command: { resume: "yes" }, streamMode: ["values"] }))));
  await step("store.putItem", () => client.store.putItem(["users", "ada"], "profile", { name: "Ada", n: 1 }));
  await step("store.putItem other", () => client.store.putItem(["docs"], "readme", { text: "hello world" }));
  await step("store.getItem", () => client.store.getItem(["users", "ada"], "profile"));
  await step("store.getItem missing", () => client.store.getItem(["users", "ada"], "missing"));
  await step("store.searchItems", () => client.store.searchItems(["users"], { filter: { name: "Ada" }, limit: 5 }));
  await step("store.listNamespaces", () => client.store.listNamespaces({ prefix: ["users"] }));
  await step("store.deleteItem", () => client.store.deleteItem(["users", "ada"], "profile"));
  await step("refused: a bad thread body", () => raw("POST", "/threads", { metadata: 5 }));
  await step("refused: a bad store item", () => raw("PUT", "/store/items", { namespace: ["a", 7], key: "k", value: {} }));
  await step("refused: a body that is not JSON", () => recordingFetch(`${url}/threads/search`, {
    method: "POST", headers: { "content-type": "application/json" }, body: "{not json" }));
  await step("threads.delete", () => client.threads.delete(other));
  await step("threads.get deleted", () => client.threads.get(other));
  return log;
}

// ---- the comparison

// Every difference of the two logs, as { step, at, path, kind, reference?, serve? }:
// `at` is "exchange N" (its status, or its body's shape) or "result".
function differences(ref, ours) {
  const out = [];
  for (let i = 0; i < ref.length; i++) {
    const a = ref[i];
    const b = ours[i];
    const add = (at, d) => out.push({ step: a.step, at, ...d });
    if (a.error || b.error) add("step", { path: "", kind: "error", reference: a.error ?? "", serve: b.error ?? "" });
    if (a.exchanges.length !== b.exchanges.length) {
      add("exchanges", { path: "", kind: "count", reference: a.exchanges.map((e) => `${e.method} ${e.status}`).join(", "),
                         serve: b.exchanges.map((e) => `${e.method} ${e.status}`).join(", ") });
    }
    for (let j = 0; j < Math.min(a.exchanges.length, b.exchanges.length); j++) {
      const x = a.exchanges[j];
      const y = b.exchanges[j];
      if (x.status !== y.status) add(`exchange ${j}`, { path: "", kind: "status", reference: x.status, serve: y.status });
      else if ((x.type ?? "json") !== (y.type ?? "json")) add(`exchange ${j}`, { path: "", kind: "content-type", reference: x.type ?? "json", serve: y.type ?? "json" });
      else for (const d of compareShapes(shape(x.body ?? null), shape(y.body ?? null), "", [])) add(`exchange ${j}`, d);
    }
    if (a.result !== undefined || b.result !== undefined) {
      for (const d of compareShapes(a.result ?? {}, b.result ?? {}, "", [])) add("result", d);
    }
  }
  return out;
}

const keyOf = (d) => `${d.step} | ${d.at} | ${d.path} | ${d.kind}`;
const baseline = readFileSync(baselineFile, "utf8").split("\n").filter((l) => l.trim() && !l.startsWith("#"))
  .map((l) => JSON.parse(l));

const tmp = mkdtempSync(join(tmpdir(), "rest-diff-"));
let reference = null;
let serve = null;
let failed = false;
try {
  reference = await startReference(modules);
  // The captures serve plays: this reference server's own runs of the two graphs.
  // (both at once, each on its thread: they do not meet)
  const scripts = (await Promise.all(["agent", "interrupt"].map(async (name) => {
    const ws = await runWs(reference.url, `capture-${name}`, CASES[name], modules);
    const file = join(tmp, `${name}.ws.jsonl`);
    writeFileSync(file, ws.events.map((e) => JSON.stringify(e) + "\n").join(""));
    return ["--script", file];
  }))).flat();
  const graphs = { agent: CASES.agent.graph, interrupt: CASES.interrupt.graph };
  const refLog = await play(reference.url, graphs);
  serve = await startProcess(apstream, ["serve", "--listen", "127.0.0.1:0", "--pace", "0", ...scripts]);
  const serveLog = await play(serve.url, graphs);
  if (shapesDir) {
    writeFileSync(join(shapesDir, "reference.json"), JSON.stringify(refLog, null, 1));
    writeFileSync(join(shapesDir, "serve.json"), JSON.stringify(serveLog, null, 1));
  }
  const found = differences(refLog, serveLog);
  const kept = new Set(baseline.map(keyOf));
  const seen = new Set(found.map(keyOf));
  for (const d of found) {
    if (!kept.has(keyOf(d))) {
      failed = true;
      console.error(`NEW ${JSON.stringify(d)}`);
    }
  }
  for (const b of baseline) {
    if (!seen.has(keyOf(b))) {
      failed = true;
      console.error(`GONE (remove it from the baseline) ${keyOf(b)}`);
    }
  }
  console.log(`rest-diff: ${refLog.length} steps, ${refLog.reduce((n, s) => n + s.exchanges.length, 0)} exchanges; ` +
              `${found.length} differences, ${found.filter((d) => kept.has(keyOf(d))).length} of them kept by the baseline`);
} catch (e) {
  failed = true;
  console.error(`FAIL ${e.stack ?? e}`);
  if (serve) console.error(serve.log().split("\n").slice(-20).join("\n"));
} finally {
  if (serve) {
    serve.child.kill("SIGTERM");
    const code = await withTimeout(serve.exited, 10000, "serve's exit").catch((e) => e.message);
    if (code !== 0) { failed = true; console.error(`serve exited ${code}`); }
  }
  if (reference) await reference.stop().catch((e) => { failed = true; console.error(String(e)); });
  rmSync(tmp, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
