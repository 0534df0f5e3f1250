// reference.mjs - the thread client against the protocol's reference server
// (@langchain/langgraph-api 1.5.1 with the scripted, deterministic graphs of
// tests/interop/reference; the fixture interop-reference-install): for each
// graph (a ReAct run with a tool call; a subgraph's interrupt, answered) and
// each transport, one run driven by the SDK's ThreadStream
// (@langchain/langgraph-sdk 1.15.0, client.threads.stream: thread.messages,
// thread.toolCalls, thread.input.respond) and one driven by the C client
// (client_run, on ap_client.h) on a thread of its own, same graph and input:
// the messages the C client's callbacks deliver must equal the SDK's, block
// for block, and so must the tool calls. Over SSE the C client also watches
// the SDK's own run (client_run --watch, subscribed to the SDK's thread
// first): on the same run, the same messages and tool calls. With CHAT (examples/chat.c as
// example-build built it against the installed package), the example too:
// its run of the ReAct graph prints the SDK's final answer, and the
// interrupting graph's run completes with the answer it read from standard
// input. The runs go at once, each on a thread of its own.
//
//   node reference.mjs CLIENT_RUN MODULES [CHAT]
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

import { withTimeout } from "../interop/process.mjs";
import { CASES, startReference } from "../interop/reference/client.mjs";

const [clientRun, modules, chat] = process.argv.slice(2);
const sdkDist = join(modules, "node_modules/@langchain/langgraph-sdk/dist");
const sdk = {
  ...(await import(pathToFileURL(join(sdkDist, "index.js")).href)),
  // the SDK's own reading of a tool's output (a ToolMessage envelope unwrapped, JSON content decoded)
  ...(await import(pathToFileURL(join(sdkDist, "client/stream/handles/tools.js")).href)),
};
const WebSocket = createRequire(join(modules, "package.json"))("ws");

// JSON with keys sorted and null/undefined members dropped: the same blocks written two ways compare equal.
function canonical(v) {
  if (Array.isArray(v)) return `[${v.filter((x) => x != null).map(canonical).join(",")}]`;
  if (v !== null && typeof v === "object") {
    const keys = Object.keys(v).filter((k) => v[k] !== undefined && v[k] !== null).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical(v[k])}`).join(",")}}`;
  }
  return JSON.stringify(v === undefined ? null : v);
}

async function sdkRun(url, kase, transport, threadId) {
  const client = new sdk.Client({ apiUrl: url });
  const options = { assistantId: kase.graph, transport };
  if (transport === "websocket") options.webSocketFactory = (u) => new WebSocket(u);
  const thread = client.threads.stream(threadId, options);
  const messages = [], tools = new Map(); // the SDK may yield a tool call twice: by id, as tests/interop/sdk.mjs
  const terminals = [];
  let wake = null;
  thread.onEvent((e) => {
    if (e.method === "lifecycle" && e.params.namespace.length === 0 &&
        ["completed", "failed", "interrupted"].includes(e.params.data.event)) {
      terminals.push(e.params.data.event);
      if (wake) wake();
    }
  });
  const next = () => withTimeout(new Promise((r) => {
    if (terminals.length > 0) r(terminals.shift());
    else wake = () => { wake = null; r(terminals.shift()); };
  }), 30000, "the SDK's run end");
  (async () => { for await (const m of thread.messages) { await m.output; messages.push(canonical(m.blocks)); } })();
  (async () => {
    for await (const tc of thread.toolCalls) {
      let output = null;
      try { output = await tc.output; } catch (e) { output = { error: String(e) }; }
      tools.set(tc.id ?? tc.toolCallId, canonical({ name: tc.name, output }));
    }
  })();
  await withTimeout(thread.run.start({ input: { messages: [{ role: "user", content: kase.text }] } }), 10000, "run.start");
  for (let round = 0; round < 5; round++) {
    const end = await next();
    if (end !== "interrupted") break;
    const first = (thread.interrupts ?? [])[0] ?? {};
    await withTimeout(thread.input.respond({
      namespace: first.namespace ?? [],
      interrupt_id: first.interruptId ?? first.interrupt_id ?? first.id,
      response: kase.respond,
    }), 10000, "input.respond");
  }
  await new Promise((r) => setTimeout(r, 300));
  await thread.close?.();
  return { messages: messages.sort(), tools: [...tools.values()].sort() };
}

function exec(bin, args, input) {
  return new Promise((resolve) => {
    const child = spawn(bin, args, { stdio: ["pipe", "pipe", "pipe"] });
    let out = "", err = "";
    child.stdout.on("data", (d) => { out += d; });
    child.stderr.on("data", (d) => { err += d; });
    child.stdin.end(input ?? "");
    const timer = setTimeout(() => child.kill("SIGKILL"), 45000);
    child.on("close", (code) => { clearTimeout(timer); resolve({ code, out, err }); }); // (all of the output is in)
  });
}

function cRun(url, kase, transport, threadId, watch = false) {
  return new Promise((resolve) => {
    const args = [url, threadId, transport, "--assistant", kase.graph, "--prompt", kase.text, "--timeout", "30000"];
    if (kase.respond !== undefined) args.push("--respond", JSON.stringify(kase.respond));
    if (watch) args.push("--watch");
    const child = spawn(clientRun, args, { stdio: ["ignore", "pipe", "pipe"] });
    let out = "", err = "";
    child.stdout.on("data", (d) => { out += d; });
    child.stderr.on("data", (d) => { err += d; });
    const timer = setTimeout(() => child.kill("SIGKILL"), 45000);
    child.on("close", (code) => { // (after both streams ended: all of the output is in)
      clearTimeout(timer);
      const messages = [], tools = [];
      for (const line of out.split("\n").filter((l) => l.trim() !== "")) {
        const v = JSON.parse(line);
        if (v.kind === "message") messages.push(canonical(v.content));
        else if (v.kind === "tool") tools.push(canonical({ name: v.toolName, output: sdk.parseToolOutput(v.output, v.toolCallId) }));
      }
      resolve({ code, err, messages: messages.sort(), tools: tools.sort() });
    });
  });
}

const server = await startReference(modules);
const failures = [];
// One check: its report line(s) and failures, printed in order once all are done.
const check = async (fn) => {
  const lines = [], why = [];
  await fn(lines, why);
  return { lines, why };
};
try {
  // Every graph and transport, and the example, at once: each on threads of its own (the tags),
  // and nearly all of each is waiting on the reference server's run queue, which polls every
  // second or so; one after another they took 15 s.
  const checks = [];
  for (const name of ["agent", "interrupt"]) {
    const kase = CASES[name];
    for (const transport of ["sse", "websocket"]) checks.push(check(async (lines, why) => {
      const tag = `${process.pid}-${name}-${transport}`;
      // The same run: over SSE the C client watches the thread the SDK drives (subscribed first). Over a
      // WebSocket the reference server sends a thread's events to the socket that started the run only
      // (the ws-routing entry of docs/baselines/langgraph-api-1.5.1.jsonl), so there the runs are two.
      // The C client's own run, on a thread of its own, goes at the same time.
      const own = cRun(server.url, kase, transport, `c-${tag}`);
      const watching = transport === "sse" ? cRun(server.url, kase, transport, `sdk-${tag}`, true) : null;
      if (watching !== null) await new Promise((r) => setTimeout(r, 500));
      const want = await sdkRun(server.url, kase, transport, `sdk-${tag}`);
      const watched = watching !== null ? await watching : null;
      const got = await own;
      const whys = [];
      if (got.code !== 0) whys.push(`client_run exited ${got.code}:\n${got.err}`);
      if (want.messages.length === 0) whys.push("the SDK saw no message: nothing compared");
      if (got.messages.join("\n") !== want.messages.join("\n"))
        whys.push(`messages differ:\n  SDK: ${want.messages.join("\n       ")}\n  C:   ${got.messages.join("\n       ")}`);
      if (got.tools.join("\n") !== want.tools.join("\n"))
        whys.push(`tool calls differ:\n  SDK: ${want.tools.join("\n       ")}\n  C:   ${got.tools.join("\n       ")}`);
      if (watched !== null) {
        if (watched.code !== 0) whys.push(`client_run --watch exited ${watched.code}:\n${watched.err}`);
        if (watched.messages.join("\n") !== want.messages.join("\n"))
          whys.push(`messages of the SDK's own run differ:\n  SDK: ${want.messages.join("\n       ")}\n  C:   ${watched.messages.join("\n       ")}`);
        if (watched.tools.join("\n") !== want.tools.join("\n"))
          whys.push(`tool calls of the SDK's own run differ:\n  SDK: ${want.tools.join("\n       ")}\n  C:   ${watched.tools.join("\n       ")}`);
      }
      lines.push(`${whys.length === 0 ? "ok  " : "FAIL"} ${name} ${transport}: ${got.messages.length} messages, ${got.tools.length} tool calls` +
                 (watched !== null ? `; watching the SDK's run: ${watched.messages.length} messages, ${watched.tools.length} tool calls` : ""));
      if (whys.length > 0) why.push(`${name} ${transport}: ${whys.join("\n")}`);
    }));
  }
  if (chat !== undefined) checks.push(check(async (lines, why) => {
    const kase = CASES.agent;
    // The SDK's run and the example's two at once: chat names its thread by the second, so its
    // second run starts 1.1 s after its first, on a fresh one.
    const wanted = sdkRun(server.url, kase, "sse", `sdk-${process.pid}-chat`);
    const ran = exec(chat, [server.url, kase.graph, kase.text]);
    await new Promise((r) => setTimeout(r, 1100));
    const interrupted = exec(chat, [server.url, CASES.interrupt.graph, CASES.interrupt.text], "yes\n");
    const [want, r, i] = await Promise.all([wanted, ran, interrupted]);
    const last = JSON.parse(want.messages.find((m) => m.includes("\"text\"") && !m.includes("tool_call")) ?? "[]");
    const text = (last.find((b) => b.type === "text") ?? {}).text ?? "";
    const ok = r.code === 0 && text !== "" && r.out.includes(text) && r.out.includes("[tool] get_weather");
    lines.push(`${ok ? "ok  " : "FAIL"} examples/chat: exit ${r.code}`);
    if (!ok) why.push(`examples/chat: exit ${r.code}, expected the tool call and "${text}":\n${r.out}${r.err}`);
    const iok = i.code === 0 && /\[interrupt\] /.test(i.out);
    lines.push(`${iok ? "ok  " : "FAIL"} examples/chat, interrupted: exit ${i.code}`);
    if (!iok) why.push(`examples/chat on ${CASES.interrupt.graph}: exit ${i.code}:\n${i.out}${i.err}`);
  }));
  for (const { lines, why } of await Promise.all(checks)) {
    for (const line of lines) console.log(line);
    failures.push(...why);
  }
} finally {
  await server.stop();
}
if (failures.length > 0) {
  console.error(failures.join("\n\n"));
  console.error(`the server's log, last lines:\n${server.log().split("\n").slice(-20).join("\n")}`);
  process.exit(1);
}
