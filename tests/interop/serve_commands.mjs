// serve_commands.mjs - `apstream serve`'s answers to the commands it
// implements itself, over POST /commands, checked by their shape:
// run.start (a runId; a second one while the run plays is refused),
// input.respond (no_such_interrupt when nothing waits), state.get and
// GET /state (the script's latest root values, in the classic API's form), agent.getTree (the root and
// each namespace seen, with its last lifecycle status), and any other
// method (not_supported).
//
//   node serve_commands.mjs APSTREAM SCRIPT
//
// SCRIPT is tests/interop/scripts/subgraphs.jsonl: its last root values,
// and the namespaces researcher:7f3a and researcher:7f3a/search:19c2.
import { classic } from "./classic_values.mjs";
import { startProcess } from "./process.mjs";
import { readFileSync } from "node:fs";

const [apstream, script] = process.argv.slice(2);
const failures = [];
const check = (ok, what) => { if (!ok) failures.push(what); };

const events = readFileSync(script, "utf8").split("\n").filter((l) => l !== "").map((l) => JSON.parse(l));
const lastValues = events.filter((e) => e.method === "values" && e.params.namespace.length === 0).pop().params.data;

const { child, url, log, exited } = await startProcess(apstream,
  ["serve", "--listen", "127.0.0.1:0", "--script", script, "--pace", "20"]);

let nextId = 1;
async function command(method, params) {
  const id = nextId++;
  const res = await fetch(`${url}/threads/t1/commands`, {
    method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ id, method, params }),
  });
  const body = await res.json();
  check(body.id === id, `${method}: the response's id is ${body.id}, not ${id}`);
  return body;
}

try {
  const start = await command("run.start", { assistant_id: "agent", input: {} });
  check(start.type === "success" && start.result.run_id === "run-1", `run.start: ${JSON.stringify(start)}`);
  const again = await command("run.start", { assistant_id: "agent", input: {} });
  check(again.type === "error" && again.error === "invalid_argument", `a second run.start: ${JSON.stringify(again)}`);
  const respond = await command("input.respond", { namespace: [], interrupt_id: "none", response: 1 });
  check(respond.type === "error" && respond.error === "no_such_interrupt", `input.respond: ${JSON.stringify(respond)}`);
  const other = await command("state.listCheckpoints", {});
  check(other.type === "error" && other.error === "not_supported", `state.listCheckpoints: ${JSON.stringify(other)}`);

  // The run plays at 20 ms an event: wait (at most 20 s) until its root has completed.
  for (let i = 0; i < 400; i++) {
    const t = await command("agent.getTree", {});
    if (t.result?.tree?.status === "completed") break;
    await new Promise((r) => setTimeout(r, 50));
  }

  const state = await command("state.get", { namespace: [] });
  check(state.type === "success" && JSON.stringify(state.result.values) === JSON.stringify(lastValues),
    `state.get: ${JSON.stringify(state)}`);
  const res = await fetch(`${url}/threads/t1/state`);
  const got = await res.json();
  // (the protocol's state.get answers the script's values as they are; the classic API's GET /state, in its form)
  check(res.status === 200 && JSON.stringify(got.values) === JSON.stringify(classic(lastValues)), `GET /state: ${JSON.stringify(got)}`);
  const missing = await fetch(`${url}/threads/nothing/state`);
  check(missing.status === 404, `GET /state of an unknown thread: ${missing.status}`);

  const tree = await command("agent.getTree", {});
  const t = tree.result?.tree;
  check(tree.type === "success" && t && t.namespace.length === 0 && t.status === "completed" &&
        t.graph_name === "supervisor", `agent.getTree's root: ${JSON.stringify(tree)}`);
  const children = new Map((t?.children ?? []).map((c) => [JSON.stringify(c.namespace), c]));
  const researcher = children.get(JSON.stringify(["researcher:7f3a"]));
  const search = children.get(JSON.stringify(["researcher:7f3a", "search:19c2"]));
  check(researcher?.status === "completed" && researcher?.graph_name === "researcher", `researcher: ${JSON.stringify(researcher)}`);
  check(search?.status === "completed" && search?.graph_name === "search", `search: ${JSON.stringify(search)}`);
} catch (e) {
  failures.push(String(e.stack ?? e));
} finally {
  child.kill("SIGTERM");
}
const status = await exited;
check(status === 0, `apstream serve ended with ${status} after SIGTERM`);
for (const f of failures) console.log(`FAIL ${f}`);
if (failures.length > 0) console.log(log().split("\n").slice(-20).join("\n"));
console.log(`serve commands: ${failures.length} failures`);
process.exit(failures.length === 0 ? 0 : 1);
