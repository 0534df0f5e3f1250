// subscription.mjs - the differential test of subscriptions: the reference
// client's own matchesSubscription (@langchain/langgraph-sdk) and aps_filter
// (through subscription-verdicts, which reads events and requests as a
// server does) must give the same verdict for every (event, subscription)
// pair.
//
//   node subscription.mjs --sdk DIR --verdicts BIN --work DIR [--events N] [--filters M] [--seed S] TRACE...
//
// Events: N generated ones (every method the reference names, an unknown
// one, `custom` with and without names; namespaces of 0-3 segments with and
// without dynamic ":..." suffixes) plus every event of each TRACE (JSONL).
// Subscriptions: M generated ones (channel sets including custom:NAME,
// namespace prefixes with and without ':', depth absent or 0-3) plus the
// ones the issue tracker and docs name. A request our side refuses (none
// should be, as generated) fails the test.
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

function parseArgs(argv) {
  const o = { traces: [], events: 600, filters: 400, seed: 1 };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--sdk") o.sdk = argv[++i];
    else if (a === "--verdicts") o.verdicts = argv[++i];
    else if (a === "--work") o.work = argv[++i];
    else if (a === "--events") o.events = Number(argv[++i]);
    else if (a === "--filters") o.filters = Number(argv[++i]);
    else if (a === "--seed") o.seed = Number(argv[++i]);
    else o.traces.push(a);
  }
  if (!o.sdk || !o.verdicts || !o.work) {
    console.error("usage: node subscription.mjs --sdk DIR --verdicts BIN --work DIR [--events N] [--filters M] [--seed S] TRACE...");
    process.exit(2);
  }
  return o;
}

// mulberry32: a small seeded PRNG, so every run tests the same pairs.
function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SEGMENTS = ["a", "b", "ab", "", "a:1", "a:b:c", "ab:x", ":z", "model_request", "model_request:db60c136",
  "tools:dd864e2c", "tools"];
const NAMES = ["p", "q", "pq", "p:q", ""];
const CHANNELS = ["values", "updates", "messages", "tools", "lifecycle", "input", "checkpoints", "tasks", "custom",
  "custom:p", "custom:q", "custom:pq", "custom:p:q"];

// Data each method's schema accepts, so that most generated events decode
// (the rest are read by their envelope, as a server buffers them).
function dataFor(method, name, pick) {
  switch (method) {
    case "values": return { n: pick(5) };
    case "updates": return { node: "agent", values: { n: pick(5) } };
    case "messages": return { event: "message-start", role: "ai", id: `m${pick(100)}` };
    case "tools": return { event: "tool-started", toolCallId: `t${pick(100)}`, toolName: "calc" };
    case "lifecycle": return { event: ["started", "running", "completed"][pick(3)] };
    case "input.requested": return { interruptId: `i${pick(100)}`, payload: null };
    case "input.answered": return { interruptId: `i${pick(100)}`, response: "yes" };
    case "checkpoints": return { id: `c${pick(100)}`, step: pick(5), source: "loop" };
    case "tasks": return { id: `k${pick(100)}`, name: "agent" };
    case "custom": return name === undefined ? { payload: 1 } : { name, payload: 1 };
    default: return { x: 1 };
  }
}

function generateEvents(n, rnd) {
  const pick = (k) => Math.floor(rnd() * k);
  const methods = ["values", "updates", "messages", "tools", "lifecycle", "input.requested", "input.answered",
    "checkpoints", "tasks", "custom", "custom", "custom", "unknown.method", "input"];
  const out = [];
  for (let i = 0; i < n; i++) {
    const method = methods[pick(methods.length)];
    const namespace = Array.from({ length: pick(4) }, () => SEGMENTS[pick(SEGMENTS.length)]);
    const name = pick(4) === 0 ? undefined : NAMES[pick(NAMES.length)];
    out.push({
      type: "event", eventId: `g${i}`, seq: i + 1, method,
      params: { namespace, timestamp: 1000 + i, data: dataFor(method, name, pick) },
    });
  }
  return out;
}

function generateFilters(m, rnd) {
  const pick = (k) => Math.floor(rnd() * k);
  const out = [
    { channels: ["messages"], namespaces: [["model_request"]] },
    { channels: ["messages", "tools"], namespaces: [["tools"]], depth: 0 },
    { channels: ["lifecycle", "values"], namespaces: [[]], depth: 0 },
    { channels: ["custom"] },
    { channels: ["input"] },
    { channels: ["lifecycle"], depth: 0 },
    { channels: ["custom:p"], namespaces: [] },
  ];
  for (let i = 0; i < m; i++) {
    const channels = CHANNELS.filter(() => pick(3) === 0);
    if (channels.length === 0) channels.push(CHANNELS[pick(CHANNELS.length)]);
    const f = { channels };
    const shape = pick(4);
    if (shape === 1) f.namespaces = [];
    else if (shape >= 2)
      f.namespaces = Array.from({ length: 1 + pick(3) },
        () => Array.from({ length: pick(4) }, () => SEGMENTS[pick(SEGMENTS.length)]));
    if (pick(2) === 0) f.depth = pick(4);
    out.push(f);
  }
  return out;
}

function readJsonl(path) {
  return readFileSync(path, "utf8").split("\n").filter((l) => l.trim() !== "").map((l) => JSON.parse(l));
}

async function main() {
  const o = parseArgs(process.argv.slice(2));
  const sdkDir = resolve(o.sdk, "node_modules/@langchain/langgraph-sdk");
  const { matchesSubscription } = await import(
    pathToFileURL(join(sdkDir, "dist/client/stream/subscription.js")).href);
  const rnd = prng(o.seed);
  const events = generateEvents(o.events, rnd);
  for (const t of o.traces) events.push(...readJsonl(t));
  const filters = generateFilters(o.filters, rnd);

  mkdirSync(o.work, { recursive: true });
  const eventsPath = join(o.work, "events.jsonl");
  const requestsPath = join(o.work, "requests.jsonl");
  writeFileSync(eventsPath, events.map((e) => JSON.stringify(e)).join("\n") + "\n");
  writeFileSync(requestsPath, filters.map((f) => JSON.stringify(f)).join("\n") + "\n");
  const run = spawnSync(o.verdicts, [eventsPath, requestsPath], { encoding: "utf8", maxBuffer: 1 << 30 });
  if (run.status !== 0) {
    console.error(`subscription-verdicts exited ${run.status}:\n${run.stderr}`);
    process.exit(1);
  }
  process.stderr.write(run.stderr);
  const ours = run.stdout.split("\n").filter((l) => l !== "");
  if (ours.length !== filters.length) {
    console.error(`subscription-verdicts gave ${ours.length} lines for ${filters.length} requests`);
    process.exit(1);
  }

  let pairs = 0, delivered = 0, differ = 0;
  for (let j = 0; j < filters.length; j++) {
    if (ours[j].startsWith("invalid:")) {
      console.error(`request ${j + 1} ${JSON.stringify(filters[j])} refused: ${ours[j]}`);
      differ++;
      continue;
    }
    for (let i = 0; i < events.length; i++) {
      const ev = { ...events[i], params: { ...events[i].params } };
      const want = matchesSubscription(ev, filters[j]);
      const got = ours[j][i] === "1";
      pairs++;
      if (want) delivered++;
      if (want !== got) {
        if (differ < 20)
          console.error(`differ: request ${JSON.stringify(filters[j])} event ${JSON.stringify(
            { method: ev.method, namespace: ev.params.namespace, name: ev.params.data?.name })}: reference ${want}, ours ${got}`);
        differ++;
      }
    }
  }
  console.log(`subscription differential: ${events.length} events x ${filters.length} subscriptions = ${pairs} pairs, ` +
    `${delivered} delivered by the reference, ${differ} differences`);
  process.exit(differ === 0 && pairs > 0 ? 0 : 1);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
