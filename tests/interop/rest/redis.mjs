// redis.mjs - two `apstream serve --redis` replicas on one redis-server share
// the REST records (docs/rest.md, "Where the records live"): the SDK 1.15
// classic client makes a thread on one and runs it on the other, puts store
// items on one and reads, searches and lists them on the other; two runs
// started at once on one thread, one on each replica, under "reject": one
// runs, the other is refused 409, a join on the replica that does not play
// it waits and answers its values, a run enqueued on one behind the
// other's starts where it was enqueued; Redis killed and restarted during a run:
// requests meanwhile are refused 503 (never a hang), the run goes on or ends
// cleanly, a new run works once Redis is back, and every item acknowledged
// before the restart is read back. Redis away longer than a run waits for
// it: the run's stream ends with an error, and its records say so once
// Redis is back.
//
//   node redis.mjs --sdk DIR --apstream BIN AGENT_CAPTURE
//
// Redis runs with appendonly yes and appendfsync always (durability is its
// configuration). Exits 0, 1 on the first failure, 77 when redis-server is
// missing or apstream was built without hiredis (1 with CDDLGEN_REQUIRE_OPTIONAL=1).
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { spawnSync } from "node:child_process";
import { pathToFileURL } from "node:url";
import { freePort, skip, startProcess, withTimeout } from "../process.mjs";

const args = process.argv.slice(2);
const opt = { scripts: [] };
for (let i = 0; i < args.length; i++) {
  if (args[i] === "--sdk") opt.sdk = args[++i];
  else if (args[i] === "--apstream") opt.apstream = args[++i];
  else opt.scripts.push(args[i]);
}
if (!opt.sdk || !opt.apstream || opt.scripts.length !== 1) {
  console.error("usage: node redis.mjs --sdk DIR --apstream BIN AGENT_CAPTURE");
  process.exit(2);
}
const who = "interop-rest-redis";
if (spawnSync("redis-server", ["--version"]).error) skip(who, "redis-server is not installed");
const require = createRequire(join(resolve(opt.sdk), "package.json"));
const { Client } = await import(pathToFileURL(require.resolve("@langchain/langgraph-sdk")).href);

let failures = 0;
function check(cond, what, detail) {
  if (!cond) {
    failures++;
    console.error(`FAIL ${what}${detail !== undefined ? `: ${JSON.stringify(detail).slice(0, 400)}` : ""}`);
  }
}
const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
async function status(promise) {
  try { await promise; return 200; } catch (e) { return e.status ?? e.response?.status ?? String(e.message); }
}

// The capture's final root values: what every run of it ends with.
const events = readFileSync(opt.scripts[0], "utf8").split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l))
  .filter((m) => m.type === "event");
const finalValues = events.filter((e) => e.method === "values" && e.params.namespace.length === 0).map((e) => e.params.data).at(-1);
// What a run of it ends with, as the server answers it (the first runs.wait's answer, once its messages are the
// capture's): every other read, on either replica, must be the same. (The server writes messages in the classic
// form the reference serializes, so the capture's values are compared by their messages' ids.)
const finalIds = finalValues.messages.map((m) => m.id);
let answered = null;
const isFinal = (v) => v != null && Array.isArray(v.messages) && same(v.messages.map((m) => m.id), finalIds) &&
  (answered === null || same(v, answered));
const graph = events.find((e) => e.method === "lifecycle" && e.params.namespace.length === 0)?.params.data.graph_name ?? "agent";

const dir = mkdtempSync(join(tmpdir(), "rest-redis-"));
const port = await freePort();
const redisUrl = `redis://127.0.0.1:${port}`;
const startRedis = () => startProcess("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--save", "",
  "--appendonly", "yes", "--appendfsync", "always", "--dir", dir], /Ready to accept connections/);
let redis = await startRedis();
const started = [];
async function replica(pace) {
  let s;
  try {
    s = await startProcess(opt.apstream, ["serve", "--listen", "127.0.0.1:0", "--pace", String(pace), "--redis", redisUrl,
      "--script", opt.scripts[0]]);
  } catch (e) {
    if (/without hiredis/.test(String(e.message))) { redis.child.kill("SIGKILL"); skip(who, "apstream was built without hiredis"); }
    throw e;
  }
  started.push(s);
  return s;
}

try {
  const a = await replica(5);
  const b = await replica(5);
  // (no retries: a 503 is what is checked, not hidden)
  const A = new Client({ apiUrl: a.url, callerOptions: { maxRetries: 0 } });
  const B = new Client({ apiUrl: b.url, callerOptions: { maxRetries: 0 } });
  const limit = (p, what) => withTimeout(p, 10000, what);

  // ---- a thread made on A is run on B (runs.wait and runs.stream), its state read on A
  const t = await A.threads.create({ metadata: { user: "ada" } });
  const onB = await B.threads.get(t.thread_id);
  check(onB.thread_id === t.thread_id && same(onB.metadata, { user: "ada" }) && onB.status === "idle", "B reads A's thread", onB);
  const waited = await limit(B.runs.wait(t.thread_id, graph, { input: { messages: [{ type: "human", content: "hi" }] } }), "runs.wait on B");
  check(isFinal(waited), "runs.wait on B: the script's final values", waited);
  answered = waited;
  const state = await A.threads.getState(t.thread_id);
  check(isFinal(state.values), "A reads the state B's run left", state.values);
  const tA = await A.threads.get(t.thread_id);
  check(tA.status === "idle" && isFinal(tA.values) && tA.metadata.graph_id === graph, "A: the thread idle with its values", tA);
  const runsA = await A.runs.list(t.thread_id);
  check(runsA.length === 1 && runsA[0].status === "success", "A lists B's run, a success", runsA);
  check((await A.runs.get(t.thread_id, runsA[0].run_id)).status === "success", "A: runs.get of B's run");
  check(isFinal(await A.runs.join(t.thread_id, runsA[0].run_id)), "A: join of B's ended run: its values");
  const parts = [];
  for await (const p of B.runs.stream(t.thread_id, graph, { input: {}, streamMode: ["values"] })) parts.push(p);
  check(parts[0]?.event === "metadata" && isFinal(parts.filter((p) => p.event === "values").at(-1)?.data),
        "runs.stream on B: metadata first, the final values last", parts.map((p) => p.event));
  const history = await A.threads.getHistory(t.thread_id, { limit: 100 });
  check(history.length >= 2 && isFinal(history[0].values), "A: the history of both runs, newest first", history.length);
  check((await B.threads.search({ metadata: { user: "ada" } })).some((x) => x.thread_id === t.thread_id), "B: threads.search finds it");

  // ---- store: put on A, read, searched and listed on B; updated on B, read on A
  await A.store.putItem(["users", "ada"], "prefs", { theme: "dark", n: 1 });
  await A.store.putItem(["users", "bob"], "prefs", { theme: "light", n: 2 });
  const item = await B.store.getItem(["users", "ada"], "prefs");
  check(item && same(item.value, { theme: "dark", n: 1 }) && same(item.namespace, ["users", "ada"]), "B reads A's item", item);
  const found = await B.store.searchItems(["users"], { filter: { theme: "light" } });
  check(found.items.length === 1 && found.items[0].key === "prefs" && same(found.items[0].namespace, ["users", "bob"]),
        "B searches A's items by filter", found);
  check((await B.store.searchItems(["users"], { query: "dark" })).items.length === 1, "B: a text query");
  const ns = await B.store.listNamespaces({ prefix: ["users"] });
  check(same(ns.namespaces.map((n) => n.join(".")).sort(), ["users.ada", "users.bob"]), "B lists A's namespaces", ns);
  await B.store.putItem(["users", "ada"], "prefs", { theme: "light", n: 3 });
  const again = await A.store.getItem(["users", "ada"], "prefs");
  check(same(again.value, { theme: "light", n: 3 }) && again.created_at === item.created_at, "A reads B's update (created_at kept)", again);
  await B.store.deleteItem(["users", "bob"], "prefs");
  check((await A.store.getItem(["users", "bob"], "prefs")) === null, "A: the item B deleted is gone");

  // ---- one active run per thread across replicas: two at once under reject, one wins
  const t2 = await B.threads.create();
  const race = await Promise.allSettled([A.runs.create(t2.thread_id, graph, { input: {}, multitaskStrategy: "reject" }),
                                        B.runs.create(t2.thread_id, graph, { input: {}, multitaskStrategy: "reject" })]);
  const won = race.filter((x) => x.status === "fulfilled");
  const lost = race.filter((x) => x.status === "rejected");
  check(won.length === 1 && lost.length === 1 && (lost[0].reason.status ?? lost[0].reason.response?.status) === 409,
        "two runs at once on two replicas: one runs, one 409", race.map((x) => x.status === "fulfilled" ? x.value.status : x.reason.status));
  if (won.length === 1) {
    const run = won[0].value;
    const player = race[0].status === "fulfilled" ? A : B, other = player === A ? B : A;
    const joinElsewhere = limit(other.runs.join(t2.thread_id, run.run_id), "join on the other replica");
    check(await status(other.runs.create(t2.thread_id, graph, { input: {} })) === 409, "a third run, other replica: 409");
    check(await status(fetch(`${(other === A ? a : b).url}/threads/${t2.thread_id}/runs/${run.run_id}/stream`)
      .then((r) => { if (r.status !== 200) throw { status: r.status }; })) === 409,
          "its classic stream on the replica that does not play it: 409");
    check(isFinal(await limit(player.runs.join(t2.thread_id, run.run_id), "join")), "join on its replica: the values");
    check(isFinal(await joinElsewhere), "join on the other replica, while it played: the values once it ended");
    check(isFinal(await other.runs.join(t2.thread_id, run.run_id)), "join on the other, once ended: the values");
  }

  // ---- enqueue across replicas: a run enqueued on B behind A's starts on B, where its stream is, once A's ends
  const t5 = await A.threads.create();
  const first = await A.runs.create(t5.thread_id, graph, { input: {} });
  const queued = await B.runs.create(t5.thread_id, graph, { input: {}, multitaskStrategy: "enqueue" });
  check(queued.status === "pending", "enqueued on B behind A's run: pending", queued.status);
  const queuedStream = await limit((async () => {
    const seen5 = [];
    for await (const p of B.runs.joinStream(t5.thread_id, queued.run_id)) seen5.push(p.event);
    return seen5;
  })(), "joinStream of the enqueued run on B");
  check(queuedStream.includes("values"), "its stream on B plays once A's run ended", queuedStream);
  check((await A.runs.get(t5.thread_id, first.run_id)).status === "success" &&
        (await A.runs.get(t5.thread_id, queued.run_id)).status === "success", "both runs a success, read on A");
  check((await A.threads.get(t5.thread_id)).status === "idle", "and the thread idle");

  // ---- Redis killed and restarted during a run
  const t3 = await A.threads.create();
  const before = [];
  for (let i = 0; i < 5; i++) {
    await A.store.putItem(["acked"], `k${i}`, { i });
    before.push(`k${i}`);
  }
  const run3 = await B.runs.create(t3.thread_id, graph, { input: {} });
  await sleep(150);
  redis.child.kill("SIGKILL");
  await redis.exited;
  const down = await fetch(`${a.url}/threads/${t3.thread_id}`, { signal: AbortSignal.timeout(5000) });
  check(down.status === 503, "a request while Redis is down: 503", down.status);
  await sleep(300);
  redis = await startRedis();
  let r3;
  const deadline = Date.now() + 10000;
  for (;;) {
    r3 = await B.runs.get(t3.thread_id, run3.run_id);
    if (r3.status !== "running" && r3.status !== "pending") break;
    if (Date.now() > deadline) break;
    await sleep(100);
  }
  check(r3.status === "success" || r3.status === "error", "the run went on or failed cleanly (no hang)", r3.status);
  const t3after = await A.threads.get(t3.thread_id);
  check(t3after.status === (r3.status === "success" ? "idle" : "error"), "its thread says how it ended", t3after.status);
  if (r3.status === "success")
    check(isFinal(t3after.values), "the run that went on left the script's values", t3after.values);
  check(isFinal(await limit(A.runs.wait(t3.thread_id, graph, { input: {} }), "runs.wait after the restart")),
        "a new run after Redis is back");
  for (const k of before) {
    const got = await B.store.getItem(["acked"], k);
    check(got !== null && got.value.i === Number(k.slice(1)), `item ${k} acknowledged before the restart is read back`, got);
  }
  console.log(`${who}: the run across the restart ended ${r3.status}`);

  // ---- Redis away longer than a run waits for it (2 s): the run fails cleanly, and says so once it is back
  const t4 = await B.threads.create();
  const seen = [];
  const streaming = (async () => {
    for await (const p of B.runs.stream(t4.thread_id, graph, { input: {}, streamMode: ["values"] })) seen.push(p.event);
  })();
  while (seen.length < 2) await sleep(20);
  redis.child.kill("SIGKILL");
  await redis.exited;
  await limit(streaming, "the stream of a run whose records went away");
  check(seen[0] === "metadata" && seen.at(-1) === "error", "its stream ends with an error", seen);
  redis = await startRedis();
  const run4 = (await B.runs.list(t4.thread_id))[0];
  check(run4?.status === "error", "once Redis is back, the run's record says error", run4?.status);
  check((await A.threads.get(t4.thread_id)).status === "error", "and its thread's");
  check(isFinal(await limit(A.runs.wait(t4.thread_id, graph, { input: {} }), "runs.wait after the failure")),
        "a new run on that thread");
} catch (e) {
  failures++;
  console.error(`FAIL ${e.stack ?? e}`);
  for (const s of started) console.error(s.log());
} finally {
  for (const s of started) s.child.kill("SIGTERM");
  for (const s of started) {
    const code = await s.exited;
    // (a replica stops cleanly: under ASan, a leak or an error would say so here)
    if (code !== 0) {
      failures++;
      console.error(`FAIL a replica stopped with ${code}:\n${s.log().slice(-4000)}`);
    }
  }
  redis.child.kill("SIGTERM");
  await redis.exited;
  rmSync(dir, { recursive: true, force: true });
}
if (failures > 0) {
  console.error(`${who}: ${failures} failure(s)`);
  process.exit(1);
}
console.log(`${who}: ok`);
