// client.mjs - what record.mjs and smoke.mjs share: the reference server
// started (server.mjs) and one run of a graph read from its protocol stream,
// over SSE or a WebSocket, with the interrupt answered where there is one.
//
// The reference server's routes (@langchain/langgraph-api 1.5.1,
// dist/api/protocol.mjs):
//   POST /threads/ID/stream/events  SSE; body {channels, namespaces?, depth?,
//                                   since?} (strict: any other member is a 400)
//   GET  /threads/ID/stream/events  WebSocket; commands in band
//   POST /threads/ID/commands       a command, its response as the body
// A thread needs no creation: run.start creates it.
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { withTimeout } from "../process.mjs";

const here = fileURLToPath(new URL(".", import.meta.url));

// Every channel the server accepts in a subscription (SUPPORTED_CHANNELS of
// @langchain/langgraph/stream; a WebSocket subscribe naming any other fails).
export const CHANNELS = ["values", "updates", "messages", "tools", "lifecycle", "input", "checkpoints", "tasks", "custom"];

// The runs: a graph, its input, and the answer to its interrupt if it has one.
export const CASES = {
  agent: { graph: "agent", text: "What is the weather in Paris?" },
  interrupt: { graph: "subgraph_interrupt", text: "Book me a flight to Paris.", respond: "yes" },
  silent: { graph: "silent", text: "Take your time." },
};

// Starts server.mjs on MODULES (install.sh's folder): { url, state, child,
// log, exited, stop } (state: the folder server.mjs removes at exit); stop() sends SIGTERM and resolves to the exit status. Its
// standard input is a pipe from this process, so that it exits with this
// process however this one ends (a ctest timeout included). `workers` is
// server.mjs's --workers (its run queue's workers, 10 by default): a test
// that keeps more runs in flight at once asks for more, so that none waits
// for a worker behind the silent graph's long runs.
export async function startReference(modules, ms = 60000, workers = 10) {
  const child = spawn(process.execPath, [join(here, "server.mjs"), modules, "--workers", String(workers)],
                      { stdio: ["pipe", "pipe", "pipe"] });
  let log = "";
  child.stderr.on("data", (d) => { log += d; });
  const exited = new Promise((r) => child.on("exit", (code, signal) => r(signal ?? code)));
  const { url, state } = await withTimeout(new Promise((resolve, reject) => {
    let out = "";
    child.stdout.on("data", (d) => {
      out += d;
      const m = out.match(/listening on (http:\/\/\S+) \(state in (.+)\)\n/);
      if (m) resolve({ url: m[1], state: m[2] });
    });
    child.on("exit", (code) => reject(new Error(`server.mjs exited ${code}:\n${out}${log}`)));
  }), ms, "server.mjs's ready line").catch((e) => { child.kill("SIGKILL"); throw e; });
  const stop = async () => {
    child.kill("SIGTERM");
    return withTimeout(exited, 10000, "server.mjs after SIGTERM");
  };
  return { child, url, state, log: () => log, exited, stop };
}

// Is `event` the end of the root run: its lifecycle completed, failed or interrupted?
const rootEnd = (event) => event.method === "lifecycle" && event.params?.namespace?.length === 0 &&
  ["completed", "failed", "interrupted"].includes(event.params.data?.event) ? event.params.data.event : null;

// Drives one run from parsed events: after run.start, on the root's
// `interrupted`, answers the last input.requested with `respond` (once); ends
// on the root's completed/failed, or interrupted with nothing to answer.
// send(command) sends a command and resolves to its response.
function driver(kase, send, done) {
  let nextId = 1;
  let interruptId = null;
  let responded = false;
  const responses = [];
  const command = async (method, params) => {
    const response = await send({ id: nextId++, method, params });
    responses.push({ method, response });
    if (response?.type !== "success") done(new Error(`${method}: ${JSON.stringify(response)}`));
    return response;
  };
  return {
    responses,
    start: () => command("run.start", {
      assistant_id: kase.graph,
      input: { messages: [{ role: "user", content: kase.text }] },
    }),
    onEvent(event) {
      if (event.method === "input.requested") interruptId = event.params.data?.interrupt_id;
      const end = rootEnd(event);
      if (end == null) return;
      if (end === "interrupted" && kase.respond !== undefined && !responded && interruptId != null) {
        responded = true;
        command("input.respond", { interrupt_id: interruptId, response: kase.respond }).catch(done);
        return;
      }
      done(null, end);
    },
  };
}

// One run over SSE: { body (the raw SSE body), events, end, responses }.
export async function runSse(url, thread, kase, ms = 30000) {
  const abort = new AbortController();
  const res = await fetch(`${url}/threads/${thread}/stream/events`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "text/event-stream" },
    body: JSON.stringify({ channels: CHANNELS }),
    signal: abort.signal,
  });
  if (res.status !== 200) throw new Error(`POST /threads/${thread}/stream/events: HTTP ${res.status} ${await res.text()}`);
  let finish;
  const finished = new Promise((resolve, reject) => { finish = (e, end) => (e ? reject(e) : resolve(end)); });
  const send = async (command) => {
    const r = await fetch(`${url}/threads/${thread}/commands`, {
      method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(command),
    });
    return r.json();
  };
  const run = driver(kase, send, finish);
  const events = [];
  const chunks = [];
  let pending = "";
  const read = (async () => {
    const decoder = new TextDecoder();
    for await (const chunk of res.body) {
      chunks.push(Buffer.from(chunk));
      pending += decoder.decode(chunk, { stream: true });
      let cut;
      while ((cut = pending.search(/\r?\n\r?\n/)) >= 0) {
        const block = pending.slice(0, cut);
        pending = pending.slice(cut).replace(/^\r?\n\r?\n/, "");
        const data = block.split(/\r?\n/).filter((l) => l.startsWith("data:")).map((l) => l.slice(5).replace(/^ /, ""));
        if (data.length === 0) continue;
        const event = JSON.parse(data.join("\n"));
        events.push(event);
        run.onEvent(event);
      }
    }
  })().catch((e) => { if (!abort.signal.aborted) finish(e); });
  try {
    const started = await run.start();
    const end = await withTimeout(finished, ms, `the ${kase.graph} run over SSE`);
    return { body: Buffer.concat(chunks), events, end, responses: run.responses, runId: started?.result?.run_id };
  } finally {
    abort.abort();
    await read;
  }
}

// One run over a WebSocket: { messages (every message received, in order),
// events, end, responses, strays (responses to no command waiting) }. `modules` gives the `ws` package (node 20 has no
// global WebSocket).
export async function runWs(url, thread, kase, modules, ms = 30000) {
  const WebSocket = createRequire(join(modules, "package.json"))("ws");
  const ws = new WebSocket(`${url.replace(/^http/, "ws")}/threads/${thread}/stream/events`);
  await withTimeout(new Promise((resolve, reject) => { ws.once("open", resolve); ws.once("error", reject); }),
    10000, "the WebSocket's opening");
  let finish;
  const finished = new Promise((resolve, reject) => { finish = (e, end) => (e ? reject(e) : resolve(end)); });
  const waiting = new Map();
  const send = (command) => new Promise((resolve) => {
    waiting.set(command.id, resolve);
    ws.send(JSON.stringify(command));
  });
  const run = driver(kase, send, finish);
  const messages = [];
  const events = [];
  const strays = [];
  ws.on("message", (data) => {
    const text = data.toString();
    messages.push(text);
    const message = JSON.parse(text);
    if (message.type === "event") {
      events.push(message);
      run.onEvent(message);
    } else if (waiting.has(message.id)) {
      waiting.get(message.id)(message);
      waiting.delete(message.id);
    } else {
      // The server answers a subscribe again when a later run of the thread
      // starts (its sticky subscriptions): kept, not awaited.
      strays.push(message);
    }
  });
  ws.on("close", () => finish(new Error("the server closed the WebSocket")));
  try {
    // Subscribed first: the server parks the subscribe until run.start binds the run.
    const subscribed = send({ id: 0, method: "subscription.subscribe", params: { channels: CHANNELS } });
    const started = await run.start();
    const subscription = await subscribed;
    if (subscription?.type !== "success") throw new Error(`subscription.subscribe: ${JSON.stringify(subscription)}`);
    const end = await withTimeout(finished, ms, `the ${kase.graph} run over WebSocket`);
    return { messages, events, end, strays, runId: started?.result?.run_id,
             responses: [{ method: "subscription.subscribe", response: subscription }, ...run.responses] };
  } finally {
    ws.removeAllListeners("close");
    ws.close();
  }
}
