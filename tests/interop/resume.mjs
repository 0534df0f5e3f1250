// resume.mjs - resuming an SSE stream of `apstream serve`, on one server
// (its logs in memory) or on two replicas sharing Redis (--redis): one
// replica plays the run, the other serves every stream.
//
//   node resume.mjs APSTREAM [--redis] SCRIPT...
//
// Checks, on the replica that did not play the run (--redis) or the server:
//  - a stream opened before run.start gets every event of the run, live,
//    numbered 1.. without a gap (over Redis: woken by the other replica's
//    appends);
//  - a resume after event k continues at k + 1, to the end, with nothing
//    lost or doubled, whichever way it names k: `since` in the body, the
//    `Last-Event-ID` header, `sinceEventId` in the body;
//  - a resume from an eventId the thread never had gets the whole log after
//    a miss comment (the position is unknown);
//  - GET /state answers the run's last root values.
// With --redis, redis-server is started on a free port; without it
// installed the test is skipped (exit 77), unless CDDLGEN_REQUIRE_OPTIONAL=1.
import { spawn, spawnSync } from "node:child_process";
import { createServer } from "node:net";

const [apstream, ...rest] = process.argv.slice(2);
const mode = rest[0] === "--redis" ? rest.shift() : "";
const failures = [];
const check = (ok, what) => { if (!ok) failures.push(what); };
const children = [];

function skip(why) {
  console.log(`resume: skipped: ${why}`);
  process.exit(process.env.CDDLGEN_REQUIRE_OPTIONAL === "1" ? 1 : 77);
}

function freePort() {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, "127.0.0.1", () => { const { port } = s.address(); s.close(() => resolve(port)); });
  });
}

// Starts a child and waits for `ready` on its standard output (at most 10 s).
function start(bin, args, ready) {
  const child = spawn(bin, args, { stdio: ["ignore", "pipe", "pipe"] });
  children.push(child);
  let log = "";
  child.stderr.on("data", (d) => { log += d; });
  child.exited = new Promise((r) => child.on("exit", (code, signal) => r(signal ?? code)));
  child.log = () => log;
  return new Promise((resolve, reject) => {
    let out = "";
    const timer = setTimeout(() => reject(new Error(`${bin} did not start:\n${log}`)), 10000);
    child.stdout.on("data", (d) => {
      out += d;
      const m = out.match(ready);
      if (m) { clearTimeout(timer); resolve({ child, match: m }); }
    });
    child.on("exit", (code) => reject(new Error(`${bin} exited ${code}:\n${out}${log}`)));
  });
}

// Reads an SSE stream until `done(events)` or `ms` pass; the events and the comments seen.
async function stream(url, body, headers = {}, done = () => false, ms = 15000) {
  const ac = new AbortController();
  const timer = setTimeout(() => ac.abort(), ms);
  const events = [], comments = [];
  try {
    const res = await fetch(`${url}/threads/t1/stream/events`, {
      method: "POST", signal: ac.signal,
      headers: { "content-type": "application/json", accept: "text/event-stream", ...headers },
      body: JSON.stringify(body),
    });
    check(res.status === 200, `a stream answered ${res.status}`);
    const decoder = new TextDecoder();
    let buf = "";
    for await (const chunk of res.body) {
      buf += decoder.decode(chunk, { stream: true });
      let end;
      while ((end = buf.indexOf("\n\n")) >= 0) {
        const block = buf.slice(0, end);
        buf = buf.slice(end + 2);
        const lines = block.split("\n");
        const data = lines.filter((l) => l.startsWith("data: ")).map((l) => l.slice(6)).join("\n");
        const id = lines.find((l) => l.startsWith("id: "))?.slice(4);
        if (data !== "") {
          const e = JSON.parse(data);
          check(id === e.event_id, `the id: line ${id} is not the event's event_id ${e.event_id}`);
          events.push(e);
        } else {
          comments.push(...lines.filter((l) => l.startsWith(":")));
        }
      }
      if (done(events)) break;
    }
  } catch (e) {
    if (e.name !== "AbortError") throw e;
  } finally {
    clearTimeout(timer);
    ac.abort();
  }
  return { events, comments };
}

const isEnd = (e) => e.method === "lifecycle" && e.params.namespace.length === 0 &&
  ["completed", "failed", "interrupted"].includes(e.params.data.event);
const runEnded = (events) => events.some(isEnd);

async function main(script) {
  const before = failures.length;
  let player, reader;
  const serveArgs = (extra) => ["serve", "--listen", "127.0.0.1:0", "--script", script, "--pace", "5", ...extra];
  if (mode === "--redis") {
    if (spawnSync("redis-server", ["--version"]).error) skip("redis-server is not installed");
    const port = await freePort();
    await start("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
      /Ready to accept connections/);
    const redis = ["--redis", `redis://127.0.0.1:${port}`];
    const probe = spawnSync(apstream, ["serve", "--script", script, ...redis, "--listen", "nowhere"], { encoding: "utf8" });
    if (/built without hiredis/.test(probe.stderr)) skip("apstream was built without hiredis");
    player = (await start(apstream, serveArgs(redis), /listening on (http:\/\/\S+)/)).match[1];
    reader = (await start(apstream, serveArgs(redis), /listening on (http:\/\/\S+)/)).match[1];
  } else {
    player = reader = (await start(apstream, serveArgs([]), /listening on (http:\/\/\S+)/)).match[1];
  }

  // A stream opened before the run starts: the whole run, live.
  const every = { channels: ["values", "updates", "messages", "tools", "lifecycle", "input", "checkpoints", "tasks", "custom"] };
  const live = stream(reader, every, {}, runEnded);
  await new Promise((r) => setTimeout(r, 300));
  const res = await fetch(`${player}/threads/t1/commands`, {
    method: "POST", headers: { "content-type": "application/json" },
    body: JSON.stringify({ id: 1, method: "run.start", params: { assistant_id: "agent", input: {} } }),
  });
  const started = await res.json();
  check(started.type === "success", `run.start: ${JSON.stringify(started)}`);
  const all = (await live).events;
  check(runEnded(all), `the live stream did not see the run end (${all.length} events)`);
  all.forEach((e, i) => check(e.seq === i + 1, `live: event ${i} has seq ${e.seq}, not ${i + 1}`));
  const n = all.length;

  // Resumes after event k, three ways: the rest of the run exactly.
  for (const k of [1, Math.floor(n / 2), n - 1]) {
    const after = all[k - 1];
    const ways = [
      ["since", { ...every, since: after.seq }, {}],
      ["Last-Event-ID", every, { "last-event-id": after.event_id }],
      ["sinceEventId", { ...every, since_event_id: after.event_id }, {}],
    ];
    for (const [how, body, headers] of ways) {
      const got = (await stream(reader, body, headers, (ev) => ev.length >= n - k, 5000)).events;
      const seqs = got.map((e) => e.seq).join(",");
      const want = all.slice(k).map((e) => e.seq).join(",");
      check(seqs === want, `resume after seq ${k} by ${how}: got seqs [${seqs}], want [${want}]`);
    }
  }

  // An eventId this thread never had: a miss, then everything.
  const unknown = await stream(reader, every, { "last-event-id": "no-such-event" }, (ev) => ev.length >= n, 5000);
  check(unknown.comments.some((c) => /missed/.test(c)), `an unknown Last-Event-ID: no miss comment (${unknown.comments})`);
  check(unknown.events.length === n, `an unknown Last-Event-ID: ${unknown.events.length} events, not ${n}`);

  // (the state where the run stopped: a run stopped at an interrupt has not played its later values)
  const lastValues = all.filter((e) => e.method === "values" && e.params.namespace.length === 0).pop()?.params.data;
  if (lastValues !== undefined) {
    const state = await (await fetch(`${reader}/threads/t1/state`)).json();
    check(JSON.stringify(state.values) === JSON.stringify(lastValues), `GET /state: ${JSON.stringify(state).slice(0, 200)}`);
  }
  console.log(`${script}${mode === "--redis" ? " on two replicas sharing Redis" : ""}: ${n} events, ` +
    `${failures.length - before} failures`);
}

// Each script on servers (and a Redis) of its own.
for (const script of rest) {
  try {
    await main(script);
  } catch (e) {
    failures.push(e.stack ?? String(e));
  }
  for (const c of children) c.kill("SIGTERM");
  for (const c of children) {
    const code = await Promise.race([c.exited, new Promise((r) => setTimeout(() => r("no exit"), 10000))]);
    if (c.spawnfile === apstream && code !== 0) failures.push(`apstream serve ended with ${code} after SIGTERM:\n${c.log()}`);
  }
  children.length = 0;
}
for (const f of failures.slice(0, 20)) console.log(`  ${f}`);
process.exit(failures.length > 0 ? 1 : 0);
