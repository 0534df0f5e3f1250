// broken_server.mjs - a test-only protocol server (node builtins only) that
// breaks one rule on purpose, for `apstream connect` to catch
// (connect_broken.mjs). It serves one run of SCRIPT over SSE and over a
// WebSocket (the upgrade and RFC 6455 frames written here, node having no
// WebSocket server; subscribe, reconnect and run.start in band), like
// `apstream serve --pace 3` does, unless MODE says otherwise (cut, huge
// and stall are SSE's):
//
//   ok                conformant (the harness's own check)
//   swap              seqs 4 and 5 are sent swapped
//   drop-on-resume    a resumed stream skips the first event after the point
//   repeat-on-resume  a resumed stream starts at the point itself
//   bad-event         event 5's params.timestamp is a string
//   cut               every stream ends inside event 6
//   no-filter         every subscription gets every event
//   wrong-id          a command is answered with its id + 1
//   no-end            the root lifecycle end is never sent (the stream stays open)
//   huge              event 3 never ends: its data line grows forever
//   stall             after event 3 nothing more is sent, and the stream stays open
//   heartbeat-stop    after event 3, SSE heartbeat comments every 300 ms, four of them, then nothing
//   forever           after the script (without its end), custom events forever
//   silent-miss       keeps 8 events: an older resume point starts at the oldest, with no miss said
//
//   node broken_server.mjs MODE SCRIPT      prints "listening on http://127.0.0.1:PORT"
import http from "node:http";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";

const [mode, script] = process.argv.slice(2);
const rootEnd = (e) => e.method === "lifecycle" && e.params.namespace.length === 0 &&
  ["completed", "failed", "interrupted"].includes(e.params.data.event);
let proto = readFileSync(script, "utf8").split("\n").filter((l) => l.trim() !== "").map((l) => JSON.parse(l));
if (mode === "no-end" || mode === "forever") proto = proto.filter((e) => !rootEnd(e));

const log = [];          // {seq, ev, text}
const subs = new Set();  // {res, filter, next, resumed, skipped}
let started = false;

const channelsOf = (e) => {
  const ch = [e.method === "input.requested" ? "input" : e.method];
  if (e.method === "custom" && e.params.data && typeof e.params.data.name === "string") ch.push(`custom:${e.params.data.name}`);
  return ch;
};
// A namespace prefix matches a segment exactly or as NAME of NAME:SUFFIX; depth counts the levels below it.
const underPrefix = (p, ns, depth) => p.length <= ns.length &&
  p.every((seg, i) => ns[i] === seg || ns[i].startsWith(`${seg}:`)) &&
  (depth === undefined || ns.length - p.length <= depth);
function matches(filter, e) {
  if (mode === "no-filter") return true;
  if (!channelsOf(e).some((c) => filter.channels.includes(c))) return false;
  const ns = e.params.namespace;
  if (filter.namespaces && filter.namespaces.length > 0) return filter.namespaces.some((p) => underPrefix(p, ns, filter.depth));
  return filter.depth === undefined || ns.length <= filter.depth;
}

function sseText(e) {
  return `id: ${e.eventId}\nevent: ${e.method}\ndata: ${JSON.stringify(e)}\n\n`;
}

// heartbeat-stop: the heartbeat a server shows while idle, four times, then silence (a dead server).
function beat(sub) {
  if (sub.beating) return;
  sub.beating = true;
  let n = 0;
  const timer = setInterval(() => {
    if (n++ >= 4 || sub.res.writableEnded) { clearInterval(timer); return; }
    sub.res.write(": heartbeat\n\n");
  }, 300);
}

function pump(sub) {
  if (sub.huge) return;
  while (sub.next < log.length && !sub.res.writableEnded) {
    const { seq, ev, text } = log[sub.next++];
    if (!matches(sub.filter, ev)) continue;
    if (sub.ws) {
      if (mode === "drop-on-resume" && sub.resumed && !sub.skipped) { sub.skipped = true; continue; }
      sub.res.write(frame(JSON.stringify(ev)));
      continue;
    }
    if (mode === "drop-on-resume" && sub.resumed && !sub.skipped) { sub.skipped = true; continue; }
    if (mode === "cut" && seq === 6) { sub.res.end(text.slice(0, text.indexOf("data: ") + 16)); return; }
    if (mode === "stall" && seq > 3) return;
    if (mode === "heartbeat-stop" && seq > 3) { beat(sub); return; }
    if (mode === "huge" && seq === 3) { sub.huge = true; sub.res.write(`id: e3\nevent: messages\ndata: {"pad":"`); return; }
    sub.res.write(text);
  }
}

function publish(e, seq) {
  e.seq = seq;
  e.eventId = `e${seq}`;
  e.runId = "run-1";
  e.params.timestamp = mode === "bad-event" && seq === 5 ? "soon" : Date.now();
  log.push({ seq, ev: e, text: sseText(e) });
  for (const sub of subs) pump(sub);
}

function playRun() {
  let i = 0;
  const order = proto.map((e) => structuredClone(e));
  const timer = setInterval(() => {
    if (i < order.length) {
      const e = order[i++];
      let seq = i;
      if (mode === "swap" && (seq === 4 || seq === 5)) seq = 9 - seq;
      publish(e, seq);
    } else if (mode === "forever") {
      publish({ type: "event", method: "custom", params: { namespace: [], timestamp: 0, data: { name: "tick", payload: i } } }, ++i);
    } else {
      clearInterval(timer);
    }
  }, 3);
}

// the huge event grows by 64 KiB a tick while anyone reads it
setInterval(() => {
  for (const sub of subs) if (sub.huge && !sub.res.writableEnded) sub.res.write("a".repeat(65536));
}, 5);
// heartbeats, as ap_server sends them (not in stall or heartbeat-stop mode: the point is silence)
setInterval(() => {
  if (mode !== "stall" && mode !== "heartbeat-stop") for (const sub of subs) if (!sub.ws && !sub.huge && !sub.res.writableEnded) sub.res.write(": heartbeat\n\n");
}, 1000);

function body(req) {
  return new Promise((resolve) => {
    let b = "";
    req.on("data", (d) => { b += d; });
    req.on("end", () => resolve(b));
  });
}

function subscribe(req, res, text) {
  let filter;
  try { filter = JSON.parse(text); } catch { res.writeHead(400).end(); return; }
  // where it resumes: the seq after which to send
  let after = null;
  const byId = filter.sinceEventId ?? req.headers["last-event-id"];
  if (typeof filter.since === "number") after = filter.since;
  else if (typeof byId === "string" && /^e\d+$/.test(byId)) after = Number(byId.slice(1));
  let next = 0;
  if (after !== null) {
    next = log.findIndex((x) => x.seq > after);
    if (next < 0) next = log.length;
    if (mode === "repeat-on-resume" && next > 0) next--;
    if (mode === "silent-miss" && log.length - next > 8) next = log.length - 8;
  }
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  res.flushHeaders();
  const sub = { res, filter, next, resumed: after !== null, skipped: false, huge: false };
  subs.add(sub);
  res.on("close", () => subs.delete(sub));
  pump(sub);
}

// The answer to a command; run.start starts the run (after the answer is written: `then`).
function answer(cmd) {
  const id = mode === "wrong-id" ? cmd.id + 1 : cmd.id;
  return cmd.method === "run.start"
    ? { type: "success", id, result: { runId: "run-1" } }
    : { type: "error", id, error: "not_supported", message: "the broken server does not do this" };
}
function then(cmd) {
  if (cmd.method === "run.start" && !started) { started = true; playRun(); }
}

function command(res, text) {
  let cmd;
  try { cmd = JSON.parse(text); } catch { res.writeHead(400).end(); return; }
  res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(answer(cmd)));
  then(cmd);
}

// ---- WebSocket: one unfragmented text frame per message each way

function frame(text) {
  const payload = Buffer.from(text);
  const n = payload.length;
  const head = n < 126 ? Buffer.from([0x81, n])
    : n < 65536 ? Buffer.from([0x81, 126, n >> 8, n & 255])
    : Buffer.concat([Buffer.from([0x81, 127]), (() => { const b = Buffer.alloc(8); b.writeBigUInt64BE(BigInt(n)); return b; })()]);
  return Buffer.concat([head, payload]);
}

function wsMessage(conn, text) {
  let cmd;
  try { cmd = JSON.parse(text); } catch { return; }
  const send = (o) => conn.socket.write(frame(JSON.stringify(o)));
  if (cmd.method === "subscription.subscribe") {
    // a new subscription: the run from its start, as ap_server does
    const sub = { ws: true, res: conn.res, filter: cmd.params, next: 0, resumed: false, skipped: false, huge: false };
    conn.sub = sub;
    send({ type: "success", id: mode === "wrong-id" ? cmd.id + 1 : cmd.id,
      result: { subscriptionId: "s1", replayedEvents: 0 } });
    subs.add(sub);
    pump(sub);
  } else if (cmd.method === "subscription.reconnect") {
    const k = /^e\d+$/.test(cmd.params.lastEventId ?? "") ? Number(cmd.params.lastEventId.slice(1)) : 0;
    let next = log.findIndex((x) => x.seq > k);
    if (next < 0) next = log.length;
    if (mode === "repeat-on-resume" && next > 0) next--;
    send({ type: "success", id: mode === "wrong-id" ? cmd.id + 1 : cmd.id, result: { restored: true, missedEvents: 0 } });
    if (conn.sub) { conn.sub.next = next; conn.sub.resumed = true; conn.sub.skipped = false; pump(conn.sub); }
  } else {
    send(answer(cmd));
    then(cmd);
  }
}

function upgrade(req, socket) {
  const accept = createHash("sha1").update(`${req.headers["sec-websocket-key"]}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`).digest("base64");
  socket.write(`HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n\r\n`);
  // what pump needs of a response: write, and whether it has ended
  const res = { get writableEnded() { return socket.destroyed; }, write: (b) => socket.write(b), end: () => socket.end() };
  const conn = { socket, res, sub: null };
  let buf = Buffer.alloc(0);
  socket.on("data", (d) => {
    buf = Buffer.concat([buf, d]);
    for (;;) {
      if (buf.length < 2) return;
      const op = buf[0] & 0x0f;
      let n = buf[1] & 0x7f, at = 2;
      if (n === 126) { if (buf.length < 4) return; n = buf.readUInt16BE(2); at = 4; }
      else if (n === 127) { if (buf.length < 10) return; n = Number(buf.readBigUInt64BE(2)); at = 10; }
      const masked = (buf[1] & 0x80) !== 0;
      if (buf.length < at + (masked ? 4 : 0) + n) return;
      const key = masked ? buf.subarray(at, at + 4) : null;
      at += masked ? 4 : 0;
      const payload = Buffer.from(buf.subarray(at, at + n));
      if (key) for (let i = 0; i < n; i++) payload[i] ^= key[i & 3];
      buf = buf.subarray(at + n);
      if (op === 1) wsMessage(conn, payload.toString());
      else if (op === 8) { socket.end(); return; }
      else if (op === 9) socket.write(Buffer.concat([Buffer.from([0x8a, n]), payload]));
    }
  });
  socket.on("close", () => { if (conn.sub) subs.delete(conn.sub); });
  socket.on("error", () => {});
}

const server = http.createServer(async (req, res) => {
  const m = /^\/threads\/[^/]+\/(stream\/events|stream|commands)$/.exec(req.url);
  if (req.method !== "POST" || m === null) { res.writeHead(404).end(); return; }
  const text = await body(req);
  if (m[1] === "commands") command(res, text);
  else subscribe(req, res, text);
});
server.on("upgrade", upgrade);
server.listen(0, "127.0.0.1", () => {
  console.log(`listening on http://127.0.0.1:${server.address().port}`);
});
process.on("SIGTERM", () => process.exit(0));
