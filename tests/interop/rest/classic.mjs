// classic.mjs - the reference client's classic API (@langchain/langgraph-sdk's
// Client: assistants, threads, runs, store) against `apstream serve`'s REST
// API (docs/rest.md), each method's result checked against what the script
// the server plays says, not only its status.
//
//   node classic.mjs --sdk DIR --apstream BIN AGENT_CAPTURE INTERRUPT_CAPTURE
//
// AGENT_CAPTURE is a protocol capture of a run that ends (a tool call, then
// text), INTERRUPT_CAPTURE one that pauses on an interrupt and goes on once
// answered (tests/interop/reference/captures/*.ws.jsonl). Two servers: one
// plays as fast as it can, one paced (15 ms an event, about a second a run) for what needs a run in
// progress (multitask strategies, cancel, join). Exits 0, or 1 on the first
// difference; bounded (every wait has a limit).
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { classic } from "../classic_values.mjs";
import { startProcess, withTimeout } from "../process.mjs";

const args = process.argv.slice(2);
const opt = { scripts: [] };
for (let i = 0; i < args.length; i++) {
  if (args[i] === "--sdk") opt.sdk = args[++i];
  else if (args[i] === "--apstream") opt.apstream = args[++i];
  else opt.scripts.push(args[i]);
}
if (!opt.sdk || !opt.apstream || opt.scripts.length !== 2) {
  console.error("usage: node classic.mjs --sdk DIR --apstream BIN AGENT_CAPTURE INTERRUPT_CAPTURE");
  process.exit(2);
}
const require = createRequire(join(resolve(opt.sdk), "package.json"));
const { Client } = await import(pathToFileURL(require.resolve("@langchain/langgraph-sdk")).href);

let failures = 0;
function check(cond, what, detail) {
  if (!cond) {
    failures++;
    console.error(`FAIL ${what}${detail !== undefined ? `: ${typeof detail === "string" ? detail : JSON.stringify(detail).slice(0, 400)}` : ""}`);
  }
}
// Equal as JSON values, object members in any order.
const same = (a, b) => JSON.stringify(sortKeys(a)) === JSON.stringify(sortKeys(b));
// REST_TRACE=1: each part's name as it starts (where a hang is)
const step = (name) => { if (process.env.REST_TRACE === "1") console.log(`-- ${name}`); };

function sortKeys(v) {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v === null || typeof v !== "object") return v;
  return Object.fromEntries(Object.keys(v).sort().map((k) => [k, sortKeys(v[k])]));
}

// What a capture says: its graph, final root values, each message's text and
// tool calls, its interrupt (if any).
function expected(file) {
  const events = readFileSync(file, "utf8").split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l))
    .filter((m) => m.type === "event");
  const root = (e) => e.params.namespace.length === 0;
  const values = events.filter((e) => e.method === "values" && root(e)).map((e) => classic(e.params.data));
  const texts = new Map();
  let current = null;
  for (const e of events.filter((x) => x.method === "messages")) {
    const d = e.params.data;
    if (d.event === "message-start") { current = d.id; texts.set(current, ""); }
    if (d.event === "content-block-delta" && d.delta.type === "text-delta") texts.set(current, texts.get(current) + d.delta.text);
  }
  const graph = events.find((e) => e.method === "lifecycle" && root(e))?.params.data.graph_name ?? "agent";
  const tools = events.filter((e) => e.method === "tools" && e.params.data.event === "tool-started")
    .map((e) => ({ id: e.params.data.tool_call_id ?? e.params.data.toolCallId, name: e.params.data.tool_name ?? e.params.data.toolName }));
  const asked = events.find((e) => e.method === "input.requested");
  const interrupt = asked?.params.data;
  const interruptNode = asked ? (asked.params.namespace.at(-1)?.split(":")[0] ?? graph) : undefined;
  const interruptAt = events.findIndex((e) => e.method === "input.requested");
  const valuesBefore = events.slice(0, interruptAt).filter((e) => e.method === "values" && root(e)).map((e) => classic(e.params.data));
  return { graph, values, final: values[values.length - 1], texts, tools, interrupt, interruptNode, valuesBefore };
}
const agent = expected(opt.scripts[0]);
const paused = expected(opt.scripts[1]);

async function collect(iter) {
  const parts = [];
  for await (const p of iter) parts.push(p);
  return parts;
}

async function status(promise) {
  try { await promise; return 200; } catch (e) { return e.status ?? e.response?.status ?? String(e.message); }
}

const started = [];
async function serve(pace) {
  const s = await startProcess(opt.apstream, ["serve", "--listen", "127.0.0.1:0", "--pace", String(pace),
    "--script", opt.scripts[0], "--script", opt.scripts[1]]);
  started.push(s);
  return s;
}

try {
  const fast = await serve(0);
  const paced = await serve(15);
  const client = new Client({ apiUrl: fast.url });
  const slow = new Client({ apiUrl: paced.url });
  const limit = (p, what) => withTimeout(p, 20000, what);

  // ---- assistants: one per script's graph
  step("assistants: one per script's graph");
  const assistants = await client.assistants.search();
  check(same(assistants.map((a) => a.graph_id).sort(), [agent.graph, paused.graph].sort()), "assistants.search", assistants);
  const a0 = assistants.find((a) => a.graph_id === agent.graph);
  const a1 = assistants.find((a) => a.graph_id === paused.graph);
  check(same(await client.assistants.get(a0.assistant_id), a0), "assistants.get by id");
  check((await client.assistants.get(agent.graph)).assistant_id === a0.assistant_id, "assistants.get by graph id");
  const graph = await client.assistants.getGraph(a0.assistant_id);
  check(graph.nodes.some((n) => n.id === agent.graph) && graph.edges.length === 2, "assistants.getGraph", graph);
  const schemas = await client.assistants.getSchemas(a0.assistant_id);
  check(schemas.graph_id === agent.graph && typeof schemas.input_schema === "object", "assistants.getSchemas", schemas);
  check(await status(client.assistants.get("no-such-assistant")) === 404, "assistants.get unknown: 404");

  // ---- threads
  step("threads");
  const t = await client.threads.create({ metadata: { user: "ada", n: 1 } });
  check(t.status === "idle" && same(t.metadata, { user: "ada", n: 1 }) && !("values" in t), "threads.create", t);
  check(same(await client.threads.get(t.thread_id), t), "threads.get");
  const patched = await client.threads.update(t.thread_id, { metadata: { n: 2 } });
  check(same(patched.metadata, { user: "ada", n: 2 }), "threads.update merges metadata", patched.metadata);
  const other = await client.threads.create({ metadata: { user: "bob" } });
  const found = await client.threads.search({ metadata: { user: "ada" } });
  check(found.length === 1 && found[0].thread_id === t.thread_id, "threads.search by metadata", found);
  check((await client.threads.search({ limit: 1 }))[0].thread_id === other.thread_id, "threads.search: the newest first");
  check(await client.threads.count({}) === 2, "threads.count");
  check(await client.threads.count({ metadata: { user: "bob" } }) === 1, "threads.count by metadata");
  check(await status(client.threads.create({ threadId: t.thread_id })) === 409, "threads.create of a taken id: 409");
  check((await client.threads.create({ threadId: t.thread_id, ifExists: "do_nothing" })).thread_id === t.thread_id,
        "threads.create do_nothing");
  check(await status(client.threads.get("no-such-thread")) === 404, "threads.get unknown: 404");

  // ---- runs.stream: every mode, the metadata event first
  step("runs.stream: every mode, the metadata event first");
  let created = null;
  const parts = await limit(collect(client.runs.stream(t.thread_id, agent.graph, {
    input: { messages: [{ type: "human", content: "weather?" }] },
    streamMode: ["values", "updates", "messages-tuple", "messages", "custom", "tasks", "checkpoints", "debug", "tools"],
    onRunCreated: (m) => { created = m; },
  })), "runs.stream");
  check(parts[0]?.event === "metadata" && typeof parts[0].data.run_id === "string", "runs.stream: metadata first", parts[0]);
  const runId = parts[0]?.data.run_id;
  check(created?.run_id === runId && created?.thread_id === t.thread_id, "runs.stream: Content-Location names the run", created);
  const valuesParts = parts.filter((p) => p.event === "values").map((p) => p.data);
  check(same(valuesParts, agent.values), "runs.stream values: the script's root values, in order", valuesParts.length);
  check(parts.filter((p) => p.event === "updates").every((p) => Object.keys(p.data).length === 1), "runs.stream updates: {node: update}");
  // messages-tuple: [chunk, metadata]; each message's chunks add up to its text
  const tupleText = new Map();
  for (const p of parts.filter((x) => x.event === "messages")) {
    check(Array.isArray(p.data) && p.data.length === 2 && typeof p.data[1].langgraph_node === "string", "messages-tuple shape", p.data);
    if (p.data[0].type === "ai") tupleText.set(p.data[0].id, (tupleText.get(p.data[0].id) ?? "") + p.data[0].content);
  }
  for (const [id, text] of agent.texts) check(tupleText.get(id) === text, `messages-tuple text of ${id}`, tupleText.get(id));
  // messages: /metadata, /partial (the text so far), /complete (the whole message)
  const complete = parts.filter((p) => p.event === "messages/complete").map((p) => p.data[0]);
  for (const [id, text] of agent.texts) {
    check(complete.some((m) => m.id === id && m.content === text), `messages/complete of ${id}`);
    check(parts.some((p) => p.event === "messages/metadata" && id in p.data), `messages/metadata of ${id}`);
  }
  check(parts.filter((p) => p.event === "messages/partial").every((p) => agent.texts.get(p.data[0].id)?.startsWith(p.data[0].content) ?? true),
        "messages/partial: a prefix of the message's text");
  check(parts.some((p) => p.event === "tasks" && p.data.name) && parts.some((p) => p.event === "checkpoints" && p.data.config),
        "tasks and checkpoints events");
  check(parts.filter((p) => p.event === "debug").every((p) => ["checkpoint", "task", "task_result"].includes(p.data.type)),
        "debug events");
  // tools: the script's tool calls, started and ended, by id and name
  const toolParts = parts.filter((p) => p.event === "tools").map((p) => p.data);
  check(agent.tools.length > 0 && same(toolParts.map((d) => [d.event, d.toolCallId, d.name]),
        agent.tools.flatMap((c) => [["on_tool_start", c.id, c.name], ["on_tool_end", c.id, c.name]])) &&
        toolParts.every((d) => d.event !== "on_tool_end" || d.output?.type === "tool"), "tools events", toolParts);

  // ---- after the run: thread, state, history, runs
  step("after the run: thread, state, history, runs");
  const after = await client.threads.get(t.thread_id);
  check(after.status === "idle" && same(after.values, agent.final), "thread values after the run", after.status);
  const state = await client.threads.getState(t.thread_id);
  check(same(state.values, agent.final) && state.checkpoint?.checkpoint_id && same(state.next, []), "threads.getState", state.checkpoint);
  const history = await client.threads.getHistory(t.thread_id, { limit: 100 });
  check(history.length === agent.values.length && same(history[0].values, agent.final) &&
        same(history[history.length - 1].values, agent.values[0]), "threads.getHistory: the newest first", history.length);
  check(same((await client.threads.getState(t.thread_id, history[1].checkpoint.checkpoint_id)).values, history[1].values),
        "threads.getState of a checkpoint");
  check(same((await client.threads.getState(t.thread_id, { checkpoint_id: history[2].checkpoint.checkpoint_id })).values,
             history[2].values), "threads.getState of a checkpoint object");
  const runs = await client.runs.list(t.thread_id);
  check(runs.length === 1 && runs[0].run_id === runId && runs[0].status === "success", "runs.list", runs);
  check((await client.runs.get(t.thread_id, runId)).status === "success", "runs.get");
  // a join of the ended run's stream after event 2: the rest of it, from id 3
  const rejoined = await limit(collect(client.runs.joinStream(t.thread_id, runId, { lastEventId: "2", streamMode: ["values"] })), "joinStream");
  check(rejoined.length > 0 && rejoined.every((p) => Number(p.id) > 2 && p.event === "values") &&
        same(rejoined[rejoined.length - 1].data, agent.final), "runs.joinStream after Last-Event-ID", rejoined.map((p) => p.id));
  const updated = await client.threads.updateState(t.thread_id, { values: { note: "kept" } });
  check(updated.checkpoint?.checkpoint_id, "threads.updateState", updated);
  check((await client.threads.getState(t.thread_id)).values.note === "kept", "threads.updateState: the values merged");
  const copy = await client.threads.copy(t.thread_id);
  check(copy.thread_id !== t.thread_id && same(copy.values, (await client.threads.get(t.thread_id)).values), "threads.copy");

  // ---- runs.wait, stateless runs, if_not_exists
  step("runs.wait, stateless runs, if_not_exists");
  const waited = await limit(client.runs.wait(other.thread_id, agent.graph, { input: {} }), "runs.wait");
  check(same(waited, agent.final), "runs.wait: the final values");
  check(same(await limit(client.runs.wait(null, agent.graph, { input: {} }), "stateless runs.wait"), agent.final), "runs.wait without a thread");
  check(await status(client.runs.wait("nowhere", agent.graph, { input: {} })) === 404, "a run of an unknown thread: 404");
  check(same(await limit(client.runs.wait("made-by-run", agent.graph, { input: {}, ifNotExists: "create" }), "if_not_exists"), agent.final),
        "if_not_exists create");
  check((await client.threads.get("made-by-run")).status === "idle", "if_not_exists made the thread");
  check(await status(client.runs.wait(other.thread_id, "no-such-graph", { input: {} })) === 404, "a run of an unknown assistant: 404");
  check(await client.threads.count({}) === 5, "no thread left by a refused run", await client.threads.count({}));

  // ---- one active run per thread (the paced server)
  step("one active run per thread (the paced server)");
  const st = await slow.threads.create();
  const first = await slow.runs.create(st.thread_id, agent.graph, { input: {} });
  check(first.status === "running" || first.status === "pending", "runs.create", first.status);
  check((await slow.threads.get(st.thread_id)).status === "busy", "a thread with a run is busy");
  check(await status(slow.runs.create(st.thread_id, agent.graph, { input: {} })) === 409, "multitask reject: 409");
  const queued = await slow.runs.create(st.thread_id, agent.graph, { input: {}, multitaskStrategy: "enqueue" });
  check(queued.status === "pending", "multitask enqueue: pending", queued.status);
  check(same(await limit(slow.runs.join(st.thread_id, first.run_id), "join"), agent.final), "runs.join: the values");
  check(same(await limit(slow.runs.join(st.thread_id, queued.run_id), "join queued"), agent.final), "the enqueued run ran after");
  check((await slow.runs.get(st.thread_id, queued.run_id)).status === "success", "the enqueued run succeeded");
  const third = await slow.runs.create(st.thread_id, agent.graph, { input: {} });
  const fourth = await slow.runs.create(st.thread_id, agent.graph, { input: {}, multitaskStrategy: "interrupt" });
  check((await slow.runs.get(st.thread_id, third.run_id)).status === "interrupted", "multitask interrupt: the old run interrupted");
  await limit(slow.runs.join(st.thread_id, fourth.run_id), "join interrupting");
  check((await slow.runs.get(st.thread_id, fourth.run_id)).status === "success", "multitask interrupt: the new run ran");
  const fifth = await slow.runs.create(st.thread_id, agent.graph, { input: {} });
  await slow.runs.cancel(st.thread_id, fifth.run_id);
  check((await slow.runs.get(st.thread_id, fifth.run_id)).status === "interrupted", "runs.cancel");
  check((await slow.threads.get(st.thread_id)).status === "idle", "a cancelled run leaves the thread idle");
  // a cancelled run lets the queue move on
  const sixth = await slow.runs.create(st.thread_id, agent.graph, { input: {} });
  const seventh = await slow.runs.create(st.thread_id, agent.graph, { input: {}, multitaskStrategy: "enqueue" });
  await slow.runs.cancel(st.thread_id, sixth.run_id);
  check(same(await limit(slow.runs.join(st.thread_id, seventh.run_id), "join after cancel"), agent.final) &&
        (await slow.runs.get(st.thread_id, seventh.run_id)).status === "success", "the enqueued run runs after a cancel");
  await slow.runs.delete(st.thread_id, fifth.run_id);
  check(await status(slow.runs.get(st.thread_id, fifth.run_id)) === 404, "runs.delete");

  // ---- an interrupt, answered with command.resume
  step("an interrupt, answered with command.resume");
  const it = await client.threads.create();
  const pausedParts = await limit(collect(client.runs.stream(it.thread_id, paused.graph, { input: {}, streamMode: ["values", "updates"] })), "interrupt stream");
  const interruptPart = pausedParts.find((p) => p.event === "values" && p.data.__interrupt__);
  check(interruptPart && same(interruptPart.data.__interrupt__[0].value, paused.interrupt.payload), "the interrupt as values.__interrupt__", interruptPart?.data);
  check(pausedParts.some((p) => p.event === "updates" && p.data.__interrupt__), "the interrupt as updates.__interrupt__");
  const pausedThread = await client.threads.get(it.thread_id);
  check(pausedThread.status === "interrupted", "an interrupted thread", pausedThread.status);
  const pausedState = await client.threads.getState(it.thread_id);
  check(same(pausedState.tasks[0]?.interrupts?.[0]?.value, paused.interrupt.payload), "getState: the task's interrupts", pausedState.tasks);
  check(pausedState.next.length === 1 && pausedState.next[0] === pausedState.tasks[0].name && pausedState.next[0] === paused.interruptNode,
        "getState: next names the node that asked", pausedState.next);
  const resumed = await limit(collect(client.runs.stream(it.thread_id, paused.graph, { command: { resume: "yes" }, streamMode: ["values"] })), "resume");
  check(resumed[0].event === "metadata" && resumed[0].data.run_id !== pausedParts[0].data.run_id, "the resume is a run of its own");
  check(same(resumed.filter((p) => p.event === "values").pop()?.data, paused.final), "the resumed run ends with the script's final values");
  check((await client.threads.get(it.thread_id)).status === "idle", "the answered thread is idle");
  check(await status(client.runs.wait(it.thread_id, paused.graph, { command: { resume: "again" } })) === 400,
        "a resume of a thread that waits for nothing: 400");

  // ---- the same run on the protocol's thread stream
  step("the same run on the protocol's thread stream");
  const pt = await client.threads.create();
  const prun = await client.runs.wait(pt.thread_id, agent.graph, { input: {} });
  check(same(prun, agent.final), "a run for the protocol check");
  const [plist] = [await client.runs.list(pt.thread_id)];
  const sse = await fetch(`${fast.url}/threads/${pt.thread_id}/stream/events`, {
    method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ channels: ["lifecycle", "values"], since: 0 }),
  });
  const reader = sse.body.getReader();
  let text = "";
  const deadline = Date.now() + 5000;
  while (!text.includes('"completed"') && Date.now() < deadline) {
    const { value, done } = await withTimeout(reader.read(), 5000, "protocol stream");
    if (done) break;
    text += new TextDecoder().decode(value);
  }
  await reader.cancel();
  check(text.includes(`"run_id":"${plist[0].run_id}"`) || text.includes(`"runId":"${plist[0].run_id}"`),
        "the protocol stream's events carry the REST run's id");
  // the same messages either way: each message's text deltas on the protocol stream, and on the
  // classic stream of the same run (joined from its start)
  const protoText = new Map();
  let open = null;
  const full = await fetch(`${fast.url}/threads/${pt.thread_id}/stream/events`, {
    method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ channels: ["messages", "lifecycle"], since: 0 }),
  });
  const fr = full.body.getReader();
  let ftext = "";
  while (!/"event":"completed","graph_name":"agent"|"namespace":\[\],"data":\{"event":"completed"/.test(ftext) && Date.now() < deadline + 5000) {
    const { value, done } = await withTimeout(fr.read(), 5000, "protocol messages");
    if (done) break;
    ftext += new TextDecoder().decode(value);
  }
  await fr.cancel();
  for (const line of ftext.split("\n").filter((l) => l.startsWith("data: "))) {
    const e = JSON.parse(line.slice(6));
    if (e.method !== "messages") continue;
    const d = e.params.data;
    if (d.event === "message-start") { open = d.id; protoText.set(open, ""); }
    if (d.event === "content-block-delta" && d.delta.type === "text-delta") protoText.set(open, protoText.get(open) + d.delta.text);
  }
  const classicText = new Map();
  for (const p of await limit(collect(client.runs.joinStream(pt.thread_id, plist[0].run_id, { streamMode: ["messages-tuple"] })), "join tuples")) {
    if (p.event === "messages" && p.data[0].type === "ai") classicText.set(p.data[0].id, (classicText.get(p.data[0].id) ?? "") + p.data[0].content);
  }
  check(protoText.size === agent.texts.size && [...agent.texts].every(([id, t]) => protoText.get(id) === t && classicText.get(id) === t),
        "one run, two streams: the same messages on the protocol and classic streams", { proto: [...protoText], classic: [...classicText] });

  // ---- the store
  step("the store");
  await client.store.putItem(["users", "ada"], "profile", { name: "Ada", n: 1 });
  await client.store.putItem(["users", "bob"], "profile", { name: "Bob", n: 2 });
  await client.store.putItem(["docs"], "readme", { text: "hello world" });
  const item = await client.store.getItem(["users", "ada"], "profile");
  check(item && same(item.value, { name: "Ada", n: 1 }) && same(item.namespace, ["users", "ada"]) && item.created_at && item.updated_at,
        "store.getItem", item);
  check(await client.store.getItem(["users", "ada"], "missing") === null, "store.getItem of nothing: null");
  await new Promise((r) => setTimeout(r, 5));
  await client.store.putItem(["users", "ada"], "profile", { name: "Ada", n: 3 });
  const again = await client.store.getItem(["users", "ada"], "profile");
  check(again.value.n === 3 && again.created_at === item.created_at && again.updated_at >= item.updated_at, "store.putItem replaces", again);
  const byPrefix = await client.store.searchItems(["users"]);
  check(byPrefix.items.length === 2 && byPrefix.items.every((i) => i.namespace[0] === "users"), "store.searchItems by prefix", byPrefix);
  const byFilter = await client.store.searchItems(["users"], { filter: { name: "Bob" } });
  check(byFilter.items.length === 1 && byFilter.items[0].value.n === 2, "store.searchItems by filter", byFilter);
  check((await client.store.searchItems([], { query: "hello" })).items.map((i) => i.key).join() === "readme", "store.searchItems by query");
  check((await client.store.searchItems(["users"], { limit: 1, offset: 1 })).items.length === 1, "store.searchItems limit and offset");
  const spaces = await client.store.listNamespaces({ prefix: ["users"] });
  check(same(spaces.namespaces.map((n) => n.join(".")).sort(), ["users.ada", "users.bob"]), "store.listNamespaces by prefix", spaces);
  check(same((await client.store.listNamespaces({ maxDepth: 1 })).namespaces.map((n) => n.join(".")).sort(), ["docs", "users"]),
        "store.listNamespaces max_depth");
  check(same((await client.store.listNamespaces({ suffix: ["bob"] })).namespaces, [["users", "bob"]]), "store.listNamespaces by suffix");
  await client.store.deleteItem(["users", "bob"], "profile");
  check(await client.store.getItem(["users", "bob"], "profile") === null, "store.deleteItem");

  // ---- refusals: 422 with the pointer, 413, bad ids
  step("refusals: 422 with the pointer, 413, bad ids");
  const post = (path, body, headers = {}) => fetch(`${fast.url}${path}`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body });
  let res = await post("/threads", JSON.stringify({ metadata: 5 }));
  let body = await res.json();
  check(res.status === 422 && body.pointer === "/metadata", "a bad body: 422 with its JSON Pointer", body);
  res = await fetch(`${fast.url}/store/items`, { method: "PUT", headers: { "content-type": "application/json" },
    body: JSON.stringify({ namespace: ["a", 7], key: "k", value: {} }) });
  body = await res.json();
  check(res.status === 422 && body.pointer === "/namespace/1", "a bad namespace label: 422 at /namespace/1", body);
  res = await post("/threads", JSON.stringify({ metadata: { big: "x".repeat(2 << 20) } }));
  check(res.status === 413, "an oversized body: 413", res.status);
  res = await fetch(`${fast.url}/threads/%FF%FE/state`);
  check(res.status === 422, "a thread id of invalid UTF-8: 422", res.status);
  res = await fetch(`${fast.url}/threads/${"a".repeat(200)}`);
  check(res.status === 422, "a thread id over 128 bytes: 422", res.status);
  res = await post("/threads/search", "{not json");
  check(res.status === 422, "a body that is not JSON: 422", res.status);
  check(await client.threads.count({}) === 7, "no thread left by a refused request", await client.threads.count({}));
  res = await fetch(`${fast.url}/ok`);
  check(same(await res.json(), { ok: true }), "/ok");
  res = await fetch(`${fast.url}/info`);
  check(typeof (await res.json()).version === "string", "/info");
  await client.threads.delete(other.thread_id);
  check(await status(client.threads.get(other.thread_id)) === 404, "threads.delete");
} catch (e) {
  failures++;
  console.error(`FAIL ${e.stack ?? e}`);
  for (const s of started) console.error(s.log().split("\n").slice(-20).join("\n"));
} finally {
  // each server stops cleanly: status 0 (in the sanitizer build, no leak or error report either)
  for (const s of started) {
    s.child.kill("SIGTERM");
    const code = await withTimeout(s.exited, 10000, "serve's exit").catch((e) => e.message);
    check(code === 0, "serve exits 0 on SIGTERM", `${code}\n${s.log().split("\n").filter((l) => !l.startsWith("apstream serve:")).join("\n").slice(0, 2000)}`);
  }
}
if (failures > 0) {
  console.error(`rest-classic: ${failures} failure(s)`);
  process.exit(1);
}
console.log("rest-classic: every client method answered as the scripts say");
