// smoke.mjs - the reference server works here (ctest interop-reference-smoke):
// server.mjs starts and prints its URL, GET /ok answers, a run of each graph
// (agent, subgraph_interrupt answered with input.respond, silent) ends
// `completed` over SSE and over a WebSocket, each stream's seqs counting
// 1, 2, 3, ... with the run's own events in it, and SIGTERM stops the server
// with status 0 and its state folder gone.
//
//   node smoke.mjs MODULES
//
// MODULES is install.sh's folder; without an install there (install.sh
// skipped: no npm) the test is skipped (77), or fails when
// CDDLGEN_REQUIRE_OPTIONAL=1. The silent graph is silent for
// APSTREAM_REF_SILENT_MS (1500 here unless set). Bounded: 120 s in all.
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { skip } from "../process.mjs";
import { CASES, runSse, runWs, startReference } from "./client.mjs";

const who = "interop-reference-smoke";
const modules = resolve(process.argv[2] ?? "");
if (!existsSync(join(modules, "node_modules/@langchain/langgraph-api/package.json"))) {
  skip(who, `the reference server is not installed in ${modules} (interop-reference-install)`);
}
process.env.APSTREAM_REF_SILENT_MS ??= "1500";
setTimeout(() => { console.error(`${who}: not done after 120 s`); process.exit(1); }, 120000).unref();

const failures = [];
const check = (ok, what) => { if (!ok) failures.push(what); };

// What each run must show besides a clean end.
const expect = {
  agent: (events) => {
    check(events.some((e) => e.method === "tools" && e.params.data?.event === "tool-finished"), "agent: no tool-finished");
    check(lastValues(events).includes("Enjoy your day!"), "agent: the final values lack the final answer");
  },
  interrupt: (events) => {
    check(events.some((e) => e.method === "input.requested"), "interrupt: no input.requested");
    check(events.filter((e) => rootLifecycle(e) === "interrupted").length === 1, "interrupt: not interrupted once");
    check(lastValues(events).includes("You answered: yes."), "interrupt: the answer did not reach the state");
  },
  silent: (events) => check(lastValues(events).includes("here is the answer"), "silent: no answer"),
};
const rootLifecycle = (e) => (e.method === "lifecycle" && e.params.namespace.length === 0 ? e.params.data.event : null);
const lastValues = (events) => JSON.stringify(events.filter((e) => e.method === "values" && e.params.namespace.length === 0).at(-1) ?? null);

const started = Date.now();
const server = await startReference(modules);
console.log(`${who}: server.mjs ready in ${Date.now() - started} ms at ${server.url}`);
try {
  const ok = await (await fetch(`${server.url}/ok`)).json();
  check(ok?.ok === true, `GET /ok answered ${JSON.stringify(ok)}`);
  // The six runs at once, each on its thread (mostly waiting on the server's run queue and the
  // silent graph), checked in order afterwards.
  const combos = ["agent", "interrupt", "silent"].flatMap((name) => ["sse", "websocket"].map((transport) => [name, transport]));
  const runs = await Promise.all(combos.map(async ([name, transport]) => {
    const t0 = Date.now();
    const thread = `smoke-${name}-${transport}`;
    const run = transport === "sse"
      ? await runSse(server.url, thread, CASES[name])
      : await runWs(server.url, thread, CASES[name], modules);
    return { run, ms: Date.now() - t0 };
  }));
  combos.forEach(([name, transport], i) => {
    const { run, ms } = runs[i];
    const seqs = run.events.map((e) => e.seq);
    check(run.end === "completed", `${name} over ${transport}: the root ended ${run.end}`);
    check(seqs.every((s, i) => s === i + 1), `${name} over ${transport}: seqs ${seqs.join(",")}`);
    expect[name](run.events);
    console.log(`${who}: ${name} over ${transport}: ${run.events.length} events, ${run.end}, ${ms} ms`);
  });
} catch (e) {
  failures.push(`${e.stack ?? e}\n${server.log()}`);
} finally {
  const status = await server.stop().catch((e) => e.message);
  check(status === 0, `server.mjs after SIGTERM: ${status}`);
  // Its own folder only: other tests' servers share MODULES and run meanwhile.
  check(!existsSync(server.state), `server.mjs left ${server.state}`);
}
for (const f of failures) console.log(`${who}: FAIL ${f}`);
console.log(`${who}: ${failures.length === 0 ? "ok" : `${failures.length} failures`}`);
process.exit(failures.length === 0 ? 0 : 1);
