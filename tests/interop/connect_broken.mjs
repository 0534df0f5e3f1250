// connect_broken.mjs - `apstream connect` against broken_server.mjs, one
// broken rule at a time, over SSE and then over a WebSocket: each must be caught with a located error and exit
// 1, in bounded time (every run is killed after 30 s; the loops below
// wait on the server at most 10 s). Eight cases run at once. The `ok` mode must pass, so a failure
// is the broken rule's and not the harness's.
//
//   node connect_broken.mjs APSTREAM SCRIPT [BASELINE]
//
// With BASELINE (the reference server's, docs/baselines/), every case runs
// with `--baseline BASELINE` and must say the same: a baseline accepts only
// the findings it lists, never a different defect.
import { spawn } from "node:child_process";
import { mkdtempSync, writeFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";

import { inPool, startProcess } from "./process.mjs";

const [apstream, script, baseline] = process.argv.slice(2);
const withBaseline = baseline !== undefined ? ["--baseline", baseline] : [];
const here = dirname(fileURLToPath(import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "connect-broken-"));
const start = join(dir, "start.json");
writeFileSync(start, JSON.stringify({ id: 1, method: "run.start", params: { assistant_id: "agent", input: {} } }));

// [mode, extra connect arguments, exit status, what the report must say]
const cases = [
  ["ok", ["--resume-after", "3"], 0, /^22 valid, 0 invalid$/m],
  ["ok", ["--channels", "lifecycle,messages", "--resume-after", "4"], 0, /^20 valid, 0 invalid$/m],
  ["swap", [], 1, /^5: error: \/seq: seq 4 is not greater than seq 5 at line 4 \[seq-order\]$/m],
  ["drop-on-resume", ["--resume-after", "3"], 1,
    /^4: error: \/seq: resumed by `since` in the request after seq 3: seq 5 follows, 1 events lost without the miss the protocol defines \[resume-gap\]$/m],
  ["repeat-on-resume", ["--resume-after", "3"], 1,
    /^4: error: \/seq: resumed by `since` in the request after seq 3: the server replayed from seq 3 instead of after seq 3 \(events already received are dropped\) \[resume-replayed\]$/m],
  ["bad-event", [], 1, /^5: error: \/params\/timestamp: /m],
  ["cut", [], 1, /^6: error: the subscription's SSE, its line \d+: the stream ends inside the event that starts here \[framing\]$/m],
  ["no-filter", [], 1, /^error: filtered subscription, its event \d+: seq \d+, but the main subscription's event \d+ that matches the filter is seq \d+ \[filter-subset\]$/m],
  ["wrong-id", [], 1, /^error: \/id: the response to command 1 \(run\.start\) has id 2 \[response-id\]$/m],
  ["no-end", ["--timeout", "3"], 1, /^\d+: error: timed out after 3 s: the run's root lifecycle did not end \(\d+ events read\) \[run-timeout\]$/m],
  ["huge", ["--max-event", "100000"], 1, /^3: error: the subscription's SSE, its line \d+: .*longer than the maximum/m],
  ["stall", ["--stall", "2"], 1, /^(3: )?error: (the|a) subscription stalled: no byte for 2 s \(--stall\) \[stall\]$/m],
  ["forever", ["--timeout", "3"], 1, /^\d+: error: timed out after 3 s: the run's root lifecycle did not end/m],
  ["heartbeat-stop", ["--timeout", "20"], 1,
    /^(3: )?error: (the|a) subscription: the server sent a heartbeat every 0\.\d s while idle, then nothing for \d+\.\d s \[heartbeat-missed\]$/m],
  ["silent-miss", ["--resume-after", "3"], 1,
    /error: \/seq: (the probe from before the window|resumed) by .*: seq \d+ follows, \d+ events lost without the miss the protocol defines \[resume-gap\]$/m],
];
// The same rules broken over a WebSocket (cut, huge and stall are SSE's).
const ws = ["--transport", "websocket"];
cases.push(
  ["ok", [...ws, "--resume-after", "3"], 0, /^22 valid, 0 invalid$/m],
  ["swap", ws, 1, /^5: error: \/seq: seq 4 is not greater than seq 5 at line 4 \[seq-order\]$/m],
  ["drop-on-resume", [...ws, "--resume-after", "3"], 1,
    /^4: error: \/seq: resumed by subscription\.reconnect after seq 3: seq 5 follows, 1 events lost without the miss the protocol defines \[resume-gap\]$/m],
  ["repeat-on-resume", [...ws, "--resume-after", "3"], 1,
    /^4: error: \/seq: resumed by subscription\.reconnect after seq 3: the server replayed from seq 3 instead of after seq 3 \(events already received are dropped\) \[resume-replayed\]$/m],
  ["bad-event", ws, 1, /^5: error: \/params\/timestamp: /m],
  ["no-filter", ws, 1, /^error: filtered subscription, its event \d+: seq \d+, but the main subscription's event \d+ that matches the filter is seq \d+ \[filter-subset\]$/m],
  ["wrong-id", ws, 1, /^error: \/id: a response with id \d+ answers no command in flight \[response-id\]$/m],
  ["no-end", [...ws, "--timeout", "3"], 1, /^\d+: error: timed out after 3 s: the run's root lifecycle did not end .*\[run-timeout\]$/m],
  ["forever", [...ws, "--timeout", "3"], 1, /^\d+: error: timed out after 3 s: the run's root lifecycle did not end/m],
);

// Runs cmd: { code, out }, out its standard output, then its standard error.
// Kept apart while they come: chunks of the two interleave anywhere, and a
// line of one cut by the other would not match the expected line.
function run(cmd, args, ms) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => { stdout += d; });
    child.stderr.on("data", (d) => { stderr += d; });
    const timer = setTimeout(() => child.kill("SIGKILL"), ms);
    child.on("close", (code, signal) => { // (after both streams ended: all of the output is in)
      clearTimeout(timer);
      resolve({ code: signal ? `killed (${signal})` : code, out: `${stdout}\n${stderr}` });
    });
  });
}

// broken_server.mjs in `mode`, started and waited for: { child, url, log() }.
function server(mode) {
  return startProcess(process.execPath, [join(here, "broken_server.mjs"), mode, script]);
}

// The cases run a few at once, each with its own server on its own port: most of their time is
// waiting (the timeouts, stall and heartbeat cases wait 2 to 3 s each), which one after another
// came to 20 s. Reported in the table's order.
const failures = [];
const results = await inPool(cases, 8, async ([mode, extra]) => {
  const srv = await server(mode);
  const t0 = Date.now();
  const r = await run(apstream, ["connect", srv.url, "--thread", "t1", "--start", start, ...extra, ...withBaseline], 30000);
  srv.child.kill("SIGTERM");
  return { srv, r, took: Date.now() - t0 };
});
cases.forEach(([mode, extra, status, said], i) => {
  const { srv, r, took } = results[i];
  const ok = r.code === status && said.test(r.out);
  console.log(`${ok ? "ok  " : "FAIL"} ${mode} ${extra.join(" ")}: exit ${r.code} in ${took} ms`);
  if (!ok) failures.push(`${mode}: expected exit ${status} and ${said}; got exit ${r.code}:\n${r.out}` +
                         (srv.log() !== "" ? `\nthe server's stderr:\n${srv.log()}` : ""));
});
rmSync(dir, { recursive: true, force: true });
if (failures.length > 0) {
  console.error(failures.join("\n\n"));
  process.exit(1);
}
