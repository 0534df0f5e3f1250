// process.mjs - what the interop scripts share: a server process started
// and waited for until it says it is ready, a redis-server on a free port of
// 127.0.0.1, and a time limit on a promise.
import { spawn, spawnSync } from "node:child_process";
import { createServer } from "node:net";

// Starts `bin` with `args` and waits, at most `ms`, for `ready` on its
// standard output (by default apstream serve's "listening on URL" line).
// Resolves to { child, match, url, log, exited }: url is the match's first
// group, log() what the process wrote on standard error so far, exited a
// promise of its exit code or signal.
export function startProcess(bin, args, ready = /listening on (http:\/\/\S+)/, ms = 10000) {
  const child = spawn(bin, args, { stdio: ["ignore", "pipe", "pipe"] });
  let log = "";
  child.stderr.on("data", (d) => { log += d; });
  const exited = new Promise((r) => child.on("exit", (code, signal) => r(signal ?? code)));
  return new Promise((resolve, reject) => {
    let out = "";
    const timer = setTimeout(() => reject(new Error(`${bin} did not start:\n${log}`)), ms);
    child.stdout.on("data", (d) => {
      out += d;
      const m = out.match(ready);
      if (m) {
        clearTimeout(timer);
        resolve({ child, match: m, url: m[1], log: () => log, exited });
      }
    });
    child.on("exit", (code) => { clearTimeout(timer); reject(new Error(`${bin} exited ${code}:\n${out}${log}`)); });
  });
}

// A free TCP port of 127.0.0.1 (free when asked: taken by whoever binds it first).
export function freePort() {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, "127.0.0.1", () => { const { port } = s.address(); s.close(() => resolve(port)); });
  });
}

// Says `why` the test is skipped and exits 77, or 1 when CDDLGEN_REQUIRE_OPTIONAL=1 (CI).
export function skip(who, why) {
  console.log(`${who}: skipped: ${why}`);
  process.exit(process.env.CDDLGEN_REQUIRE_OPTIONAL === "1" ? 1 : 77);
}

// A redis-server on a free port, no persistence: { url, child }. Skips the
// test (as `who`) when redis-server is not installed.
export async function startRedis(who) {
  if (spawnSync("redis-server", ["--version"]).error) skip(who, "redis-server is not installed");
  const port = await freePort();
  const { child } = await startProcess("redis-server",
    ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], /Ready to accept connections/);
  return { url: `redis://127.0.0.1:${port}`, child };
}

// `promise`, or a rejection saying `what` did not answer within `ms`.
export function withTimeout(promise, ms, what) {
  let timer;
  return Promise.race([promise, new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms);
  })]).finally(() => clearTimeout(timer));
}

// fn(item, index) for each of `items`, at most `n` at a time; resolves to
// their results in the items' order. For the tests whose cases each start
// their own server and mostly wait (timeouts, stalls): a few at once cost
// the time of the longest instead of the sum, and a bound keeps a loaded
// machine (the sanitizer build, ctest -j2) from turning the cases' own time
// limits into failures.
export async function inPool(items, n, fn) {
  const results = new Array(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i], i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(n, items.length) }, lane));
  return results;
}
