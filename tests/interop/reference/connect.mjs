// connect.mjs - the CI gate on the reference server (ctest
// interop-reference-connect-sse and -ws): `apstream connect` against
// @langchain/langgraph-api 1.5.1 running this folder's graphs, on one
// transport, with resumes, the commands probe and the 25 s silent node.
//
//   node connect.mjs APSTREAM MODULES BASELINE sse|websocket
//
// What must hold (issue 41, "Done when"):
//   - with BASELINE (docs/baselines/langgraph-api-1.5.1.jsonl) every run
//     exits 0: the baseline accepts what the server does, nothing else is
//     found, and a silence of 25 s is no finding;
//   - without it, every finding line is one of the baseline's keys, and each
//     key this transport can show is shown: each deviation named, nothing
//     else reported;
//   - with one entry removed, the run exits 1 and every finding it prints
//     is that entry's: a baseline hides only what it lists;
//   - a run.start in the schema's spelling (assistantId) is refused: one
//     refused-command finding, no knock-on timeout;
//   - under a path without the protocol's routes: exit 1, one no-endpoint.
// Runs go in parallel on one server, each on its own thread. Bounded: 240 s.
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { skip } from "../process.mjs";
import { CASES, startReference } from "./client.mjs";

const [apstream, modulesArg, baseline, transport] = process.argv.slice(2);
const who = `interop-reference-connect-${transport === "websocket" ? "ws" : "sse"}`;
const modules = resolve(modulesArg ?? "");
if (!existsSync(join(modules, "node_modules/@langchain/langgraph-api/package.json"))) {
  skip(who, `the reference server is not installed in ${modules} (interop-reference-install)`);
}
process.env.APSTREAM_REF_SILENT_MS ??= "25000"; // longer than the 20 s stall connect used to assume
setTimeout(() => { console.error(`${who}: not done after 240 s`); process.exit(1); }, 240000).unref();

const dir = mkdtempSync(join(tmpdir(), "reference-connect-"));
// A run.start file per graph and key spelling, written once: runs in parallel read them.
const start = (name, key = "assistant_id") => {
  const file = join(dir, `run-${name}-${key}.json`);
  const kase = CASES[name];
  if (!existsSync(file)) {
    writeFileSync(file, JSON.stringify({ id: 1, method: "run.start",
      params: { [key]: kase.graph, input: { messages: [{ role: "user", content: kase.text }] } } }));
  }
  return file;
};

// The baseline's entries: its comment lines, and each entry's line and key.
const lines = readFileSync(baseline, "utf8").split("\n");
const entries = lines.filter((l) => l.trim() !== "" && !l.startsWith("#"))
  .map((line) => ({ line, ...JSON.parse(line) }));
const keyOf = (e) => `${e.rule} ${e.method} ${e.pointer}`;

function run(args) {
  return new Promise((resolvePromise) => {
    const child = spawn(apstream, args, { stdio: ["ignore", "pipe", "pipe"] });
    let out = "", err = "";
    child.stdout.on("data", (d) => { out += d; });
    child.stderr.on("data", (d) => { err += d; });
    const timer = setTimeout(() => child.kill("SIGKILL"), 120000);
    // "close", not "exit": after both streams ended, so all of the output is in
    child.on("close", (code, signal) => { clearTimeout(timer); resolvePromise({ code: signal ?? code, out, err }); });
  });
}

// Every finding line's rule id ("... [rule]" on stdout).
const rulesOf = (out) => out.split("\n").map((l) => l.match(/^(?:\d+: )?error: .* \[([a-z-]+)\]$/)?.[1]).filter(Boolean);

const server = await startReference(modules);
console.log(`${who}: reference server at ${server.url}`);
const ws = transport === "websocket";
const base = ["--transport", transport];
let thread = 0;
const connect = (name, extra, key) =>
  run(["connect", server.url, "--thread", `${who}-${++thread}`, ...base, "--start", start(name, key), ...extra]);
// The runs of this transport. Over a WebSocket this server sends a thread's events to the socket
// opened last, so the main checks run on one socket (--filter none), and one run with the default
// second socket is there to name that. Its resumes over a WebSocket are new subscriptions (it
// refuses subscription.reconnect), and closing a socket ends the thread's session: the silent run,
// resumed before its silence, never ends on the new socket (resume-stalled, after --timeout 40,
// past the 25 s silence); the quick runs are mostly buffered whole before a resume, but may show
// it too (a race on the server's side), so the agent run that must show the schema's findings is
// not resumed. runs[0] shows what the one-socket runs show, runs[2] the resume, runs[3] the routing.
const runs = ws
  ? [["agent", ["--filter", "none", "--commands"]],
     ["interrupt", ["--filter", "none", "--resume-after", "5", "--timeout", "40"]],
     ["silent", ["--filter", "none", "--resume-after", "3", "--timeout", "40"]],
     ["agent", []],
     ["agent", ["--filter", "none", "--resume-after", "5", "--timeout", "40"]]]
  : [["agent", ["--resume-after", "5", "--commands"]],
     ["interrupt", ["--resume-after", "5"]],
     ["silent", ["--resume-after", "3"]]];
// Keys a run may show or not, as a race on the server's side goes: accepted, never required.
const racy = new Set(ws ? ["resume-stalled reconnect "] : []);
// The keys this transport shows (the others are the other transport's).
const shown = new Set(entries.map(keyOf).filter((k) => ws
  ? !/^(resume-replayed last-event-id|resume-refused since-event-id|unknown-command|response-shape command-without-id)/.test(k)
  : !/^(refused-command subscription\.reconnect|ws-|resume-stalled)/.test(k)).filter((k) => !racy.has(k)));

const failures = [];
const fail = (what, r) => failures.push(`${what}: exit ${r.code}\n${r.out}${r.err}`);
try {
  // 1. With the baseline: green, every run.
  const green = await Promise.all(runs.map(([name, extra]) => connect(name, [...extra, "--baseline", baseline])));
  green.forEach((r, i) => {
    if (r.code !== 0 || rulesOf(r.out).length > 0) fail(`${runs[i][0]} ${runs[i][1].join(" ")} with the baseline`, r);
    else console.log(`ok   ${runs[i][0]} ${runs[i][1].join(" ")}: exit 0 with the baseline`);
  });

  // 2. Without: each finding one of the baseline's, each of the transport's keys named.
  const written = join(dir, "written.jsonl");
  const bare = await Promise.all(runs.map(([name, extra], i) =>
    connect(name, [...extra, "--write-baseline", `${written}.${i}`])));
  const found = new Set();
  bare.forEach((r, i) => {
    for (const l of readFileSync(`${written}.${i}`, "utf8").split("\n")) {
      if (l.trim() !== "" && !l.startsWith("#")) found.add(keyOf(JSON.parse(l)));
    }
    if (r.code !== 1) fail(`${runs[i][0]} without the baseline: expected exit 1`, r);
  });
  for (const k of found) if (!shown.has(k) && !racy.has(k)) failures.push(`found, not in the baseline for ${transport}: ${k}`);
  for (const k of shown) if (!found.has(k)) failures.push(`in the baseline for ${transport}, not found: ${k}`);
  console.log(`${failures.length === 0 ? "ok  " : "FAIL"} without the baseline: ${found.size} kinds of finding, ` +
              `the baseline's ${shown.size} for ${transport}`);

  // 3. One entry removed at a time: red, naming that finding and nothing else.
  const removals = entries.filter((e) => shown.has(keyOf(e)));
  const red = await Promise.all(removals.map((gone, i) => {
    const file = join(dir, `without-${i}.jsonl`);
    writeFileSync(file, lines.filter((l) => l !== gone.line).join("\n"));
    const [name, extra] = runs[gone.rule.startsWith("ws-") ? 3
      : gone.rule === "resume-stalled" || (ws && gone.rule === "refused-command") ? 2 : 0];
    return connect(name, [...extra, "--baseline", file]);
  }));
  red.forEach((r, i) => {
    const rules = rulesOf(r.out);
    if (r.code !== 1 || rules.length === 0 || rules.some((rule) => rule !== removals[i].rule) ||
        !r.out.includes(`[${removals[i].rule}]`)) fail(`without ${keyOf(removals[i])}`, r);
    else console.log(`ok   without ${keyOf(removals[i])}: exit 1, ${rules.length} finding(s), all [${removals[i].rule}]`);
  });

  // 4. The schema's spelling of run.start: refused, said once, no run to time out.
  const camel = await connect("agent", ["--baseline", baseline], "assistantId");
  const camelRules = rulesOf(camel.out);
  if (camel.code !== 1 || camelRules.join() !== "refused-command" || !/run\.start\) was refused/.test(camel.out)) {
    fail("run.start with assistantId", camel);
  } else {
    console.log("ok   run.start with assistantId: refused-command, once, and nothing else");
  }

  // 5. The same server under a path without the protocol's routes: exit 1, one no-endpoint finding.
  const none = await run(["connect", `${server.url}/no-such-prefix`, "--thread", `${who}-none`, ...base,
                          "--start", start("agent")]);
  if (none.code !== 1 || rulesOf(none.out).join() !== "no-endpoint") fail("a URL without the protocol's routes", none);
  else console.log("ok   a URL without the protocol's routes: exit 1, no-endpoint, once");
} finally {
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
}
if (failures.length > 0) {
  console.error(failures.join("\n\n"));
  process.exit(1);
}
console.log(`${who}: passed`);
