// chromium.mjs - headless Chromium for the page tests (page.mjs, live.mjs):
// started in a process group of its own with a scratch profile, and stopped
// with the whole group (its helper processes too).
import { spawn } from "node:child_process";
import { join } from "node:path";

// Starts CMD (chromium) with ARGS (the URL last), its profile in DIR/PROFILE: { child, log, exited }.
export function startChromium(cmd, dir, args, profile = "profile") {
  const child = spawn(cmd, ["--headless=new", "--disable-gpu", "--no-sandbox", `--user-data-dir=${join(dir, profile)}`,
    "--no-first-run", "--no-default-browser-check", "--disable-extensions", "--disable-sync", "--enable-precise-memory-info",
    "--disable-background-networking", "--disable-component-update", ...args], { stdio: ["ignore", "ignore", "pipe"], detached: true });
  const b = { child, log: "" };
  child.stderr.on("data", (d) => { b.log += d; });
  b.exited = new Promise((r) => child.on("exit", r));
  return b;
}

// Stops what startChromium started: SIGTERM to the group, SIGKILL after 5 s.
export async function stopChromium(b) {
  const group = (sig) => { try { process.kill(-b.child.pid, sig); } catch { /* gone */ } };
  group("SIGTERM");
  const timer = setTimeout(() => group("SIGKILL"), 5000);
  await b.exited;
  clearTimeout(timer);
  group("SIGKILL");
}
