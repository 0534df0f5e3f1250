// compare.mjs - the differential test of message assembly: the same streams
// go to the reference client's MessageAssembler (@langchain/langgraph-sdk)
// and to `apstream assemble`; the final blocks of every message must agree.
//
//   node compare.mjs --sdk DIR --apstream BIN --work DIR [--generate N] [--seed S] FILE...
//
// DIR is where the SDK was installed (DIR/node_modules/@langchain/langgraph-sdk).
// Each FILE is one stream (JSONL, or SSE when it ends in .sse). --generate adds
// N streams made here from a seeded PRNG: valid ones, and ones mutated by
// dropping, repeating, reordering and corrupting events (see generate()).
//
// A message is compared as canonical JSON of {namespace, node, id, blocks}
// (keys sorted, holes of the reference's sparse block array left out, as the
// reference's own AIMessage does). The reference's messages are every message
// object its assembler ever held active, including those a later
// message-start replaced and the ones it made up for events with no message;
// ours are the "message" lines apstream prints. Per stream the two lists
// are compared as sorted lists, so the order of completion does not matter.
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

function parseArgs(argv) {
  const o = { files: [], generate: 0, seed: 1 };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--sdk") o.sdk = argv[++i];
    else if (a === "--apstream") o.apstream = argv[++i];
    else if (a === "--work") o.work = argv[++i];
    else if (a === "--generate") o.generate = Number(argv[++i]);
    else if (a === "--seed") o.seed = Number(argv[++i]);
    else o.files.push(a);
  }
  if (!o.sdk || !o.apstream || !o.work) {
    console.error("usage: node compare.mjs --sdk DIR --apstream BIN --work DIR [--generate N] [--seed S] FILE...");
    process.exit(2);
  }
  return o;
}

// ---- canonical form ---------------------------------------------------------

function canonical(v) {
  if (Array.isArray(v)) return `[${v.map(canonical).join(",")}]`;
  if (v !== null && typeof v === "object") {
    const keys = Object.keys(v).filter((k) => v[k] !== undefined).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical(v[k])}`).join(",")}}`;
  }
  return JSON.stringify(v === undefined ? null : v);
}

function messageForm(namespace, node, id, blocks) {
  return canonical({
    namespace,
    node: node ?? null,
    id: id ?? null,
    blocks: blocks.filter((b) => b != null),
  });
}

// ---- the two sides -------------------------------------------------------------

function parseStream(text, sse) {
  const events = [];
  if (!sse) {
    for (const line of text.split("\n")) if (line.trim() !== "") events.push(line);
    return events;
  }
  let data = [];
  for (const line of text.split(/\r?\n/)) {
    if (line === "") {
      if (data.length) events.push(data.join("\n"));
      data = [];
    } else if (line.startsWith("data:")) {
      data.push(line.slice(line[5] === " " ? 6 : 5));
    }
  }
  if (data.length) events.push(data.join("\n"));
  return events;
}

function referenceMessages(MessageAssembler, texts) {
  const asm = new MessageAssembler();
  // Every message the assembler ever holds goes through activeMessages.set:
  // the started ones, the ones made up for events with no message, and the
  // ones a later message-start or made-up message replaced under their key.
  const order = [];
  asm.activeMessages = new (class extends Map {
    set(key, message) {
      if (!order.includes(message)) order.push(message);
      return super.set(key, message);
    }
  })();
  for (const text of texts) {
    let ev;
    try {
      ev = JSON.parse(text);
    } catch {
      continue;
    }
    if (ev === null || typeof ev !== "object" || ev.method !== "messages" || ev.params == null) continue;
    try {
      asm.consume(ev);
    } catch {
      // a delta with neither `delta` nor `content`: the reference throws and changes no block
    }
  }
  asm.abandonActive();
  return order.map((m) => messageForm(m.namespace, m.node, m.id, m.blocks));
}

function ourMessages(apstream, file) {
  const r = spawnSync(apstream, ["assemble", "--case", "either", file], { encoding: "utf8", maxBuffer: 1 << 28 });
  if (r.error) throw r.error;
  if (r.status !== 0 && r.status !== 1) throw new Error(`apstream assemble ${file}: exit ${r.status}: ${r.stderr}`);
  const out = [];
  for (const line of r.stdout.split("\n")) {
    if (line === "") continue;
    const m = JSON.parse(line);
    if (m.kind === "message") out.push(messageForm(m.namespace, m.node, m.id, m.content ?? []));
  }
  return out;
}

// ---- generated streams ----------------------------------------------------------

function prng(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = ["Hel", "lo", " wor", "ld", "!", " é", "\"q\"", "\\", "\n", "ok", "💡", "12", " "];

// The data of every event of one message: a valid lifecycle.
function messageEvents(rnd, pick, id, runId) {
  const ev = [];
  const withRun = (d) => (runId ? { ...d, run_id: runId } : d);
  const start = { event: "message-start", role: "ai", id };
  if (rnd() < 0.2) start.usage = { input_tokens: 3, output_tokens: 0, total_tokens: 3 };
  ev.push(withRun(start));
  const nblocks = 1 + Math.floor(rnd() * 4);
  for (let i = 0; i < nblocks; i++) {
    const kind = pick(["text", "text", "reasoning", "tool", "image", "fields"]);
    const legacy = rnd() < 0.15;
    const tokens = [];
    for (let k = Math.floor(rnd() * 5); k > 0; k--) tokens.push(pick(WORDS));
    const joined = tokens.join("");
    let startBlock, finalBlock, delta;
    if (kind === "text") {
      startBlock = { type: "text", text: "" };
      finalBlock = { type: "text", text: joined };
      delta = (t) => (legacy ? { content: { type: "text", text: t } } : { delta: { type: "text-delta", text: t } });
    } else if (kind === "reasoning") {
      startBlock = { type: "reasoning", reasoning: "" };
      finalBlock = { type: "reasoning", reasoning: joined };
      delta = (t) =>
        legacy ? { content: { type: "reasoning", reasoning: t } } : { delta: { type: "reasoning-delta", reasoning: t } };
    } else if (kind === "tool") {
      const callId = `call_${id}_${i}`;
      const type = pick(["tool_call_chunk", "tool_call_chunk", "tool_use"]);
      startBlock = { type, id: callId, name: "add", args: "" };
      finalBlock = { type: "tool_call", id: callId, name: "add", args: { a: 1 } };
      delta = (t) =>
        legacy || type === "tool_use"
          ? { content: { type: pick(["tool_call_chunk", "input_json_delta"]), args: t, id: rnd() < 0.5 ? null : callId } }
          : { delta: { type: "tool-call-delta", args: t } };
    } else if (kind === "image") {
      startBlock = { type: "image", mime_type: "image/png", data: "" };
      finalBlock = { type: "image", mime_type: "image/png", base64: "QUJD" };
      delta = () => ({ delta: { type: "data-delta", data: pick(["QU", "JD", "=="]) } });
    } else {
      startBlock = { type: "non_standard", value: { n: 0 } };
      finalBlock = { type: "non_standard", value: { n: tokens.length } };
      delta = (t) => ({ delta: { type: "block-delta", fields: { value: { n: t.length }, note: t } } });
    }
    ev.push(withRun({ event: "content-block-start", index: i, content: startBlock }));
    for (const t of tokens) ev.push(withRun({ event: "content-block-delta", index: i, ...delta(t) }));
    ev.push(withRun({ event: "content-block-finish", index: i, content: finalBlock }));
  }
  if (rnd() < 0.2) ev.push(withRun({ event: "usage", usage: { input_tokens: 3, output_tokens: 5, total_tokens: 8 } }));
  if (rnd() < 0.1) ev.push(withRun({ event: "error", message: "model failed", code: "boom" }));
  else ev.push(withRun({ event: "message-finish", reason: "stop", usage: { input_tokens: 3, output_tokens: 5, total_tokens: 8 } }));
  return ev;
}

function corrupt(rnd, pick, e, places) {
  const d = structuredClone(e.params.data);
  const p = structuredClone(e.params);
  p.data = d;
  const choice = Math.floor(rnd() * 7);
  if (choice === 0 && typeof d.index === "number") d.index = Math.max(0, d.index + pick([-1, 1, 2]));
  else if (choice === 1 && d.delta && d.delta.type === "text-delta") d.delta = { type: "reasoning-delta", reasoning: d.delta.text };
  else if (choice === 2 && d.delta && d.delta.type === "reasoning-delta") d.delta = { type: "text-delta", text: d.delta.reasoning };
  else if (choice === 3) {
    const other = pick(places);
    p.namespace = other.namespace;
    if (other.node === undefined) delete p.node;
    else p.node = other.node;
  } else if (choice === 4) {
    if (d.run_id) delete d.run_id;
    else d.run_id = "run-x";
  } else if (choice === 5 && d.delta) d.delta = { type: "tool-call-delta", args: "{" };
  else if (choice === 6 && d.content && typeof d.content === "object") d.content = { ...d.content, type: pick(["text", "reasoning", "tool_use"]) };
  return { ...e, params: p };
}

function generate(seed) {
  const rnd = prng(seed);
  const pick = (a) => a[Math.floor(rnd() * a.length)];
  const nplaces = 1 + Math.floor(rnd() * 3);
  const places = [];
  for (let k = 0; k < nplaces; k++) {
    const place = { namespace: k === 0 ? [] : [`model_request:${seed}-${k}`] };
    if (rnd() < 0.7) place.node = "model";
    places.push(place);
  }
  // Per place, its messages one after another; places interleave at random.
  const queues = places.map((place, k) => {
    const q = [];
    const nmsg = 1 + Math.floor(rnd() * 2);
    for (let j = 0; j < nmsg; j++) {
      const runId = rnd() < 0.4 ? `run-${seed}-${k}-${j}` : undefined;
      for (const d of messageEvents(rnd, pick, `m${k}${j}`, runId)) q.push({ place, d });
    }
    if (rnd() < 0.3) {
      const callId = `call_m${k}0_0`;
      q.push({ place, tool: { event: "tool-started", toolCallId: callId, toolName: "add", input: { a: 1 } } });
      if (rnd() < 0.5) q.push({ place, tool: { event: "tool-output-delta", toolCallId: callId, delta: "1" } });
      q.push({ place, tool: { event: "tool-finished", toolCallId: callId, output: 2 } });
    }
    return q;
  });
  let events = [];
  let seq = 0;
  while (queues.some((q) => q.length)) {
    const q = pick(queues.filter((x) => x.length));
    const { place, d, tool } = q.shift();
    const params = { namespace: place.namespace, timestamp: ++seq, data: d ?? tool };
    if (place.node !== undefined) params.node = place.node;
    events.push({ type: "event", eventId: `e${seq}`, seq, method: tool ? "tools" : "messages", params });
  }
  // Half stay valid; the others get one to three mutations.
  if (rnd() >= 0.5) {
    for (let n = 1 + Math.floor(rnd() * 3); n > 0 && events.length > 1; n--) {
      const i = Math.floor(rnd() * events.length);
      const how = Math.floor(rnd() * 4);
      if (how === 0) events.splice(i, 1); // drop
      else if (how === 1) events.splice(i, 0, events[i]); // repeat
      else if (how === 2) {
        const [e] = events.splice(i, 1); // reorder: move it elsewhere
        events.splice(Math.floor(rnd() * (events.length + 1)), 0, e);
      } else events[i] = corrupt(rnd, pick, events[i], places); // corrupt
    }
  }
  return events.map((e) => JSON.stringify(e));
}

// ---- main ------------------------------------------------------------------------

async function main() {
  const o = parseArgs(process.argv.slice(2));
  const pkgDir = join(resolve(o.sdk), "node_modules", "@langchain", "langgraph-sdk");
  const pkg = JSON.parse(readFileSync(join(pkgDir, "package.json"), "utf8"));
  // The module that defines MessageAssembler (exported as it is from the
  // package's entry point), loaded by its path: it needs only @langchain/core,
  // while the entry point also loads p-queue and p-retry, which declare
  // node >= 20 (Debian 12 ships node 18).
  const { MessageAssembler } = await import(pathToFileURL(join(pkgDir, "dist", "client", "stream", "messages.js")).href);
  mkdirSync(o.work, { recursive: true });
  const streams = o.files.map((f) => ({ name: f, file: f, texts: parseStream(readFileSync(f, "utf8"), f.endsWith(".sse")) }));
  for (let i = 0; i < o.generate; i++) {
    const texts = generate(o.seed + i);
    const file = join(o.work, `gen-${o.seed + i}.jsonl`);
    writeFileSync(file, texts.join("\n") + "\n");
    streams.push({ name: `generated seed ${o.seed + i} (${file})`, file, texts });
  }
  let messages = 0;
  let differences = 0;
  let shown = 0;
  for (const s of streams) {
    const ref = referenceMessages(MessageAssembler, s.texts).sort();
    const ours = ourMessages(o.apstream, s.file).sort();
    messages += Math.max(ref.length, ours.length);
    const rest = [...ours];
    const missing = [];
    for (const m of ref) {
      const at = rest.indexOf(m);
      if (at >= 0) rest.splice(at, 1);
      else missing.push(m);
    }
    const diff = Math.max(missing.length, rest.length);
    differences += diff;
    if (diff && shown++ < 10) {
      console.log(`DIFFERENT: ${s.name}`);
      for (const m of missing) console.log(`  reference only: ${m}`);
      for (const m of rest) console.log(`  apstream only:  ${m}`);
    }
  }
  console.log(
    `reference: MessageAssembler of ${pkg.name} ${pkg.version} on node ${process.version}; ` +
      `${streams.length} streams (${o.files.length} given, ${o.generate} generated), ` +
      `${messages} messages compared, ${differences} differ`,
  );
  process.exit(differences ? 1 : 0);
}

main().catch((e) => {
  console.error(e && e.stack ? e.stack : String(e));
  process.exit(2);
});
