// server.mjs - the protocol's reference server (@langchain/langgraph-api's
// startServer, the server of `langgraph dev`) with this folder's graphs, on
// 127.0.0.1, offline, its state in a folder of its own that is removed at exit.
//
//   node server.mjs MODULES [--port N] [--workers N]
//
// MODULES is the folder install.sh installed into (it holds node_modules).
// The graphs (graphs/graphs.mjs) are copied into a fresh folder under it, so
// that they import the same @langchain/langgraph as the server does (node
// resolves a module's imports from the module's own folder upwards); that
// folder is also the server's cwd, where it keeps its storage
// (.langgraph_api/). Port 0 (the default) takes a free port.
//
// When ready it prints exactly one line on standard output,
// `listening on http://127.0.0.1:PORT (state in DIR)` (what process.mjs's
// startProcess waits for; DIR is the folder removed at exit, so that a test
// can check that its own server's folder is gone while others run); the server's own log goes to standard error (LOG_LEVEL, info
// by default). It exits 0 on SIGTERM or SIGINT, and when its standard input
// is a pipe or socket that closes (so a harness that dies takes it along;
// /dev/null, as startProcess gives, is not watched).
import { copyFileSync, fstatSync, mkdtempSync, readdirSync, rmSync, writeSync } from "node:fs";
import { createRequire } from "node:module";
import { join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const usage = "usage: node server.mjs MODULES [--port N] [--workers N]";
const args = process.argv.slice(2);
const modules = args[0] && !args[0].startsWith("--") ? resolve(args.shift()) : null;
const options = { port: 0, workers: 10 };
for (let i = 0; i < args.length; i += 2) {
  const name = args[i].replace(/^--/, "");
  const value = Number(args[i + 1]);
  if (!(name in options) || !Number.isInteger(value) || value < 0) {
    console.error(usage);
    process.exit(2);
  }
  options[name] = value;
}
if (modules == null) {
  console.error(usage);
  process.exit(2);
}

// Offline: no LangSmith tracing (the only network use of the server and
// LangChain besides webhooks, which no run here asks for).
Object.assign(process.env, {
  LANGSMITH_TRACING: "false",
  LANGSMITH_TRACING_V2: "false",
  LANGCHAIN_TRACING: "false",
  LANGCHAIN_TRACING_V2: "false",
  LANGCHAIN_CALLBACKS_BACKGROUND: "false",
});
delete process.env.LANGSMITH_API_KEY;
delete process.env.LANGCHAIN_API_KEY;
delete process.env.LANGSMITH_ENDPOINT;
process.env.LOG_LEVEL ??= "info";
process.env.LOG_JSON ??= "true";

// Standard output carries the one ready line: the server's logger (winston's
// console transport writes to stdout) goes to standard error instead.
process.stdout.write = process.stderr.write.bind(process.stderr);

const here = fileURLToPath(new URL(".", import.meta.url));
const cwd = mkdtempSync(join(modules, "run-"));
for (const file of readdirSync(join(here, "graphs"))) copyFileSync(join(here, "graphs", file), join(cwd, file));

let stopping = false;
let cleanup = null;
async function stop(code) {
  if (stopping) return;
  stopping = true;
  // The server's cleanup flushes its storage and closes every connection;
  // bounded, since a stuck run must not keep the process.
  const timer = setTimeout(() => finish(code), 3000);
  try { await cleanup?.(); } catch (e) { console.error(`server.mjs: cleanup: ${e.message}`); }
  clearTimeout(timer);
  finish(code);
}
function finish(code) {
  rmSync(cwd, { recursive: true, force: true });
  process.exit(code);
}
process.on("SIGTERM", () => stop(0));
process.on("SIGINT", () => stop(0));
try {
  const stdin = fstatSync(0);
  if (stdin.isFIFO() || stdin.isSocket()) {
    process.stdin.on("end", () => stop(0));
    process.stdin.on("error", () => stop(0));
    process.stdin.resume();
  }
} catch { /* no standard input at all */ }

const require = createRequire(join(modules, "package.json"));
let startServer;
try {
  ({ startServer } = await import(pathToFileURL(require.resolve("@langchain/langgraph-api/server")).href));
} catch (e) {
  console.error(`server.mjs: @langchain/langgraph-api is not installed in ${modules} (install.sh): ${e.message}`);
  finish(1);
}
const started = Date.now();
try {
  const server = await startServer({
    port: options.port,
    nWorkers: options.workers,
    host: "127.0.0.1",
    cwd,
    graphs: {
      agent: "./graphs.mjs:agent",
      subgraph_interrupt: "./graphs.mjs:subgraph_interrupt",
      silent: "./graphs.mjs:silent",
    },
  });
  cleanup = server.cleanup;
  const port = server.host.split(":").pop();
  console.error(`server.mjs: started in ${Date.now() - started} ms (${Math.round(process.uptime() * 1000)} ms since node started)`);
  writeSync(1, `listening on http://127.0.0.1:${port} (state in ${cwd})\n`);
} catch (e) {
  console.error(`server.mjs: the server did not start: ${e.stack ?? e}`);
  finish(1);
}
