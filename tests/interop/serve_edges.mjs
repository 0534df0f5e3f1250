// serve_edges.mjs - what the reference server showed about `apstream serve`
// (issue 41, item 5), over POST /commands, SSE and WebSocket:
//  - a command that does not decode but whose id can be read (a state.get
//    without namespace) is answered with that id, over both transports, so
//    a client waiting on it is answered; a text with no readable id gets
//    id null;
//  - a script whose root never ends (a root `running`, no terminal root
//    status) is ended by a root `completed` after its last event; one that
//    pauses on input.requested is ended only after input.respond, once its
//    last event is played;
//  - a resume from an unknown point (sinceEventId, Last-Event-ID, since) of
//    a thread that has no events has missed nothing: no miss comment, and
//    the run played afterwards arrives whole; subscription.reconnect there
//    says missed_events 0.
//
//   node serve_edges.mjs APSTREAM OPEN_SCRIPT INTERRUPT_SCRIPT
//
// OPEN_SCRIPT and INTERRUPT_SCRIPT (tests/interop/scripts) are played with
// their root terminal lifecycle events taken out. Node builtins only (the
// WebSocket client is written here, as broken_server.mjs writes its server).
import { startProcess } from "./process.mjs";
import { readFileSync, writeFileSync, mkdtempSync, rmSync } from "node:fs";
import { request } from "node:http";
import { randomBytes } from "node:crypto";
import { tmpdir } from "node:os";
import { join } from "node:path";

const [apstream, openScript, interruptScript] = process.argv.slice(2);
const failures = [];
const check = (ok, what) => { if (!ok) failures.push(what); };
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const isRootLifecycle = (e, statuses) => e.method === "lifecycle" && e.params.namespace.length === 0 &&
  statuses.includes(e.params.data.event);
const terminal = ["completed", "failed", "interrupted"];

// A script without its root terminal lifecycle events, and whether the original had the interrupt's.
function unending(path) {
  const events = readFileSync(path, "utf8").split("\n").filter((l) => l !== "").map((l) => JSON.parse(l));
  // the interrupt's root `interrupted` stays: it pauses the run, the run goes on after input.respond
  return events.filter((e, i) => !isRootLifecycle(e, ["completed", "failed"]) &&
    !(isRootLifecycle(e, ["interrupted"]) && events[i - 1]?.method !== "input.requested"));
}
const dir = mkdtempSync(join(tmpdir(), "serve-edges-"));
const open = unending(openScript), paused = unending(interruptScript);
const write = (name, events) => {
  const p = join(dir, name);
  writeFileSync(p, events.map((e) => JSON.stringify(e)).join("\n") + "\n");
  return p;
};
const openPath = write("open.jsonl", open), pausedPath = write("paused.jsonl", paused);
check(open.some((e) => isRootLifecycle(e, ["running"])) && !open.some((e) => isRootLifecycle(e, terminal)),
  "the open script should have a root running and no root terminal event");

// ---- HTTP ----------------------------------------------------------------------

let base;
async function post(thread, body) {
  const res = await fetch(`${base}/threads/${thread}/commands`, {
    method: "POST", headers: { "content-type": "application/json" },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

// An SSE stream read in the background: its events and comments as they come.
function collect(thread, body, headers = {}) {
  const ac = new AbortController();
  const out = { events: [], comments: [], close: () => ac.abort() };
  out.done = (async () => {
    try {
      const res = await fetch(`${base}/threads/${thread}/stream/events`, {
        method: "POST", signal: ac.signal,
        headers: { "content-type": "application/json", accept: "text/event-stream", ...headers },
        body: JSON.stringify(body),
      });
      check(res.status === 200, `${thread}: the stream answered ${res.status}`);
      const decoder = new TextDecoder();
      let buf = "";
      for await (const chunk of res.body) {
        buf += decoder.decode(chunk, { stream: true });
        let end;
        while ((end = buf.indexOf("\n\n")) >= 0) {
          const lines = buf.slice(0, end).split("\n");
          buf = buf.slice(end + 2);
          const data = lines.filter((l) => l.startsWith("data: ")).map((l) => l.slice(6)).join("\n");
          if (data !== "") out.events.push(JSON.parse(data));
          else out.comments.push(...lines.filter((l) => l.startsWith(":") && l !== ": heartbeat"));
        }
      }
    } catch (e) {
      if (e.name !== "AbortError") failures.push(`${thread}: ${e.stack ?? e}`);
    }
  })();
  return out;
}

// Waits until `cond()` holds, at most `ms`; whether it did.
async function until(cond, ms) {
  for (const end = Date.now() + ms; Date.now() < end; await sleep(20))
    if (cond()) return true;
  return cond();
}

// ---- a WebSocket client: RFC 6455, text frames, masked as a client must --------

function openWebSocket(thread) {
  return new Promise((resolve, reject) => {
    const req = request(`${base}/threads/${thread}/stream/events`, {
      headers: { connection: "Upgrade", upgrade: "websocket", "sec-websocket-version": "13",
        "sec-websocket-key": randomBytes(16).toString("base64") },
    });
    req.on("response", (res) => reject(new Error(`no WebSocket upgrade: ${res.statusCode}`)));
    req.on("error", reject);
    req.on("upgrade", (res, socket, head) => {
      const messages = [];
      let buf = head, pending = [];
      socket.on("data", (d) => {
        buf = Buffer.concat([buf, d]);
        for (;;) {
          if (buf.length < 2) return;
          let n = buf[1] & 0x7f, at = 2;
          if (n === 126) { if (buf.length < 4) return; n = buf.readUInt16BE(2); at = 4; }
          else if (n === 127) { if (buf.length < 10) return; n = Number(buf.readBigUInt64BE(2)); at = 10; }
          if (buf.length < at + n) return;
          const fin = (buf[0] & 0x80) !== 0, op = buf[0] & 0x0f;
          if (op === 1 || op === 0) pending.push(buf.subarray(at, at + n));
          buf = buf.subarray(at + n);
          if (fin && (op === 1 || op === 0)) {
            messages.push(JSON.parse(Buffer.concat(pending).toString("utf8")));
            pending = [];
          }
        }
      });
      socket.on("error", () => {});
      const send = (obj) => {
        const p = Buffer.from(typeof obj === "string" ? obj : JSON.stringify(obj));
        const mask = randomBytes(4);
        const head = p.length < 126 ? Buffer.from([0x81, 0x80 | p.length])
          : Buffer.from([0x81, 0x80 | 126, p.length >> 8, p.length & 0xff]);
        socket.write(Buffer.concat([head, mask, Buffer.from(p.map((b, i) => b ^ mask[i % 4]))]));
      };
      // The first message (not taken before) that `pred` accepts, within `ms`; undefined after that.
      const next = async (pred, ms = 5000) => {
        let i = -1;
        await until(() => (i = messages.findIndex(pred)) >= 0, ms);
        return i >= 0 ? messages.splice(i, 1)[0] : undefined;
      };
      resolve({ send, next, messages, close: () => socket.destroy() });
    });
    req.end();
  });
}

// ---- the checks ------------------------------------------------------------------

const every = { channels: ["values", "updates", "messages", "tools", "lifecycle", "input", "checkpoints", "tasks", "custom"] };
const { child, url, log, exited } = await startProcess(apstream,
  ["serve", "--listen", "127.0.0.1:0", "--script", openPath, "--script", pausedPath, "--pace", "5"]);
base = url;
const sockets = [], streams = [];
try {
  // 1. the id of a command that does not decode, over POST /commands
  const noNs = await post("ids", { id: 41, method: "state.get", params: {} });
  check(noNs.status === 400 && noNs.body.type === "error" && noNs.body.id === 41 && noNs.body.error === "invalid_argument",
    `POST state.get without namespace: ${noNs.status} ${JSON.stringify(noNs.body)}`);
  const cut = await post("ids", '{"id":43,"method":');
  check(cut.status === 400 && cut.body.type === "error" && cut.body.id === null,
    `POST of a text cut short: ${cut.status} ${JSON.stringify(cut.body)}`);

  // ... and over a WebSocket, where the client waits for its id's answer
  const ws = await openWebSocket("ids");
  sockets.push(ws);
  ws.send({ id: 42, method: "state.get", params: {} });
  const wsNoNs = await ws.next((m) => m.type === "error" || m.type === "success");
  check(wsNoNs?.type === "error" && wsNoNs.id === 42 && wsNoNs.error === "invalid_argument",
    `WebSocket state.get without namespace: ${JSON.stringify(wsNoNs)}`);
  ws.send("not json");
  const wsJunk = await ws.next((m) => m.type === "error" || m.type === "success");
  check(wsJunk?.type === "error" && wsJunk.id === null, `WebSocket text that is no JSON: ${JSON.stringify(wsJunk)}`);

  // 3. (before any run: serve plays its scripts in turn) unknown resume points on threads with no events
  const unknown = [
    ["sinceEventId", "empty-a", { ...every, since_event_id: "no-such-event" }, {}],
    ["Last-Event-ID", "empty-b", every, { "last-event-id": "no-such-event" }],
    ["since", "empty-c", { ...every, since: 5 }, {}],
  ].map(([how, thread, body, headers]) => [how, thread, collect(thread, body, headers)]);
  streams.push(...unknown.map(([, , s]) => s));
  const wsEmpty = await openWebSocket("empty-ws");
  sockets.push(wsEmpty);
  wsEmpty.send({ id: 1, method: "subscription.subscribe", params: every });
  const sub = await wsEmpty.next((m) => m.id === 1);
  check(sub?.type === "success", `subscribe on an empty thread: ${JSON.stringify(sub)}`);
  wsEmpty.send({ id: 2, method: "subscription.reconnect",
    params: { run_id: "run-0", last_event_id: "no-such-event", subscriptions: [sub?.result?.subscription_id] } });
  const rec = await wsEmpty.next((m) => m.id === 2);
  check(rec?.type === "success" && rec.result.missed_events === 0,
    `subscription.reconnect from an unknown eventId of an empty thread: ${JSON.stringify(rec)}`);
  await sleep(500);
  for (const [how, thread, s] of unknown)
    check(s.comments.length === 0, `${how} unknown on an empty thread: ${JSON.stringify(s.comments)}`);

  // 2. the open script, on the first run.start (of empty-a): ended by a root completed after its last event
  const [, , first] = unknown[0];
  check((await post("empty-a", { id: 1, method: "run.start", params: { assistant_id: "agent", input: {} } })).body.type ===
    "success", "run.start on empty-a");
  const ended = await until(() => first.events.some((e) => isRootLifecycle(e, terminal)), 10000);
  await sleep(200); // (nothing may follow the end)
  const got = first.events;
  check(ended, `the open script's run never ended: ${got.length} events`);
  check(got.length === open.length + 1, `the open script's run: ${got.length} events, not ${open.length} + 1`);
  check(isRootLifecycle(got[got.length - 1] ?? {}, ["completed"]),
    `the open script's run does not end with a root completed: ${JSON.stringify(got[got.length - 1])}`);
  check(JSON.stringify(got[got.length - 2]?.params?.data) === JSON.stringify(open[open.length - 1].params.data),
    "the root completed does not follow the script's last event");
  got.forEach((e, i) => check(e.seq === i + 1, `empty-a after an unknown sinceEventId: event ${i} has seq ${e.seq}`));
  check(first.comments.length === 0, `empty-a: ${JSON.stringify(first.comments)}`);

  // the paused script, on the second run.start (of ti): no end before input.respond, then the end after the rest
  const paused_ = collect("ti", every);
  streams.push(paused_);
  await sleep(200);
  check((await post("ti", { id: 1, method: "run.start", params: { assistant_id: "agent", input: {} } })).body.type ===
    "success", "run.start on ti");
  check(await until(() => paused_.events.some((e) => isRootLifecycle(e, ["interrupted"])), 10000),
    "the paused script's run did not reach its interrupt");
  await sleep(500);
  check(!paused_.events.some((e) => isRootLifecycle(e, ["completed"])), "the paused run completed before input.respond");
  const interrupt = paused_.events.find((e) => e.method === "input.requested");
  const answer = await post("ti", { id: 2, method: "input.respond",
    params: { namespace: [], interrupt_id: interrupt?.params?.data?.interrupt_id ?? "int-1", response: true } });
  check(answer.body.type === "success", `input.respond: ${JSON.stringify(answer.body)}`);
  check(await until(() => paused_.events.some((e) => isRootLifecycle(e, ["completed"])), 10000),
    "the paused script's run never ended after input.respond");
  await sleep(200);
  const p = paused_.events;
  check(p.length === paused.length + 1, `the paused run: ${p.length} events, not ${paused.length} + 1`);
  check(isRootLifecycle(p[p.length - 1] ?? {}, ["completed"]), "the paused run does not end with a root completed");
} catch (e) {
  failures.push(String(e.stack ?? e));
} finally {
  for (const s of streams) s.close();
  for (const w of sockets) w.close();
  child.kill("SIGTERM");
}
const status = await exited;
rmSync(dir, { recursive: true, force: true });
check(status === 0, `apstream serve ended with ${status} after SIGTERM`);
for (const f of failures) console.log(`FAIL ${f}`);
if (failures.length > 0) console.log(log().split("\n").slice(-20).join("\n"));
else console.log("ok: command ids, the end of unending runs, resumes of empty threads");
process.exit(failures.length > 0 ? 1 : 0);
