// hostile.mjs - the thread client (client_run, on ap_client.h) against the
// broken server of the connect tests (tests/interop/broken_server.mjs), one
// broken rule at a time, over SSE and a WebSocket: what the client can
// work around it must (a rejected event is said, then assembled all the
// same), what it cannot must end in a clear error and exit 1; never a
// hang (each run is killed after 30 s and must end well before), never
// memory beyond a bound (the process's peak, which client_run prints, stays
// under 64 MiB even when the server streams one endless event).
//
//   node hostile.mjs CLIENT_RUN APSTREAM SCRIPT
import { spawn } from "node:child_process";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";

import { inPool, startProcess } from "../interop/process.mjs";

const [client, apstream, script] = process.argv.slice(2);
const here = dirname(fileURLToPath(import.meta.url));
const maxRssKiB = 64 * 1024;

function run(cmd, args, ms) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { stdio: ["ignore", "pipe", "pipe"] });
    let out = "", err = "";
    child.stdout.on("data", (d) => { out += d; });
    child.stderr.on("data", (d) => { err += d; });
    const timer = setTimeout(() => child.kill("SIGKILL"), ms);
    // "close", not "exit": after both streams ended, so all of the output is in (with runs at once,
    // the last chunk of stderr, the maxrss line, could come after the exit)
    child.on("close", (code, signal) => { clearTimeout(timer); resolve({ code: signal ? `killed (${signal})` : code, out, err }); });
  });
}

const assembled = await run(apstream, ["assemble", script], 10000);
// [mode, transport, client arguments, exit status, what stderr must say, stdout must be assemble's, at most ms]
const quick = ["--timeout", "2000", "--command-timeout", "2000"];
const cases = [];
for (const t of ["sse", "websocket"]) {
  cases.push(
    ["ok", t, [], 0, /client_run: 22 events, 0 repeats dropped/, true, 15000],
    ["bad-event", t, [], 0, /client_run: event 5 \(eventId \S+\) does not decode as the schema says, at \/params\/timestamp: /, true, 15000],
    ["wrong-id", t, quick, 1,
     /a response with id \d+ answers no command in flight/,
     false, 10000],
    ["no-end", t, quick, 1, /the run did not end in time/, false, 10000],
    ["forever", t, quick, 1, /the run did not end in time/, false, 10000],
    ["no-filter", t, [], 0, /client_run: 22 events/, true, 15000],
  );
}
cases.push(
  ["cut", "sse", quick, 1, /the stream dropped \(the server ended it inside an event\): resuming/, false, 10000],
  ["huge", "sse", ["--max-message", "100000", ...quick], 1, /the stream dropped \(SSE event at offset \d+: .* is longer than the maximum/, false, 10000],
  // the default bound, 16 MiB: the endless event is refused there, and memory stays under maxRssKiB
  ["huge", "sse", ["--timeout", "3000"], 1, /the stream dropped \(SSE event at offset \d+: .* is longer than the maximum/, false, 10000],
  ["stall", "sse", quick, 1, /the run did not end in time/, false, 10000],
  ["heartbeat-stop", "sse", ["--timeout", "4000"], 1, /the stream dropped \(a heartbeat missed\): resuming/, false, 10000],
);

// The cases run a few at once, each with its own server on its own port: most of their time is
// waiting for the client's timeouts (2 to 4 s each), which one after another came to 24 s. The
// time bound of each case is its own run's, and memory is each client process's own peak.
// Reported in the table's order.
const failures = [];
const results = await inPool(cases, 8, async ([mode, transport, extra]) => {
  const srv = await startProcess(process.execPath, [join(here, "../interop/broken_server.mjs"), mode, script]);
  const t0 = Date.now();
  const r = await run(client, [srv.url, "t1", transport, ...extra], 30000);
  const took = Date.now() - t0;
  srv.child.kill("SIGTERM");
  return { r, took };
});
cases.forEach(([mode, transport, extra, status, said, same, ms], i) => {
  const { r, took } = results[i];
  const rss = Number((r.err.match(/maxrss (\d+) KiB/) ?? [])[1] ?? NaN);
  const why = [];
  if (r.code !== status) why.push(`exit ${r.code}, expected ${status}`);
  if (!said.test(r.err)) why.push(`stderr does not say ${said}`);
  if (same && r.out !== assembled.out) why.push(`the messages differ from apstream assemble's:\n${r.out}\n---\n${assembled.out}`);
  if (!(rss < maxRssKiB)) why.push(`peak memory ${rss} KiB, over ${maxRssKiB}`);
  if (took > ms) why.push(`took ${took} ms, over ${ms}`);
  console.log(`${why.length === 0 ? "ok  " : "FAIL"} ${mode} ${transport} ${extra.join(" ")}: exit ${r.code} in ${took} ms, ${rss} KiB`);
  if (why.length > 0) failures.push(`${mode} ${transport}: ${why.join("; ")}\nclient stderr:\n${r.err}`);
});
if (failures.length > 0) {
  console.error(failures.join("\n\n"));
  process.exit(1);
}
