// sdk.mjs - the reference client against `apstream serve`: node runs
// @langchain/langgraph-sdk's own ThreadStream (client.threads.stream) over
// SSE or WebSocket, starts a run of each script, answers its interrupts with
// thread.input.respond, and collects the messages, tool calls and values the
// SDK gives. They must equal `apstream assemble` of the same script: every
// message's final content blocks by id, every tool call's name, input and
// output by id, and the final state.
//
//   node sdk.mjs --sdk DIR --apstream BIN --transport sse|websocket [--drop-after N] [--redis] SCRIPT...
//
// --redis: the server keeps its logs on a redis-server this script starts
// on a free port (apstream serve --redis), so the SDK reads, and resumes
// from, Redis; skipped (77) without redis-server unless CDDLGEN_REQUIRE_OPTIONAL=1.
// DIR holds node_modules/@langchain/langgraph-sdk and ws (run.sh installs
// them). One server per script; a test fails on the first difference, on a
// run that does not end within 60 s, or on a server that does not start.
import { spawnSync } from "node:child_process";
import { join, resolve } from "node:path";
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import { inPool, startProcess, startRedis, withTimeout } from "./process.mjs";

function parseArgs(argv) {
  const o = { scripts: [], transport: "sse", dropAfter: 0, redis: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--sdk") o.sdk = argv[++i];
    else if (a === "--apstream") o.apstream = argv[++i];
    else if (a === "--transport") o.transport = argv[++i];
    else if (a === "--drop-after") o.dropAfter = Number(argv[++i]);
    else if (a === "--redis") o.redis = true;
    else o.scripts.push(a);
  }
  if (!o.sdk || !o.apstream || o.scripts.length === 0) {
    console.error("usage: node sdk.mjs --sdk DIR --apstream BIN --transport sse|websocket [--drop-after N] SCRIPT...");
    process.exit(2);
  }
  return o;
}

// A value as text with sorted keys, for comparing what the SDK assembled
// with what the script sent. Not browser.mjs's exact form on purpose: what
// the SDK builds may hold null or undefined array entries (it keeps blocks
// by their index) and undefined members, which are no difference of
// content, and this comparison has always forgiven them.
function canonical(v) {
  if (Array.isArray(v)) return `[${v.filter((x) => x != null).map(canonical).join(",")}]`;
  if (v !== null && typeof v === "object") {
    const keys = Object.keys(v).filter((k) => v[k] !== undefined).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical(v[k])}`).join(",")}}`;
  }
  return JSON.stringify(v === undefined ? null : v);
}

// Whether `got` has everything `want` has: the SDK turns state messages into
// LangChain message objects, which add members of their own (lc_kwargs,
// empty additional_kwargs, ...); every member of the script must be there
// with the same value.
// Returns the path of the first difference, or null.
function uncovered(got, want, path = "") {
  if (Array.isArray(want)) {
    if (!Array.isArray(got) || got.length !== want.length) return `${path} (an array of ${want.length})`;
    for (let i = 0; i < want.length; i++) {
      const d = uncovered(got[i], want[i], `${path}/${i}`);
      if (d !== null) return d;
    }
    return null;
  }
  if (want !== null && typeof want === "object") {
    if (got === null || typeof got !== "object") return `${path} (an object)`;
    for (const k of Object.keys(want)) {
      const d = uncovered(got[k], want[k], `${path}/${k}`);
      if (d !== null) return d;
    }
    return null;
  }
  return got === want ? null : `${path}: ${JSON.stringify(got)} for ${JSON.stringify(want)}`;
}

// What `apstream assemble` makes of the script: messages and tool runs by id.
// A tool's output goes through the SDK's own parseToolOutput (it unwraps a
// ToolMessage envelope and decodes JSON content), as its toolCalls do.
function assembled(apstream, script, parseToolOutput) {
  const run = spawnSync(apstream, ["assemble", script], { encoding: "utf8", maxBuffer: 1 << 28 });
  if (run.status !== 0 && run.status !== 1) throw new Error(`apstream assemble exited ${run.status}: ${run.stderr}`);
  const messages = new Map(), tools = new Map();
  for (const line of run.stdout.split("\n")) {
    if (line.trim() === "") continue;
    const v = JSON.parse(line);
    if (v.kind === "message") messages.set(v.id, canonical(v.content));
    else if (v.kind === "tool")
      tools.set(v.toolCallId, canonical({ name: v.toolName, output: parseToolOutput(v.output, v.toolCallId) }));
  }
  return { messages, tools };
}

// The last root values event of the script: the state the SDK must end with.
function finalValues(script) {
  const run = spawnSync(process.execPath, ["-e", `
    const fs = require("fs");
    const text = fs.readFileSync(process.argv[1], "utf8");
    let last = null;
    const events = text.includes("\\ndata: ") || text.startsWith("data: ") || text.startsWith("event: ") || text.startsWith("id: ")
      ? text.split(/\\n\\n/).map((b) => b.split("\\n").filter((l) => l.startsWith("data: ")).map((l) => l.slice(6)).join("\\n")).filter((d) => d !== "")
      : text.split("\\n").filter((l) => l.trim() !== "");
    for (const e of events) { const v = JSON.parse(e); if (v.method === "values" && v.params.namespace.length === 0) last = v.params.data; }
    process.stdout.write(JSON.stringify(last));`, script], { encoding: "utf8" });
  return JSON.parse(run.stdout);
}

function startServer(apstream, script, transport, dropAfter, redis) {
  // Paced runs, as live ones are, where the client's timing matters: with
  // dropped connections, events keep coming while it reconnects; over a
  // WebSocket, the SDK subscribes one projection at a time after run.start
  // and pauses every subscription registered before the root's terminal
  // event once it sees it, so a run published whole before its last
  // subscribe lands (a loaded machine, pace 0) loses that projection's
  // events in the client, whatever the server replays.
  const pace = dropAfter > 0 ? "5" : transport === "websocket" ? "10" : "0";
  const args = ["serve", "--listen", "127.0.0.1:0", "--script", script, "--pace", pace];
  if (dropAfter > 0) args.push("--drop-after", String(dropAfter));
  if (redis) args.push("--redis", redis);
  return startProcess(apstream, args);
}

async function runScript(o, sdk, WebSocket, script, index, log) {
  const { Client, parseToolOutput } = sdk;
  const server = await startServer(o.apstream, script, o.transport, o.dropAfter, o.redisUrl);
  const client = new Client({ apiUrl: server.url });
  const threadId = `thread-${process.pid}-${index}-${Date.now()}`; // (scripts run at once, on one Redis)
  const options = { assistantId: "agent", transport: o.transport, reconnectDelayMs: () => 50 };
  if (o.transport === "websocket") options.webSocketFactory = (url) => new WebSocket(url);
  const thread = client.threads.stream(threadId, options);
  const messages = new Map(), tools = new Map();
  let values = null;
  const got = { messages: 0, tools: 0 };
  // The root's terminal lifecycle events, as the SDK sees them, one at a time.
  const terminals = [];
  let wake = null;
  thread.onEvent((e) => {
    if (e.method === "lifecycle" && e.params.namespace.length === 0 &&
        ["completed", "failed", "interrupted"].includes(e.params.data.event)) {
      terminals.push(e.params.data.event);
      if (wake) wake();
    }
  });
  const nextTerminal = () => withTimeout(new Promise((r) => {
    if (terminals.length > 0) r(terminals.shift());
    else wake = () => { wake = null; r(terminals.shift()); };
  }), 60000, "the run's end");
  const collectValues = (async () => {
    for await (const v of thread.values) values = v;
  })();
  const collectMessages = (async () => {
    for await (const m of thread.messages) {
      await m.output;
      messages.set(m.id, canonical(m.blocks));
      got.messages++;
    }
  })();
  const collectTools = (async () => {
    for await (const tc of thread.toolCalls) {
      let output = null;
      try { output = await tc.output; } catch (e) { output = { error: String(e) }; }
      tools.set(tc.id ?? tc.toolCallId, canonical({ name: tc.name, output }));
      got.tools++;
    }
  })();
  try {
    await withTimeout(thread.run.start({ input: { messages: [{ type: "human", content: "hello" }] } }), 10000, "run.start");
    // A run that stops at an interrupt is resumed (thread.input.respond) until it completes.
    for (let round = 0; round < 10; round++) {
      const end = await nextTerminal();
      if (end !== "interrupted") break;
      const first = (thread.interrupts ?? [])[0] ?? {};
      await withTimeout(thread.input.respond({
        namespace: first.namespace ?? [],
        interrupt_id: first.interruptId ?? first.interrupt_id ?? first.id,
        response: "approved",
      }), 10000, "input.respond");
    }
    await new Promise((r) => setTimeout(r, 300));
  } catch (e) {
    throw new Error(`${e.message}\nthe server's log, last lines:\n${server.log().split("\n").slice(-40).join("\n")}`);
  } finally {
    await thread.close?.();
    server.child.kill("SIGTERM");
  }
  const status = await withTimeout(server.exited, 10000, "apstream serve's exit after SIGTERM");
  void collectMessages;
  void collectTools;
  void collectValues;

  const want = assembled(o.apstream, script, parseToolOutput);
  const wantValues = finalValues(script);
  const diffs = [];
  if (status !== 0) diffs.push(`apstream serve ended with ${status} after SIGTERM`);
  for (const [id, blocks] of want.messages)
    if (messages.get(id) !== blocks) diffs.push(`message ${id}: SDK ${messages.get(id) ?? "(none)"}\n  apstream ${blocks}`);
  for (const id of messages.keys()) if (!want.messages.has(id)) diffs.push(`message ${id} only in the SDK`);
  const valuesDiff = uncovered(values ?? null, wantValues);
  if (valuesDiff !== null) diffs.push(`final values differ at ${valuesDiff}`);
  const toolIds = [...want.tools.keys()];
  for (const id of toolIds)
    if (tools.get(id) !== want.tools.get(id)) diffs.push(`tool call ${id}: SDK ${tools.get(id) ?? "(none)"}\n  apstream ${want.tools.get(id)}`);
  log(`${script} over ${o.transport}${o.dropAfter ? `, dropped every ${o.dropAfter} events` : ""}` +
    `${o.redis ? ", logs on Redis" : ""}: ` +
    `${messages.size} messages, ${tools.size} tool calls, ${diffs.length} differences`);
  for (const d of diffs.slice(0, 10)) log(`  ${d}`);
  if (diffs.length > 0) log(server.log().split("\n").slice(-30).join("\n"));
  return diffs.length;
}

async function main() {
  const o = parseArgs(process.argv.slice(2));
  const root = resolve(o.sdk);
  const require = createRequire(join(root, "package.json"));
  const sdk = {
    ...(await import(pathToFileURL(require.resolve("@langchain/langgraph-sdk")).href)),
    ...(await import(pathToFileURL(join(root, "node_modules/@langchain/langgraph-sdk/dist/client/stream/handles/tools.js")).href)),
  };
  const WebSocket = require("ws");
  const redis = o.redis ? await startRedis("interop") : null;
  o.redisUrl = redis?.url;
  // The scripts at once, each with its own serve on a free port and its own thread, their reports
  // printed in order afterwards: each is mostly waiting on serve's pace and the SDK's reconnects,
  // and one after another they took 4 to 6 s. With --redis one after another still: the serves
  // would share one Redis, and what they keep there beside the threads' logs is not this test's
  // to race.
  const results = await inPool(o.scripts, o.redis ? 1 : o.scripts.length, async (script, i) => {
    const lines = [];
    const log = (line) => lines.push(line);
    try {
      return { lines, failed: await runScript(o, sdk, WebSocket, script, i, log) };
    } catch (e) {
      log(`${script} over ${o.transport}: ${e.stack ?? e}`);
      return { lines, failed: 1 };
    }
  });
  let failed = 0;
  for (const r of results) {
    for (const line of r.lines) console.log(line);
    failed += r.failed;
  }
  redis?.child.kill("SIGTERM");
  process.exit(failed === 0 ? 0 : 1);
}

main();
