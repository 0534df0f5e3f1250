// record.mjs - records captures from the reference server: starts
// server.mjs, and for each run (agent: a tool call and a final answer;
// interrupt: subgraph_interrupt, its interrupt answered "yes" with
// input.respond) on each transport, on a thread of its own, subscribes to
// every channel, starts the run and reads it to its end:
//
//   OUT/agent.sse, OUT/interrupt.sse            the raw SSE body of the
//                                               POST /threads/ID/stream/events
//   OUT/agent.ws.jsonl, OUT/interrupt.ws.jsonl  every event message of the
//                                               WebSocket, one JSON a line
//
//   node record.mjs MODULES [OUT]
//
// MODULES is install.sh's folder; OUT is captures/ beside this script by
// default. Ids and timestamps change from one recording to the next; the
// rest does not. On standard error: each capture's event count and the
// command responses.
import { mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { CASES, runSse, runWs, startReference } from "./client.mjs";

const [modules, out = join(fileURLToPath(new URL(".", import.meta.url)), "captures")] = process.argv.slice(2);
if (modules == null) {
  console.error("usage: node record.mjs MODULES [OUT]");
  process.exit(2);
}
mkdirSync(out, { recursive: true });
const server = await startReference(resolve(modules));
let failed = false;
try {
  for (const name of ["agent", "interrupt"]) {
    const sse = await runSse(server.url, `${name}-sse`, CASES[name]);
    writeFileSync(join(out, `${name}.sse`), sse.body);
    report(`${name}.sse`, sse);
    const ws = await runWs(server.url, `${name}-ws`, CASES[name], resolve(modules));
    writeFileSync(join(out, `${name}.ws.jsonl`), ws.events.map((e) => JSON.stringify(e) + "\n").join(""));
    report(`${name}.ws.jsonl`, ws);
  }
} catch (e) {
  console.error(`record.mjs: ${e.stack ?? e}\n${server.log()}`);
  failed = true;
} finally {
  await server.stop();
}
process.exit(failed ? 1 : 0);

function report(file, run) {
  console.error(`${file}: ${run.events.length} events, the root ${run.end}`);
  for (const { method, response } of run.responses) console.error(`  ${method}: ${JSON.stringify(response)}`);
  for (const stray of run.strays ?? []) console.error(`  a response to no waiting command: ${JSON.stringify(stray)}`);
}
