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
import { spawnSync } from "node:child_process";
import { classic } from "./classic_values.mjs";
import { skip, startProcess, startRedis } from "./process.mjs";

const [apstream, ...rest] = process.argv.slice(2);
const mode = rest[0] === "--redis" ? rest.shift() : "";
const failures = [];
const check = (ok, what) => { if (!ok) failures.push(what); };
const processes = []; // what startProcess gave, for each process of the script being run

// An apstream serve with `args`: its URL.
async function serve(args) {
  const p = await startProcess(apstream, args);
  processes.push(p);
  return p.url;
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
    // (asked before any process is started: a skip exits at once)
    const probe = spawnSync(apstream, ["serve", "--script", script, "--redis", "redis://127.0.0.1:1", "--listen", "nowhere"],
      { encoding: "utf8" });
    if (/built without hiredis/.test(probe.stderr)) skip("resume", "apstream was built without hiredis");
    const redisServer = await startRedis("resume");
    processes.push(redisServer);
    const redis = ["--redis", redisServer.url];
    player = await serve(serveArgs(redis));
    reader = await serve(serveArgs(redis));
  } else {
    player = reader = await serve(serveArgs([]));
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
  // (GET /state is the classic API's: its messages in the classic form)
  const lastValues = classic(all.filter((e) => e.method === "values" && e.params.namespace.length === 0).pop()?.params.data);
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
  for (const p of processes) p.child.kill("SIGTERM");
  for (const p of processes) {
    const code = await Promise.race([p.exited, new Promise((r) => setTimeout(() => r("no exit"), 10000))]);
    if (p.child.spawnfile === apstream && code !== 0) failures.push(`apstream serve ended with ${code} after SIGTERM:\n${p.log()}`);
  }
  processes.length = 0;
}
for (const f of failures.slice(0, 20)) console.log(`  ${f}`);
process.exit(failures.length > 0 ? 1 : 0);
