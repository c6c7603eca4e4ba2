// What the Node integration tests share: the repository, the `ctxbench` binary they hold the
// package to (the Rust library's answers), `ctxbench serve` for the framework agents, and a
// compactor that records every call it makes. (python/tests/conftest.py, for Node.)
//
// The binary is $CTXBENCH_BIN, else target/debug/ctxbench or target/release/ctxbench (newest
// first); run.sh sets $CTXBENCH_BIN. Without one the tests that need it skip and say so; with
// $CTXBENCH_BIN set to a file that is not there they fail.

import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

export const REPO = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
export const SCENARIO = join(REPO, "scenarios/bike-shop-return.json");

const require = createRequire(import.meta.url);
/** The package under test (node/, or $CTXBENCH_NODE_PACKAGE). */
export const ctxbench = require(process.env.CTXBENCH_NODE_PACKAGE || join(REPO, "node"));

/** The ctxbench binary, or null. */
export function binary() {
  const given = process.env.CTXBENCH_BIN;
  if (given) {
    if (!existsSync(given)) throw new Error(`CTXBENCH_BIN=${given}: no such file`);
    return given;
  }
  const found = ["target/debug/ctxbench", "target/release/ctxbench"].map((p) => join(REPO, p)).filter((p) => existsSync(p));
  found.sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs);
  return found[0] ?? null;
}

/** The request body a list of messages makes, in its format. */
export function bodyOf(messages, fmt = "chat", system) {
  const body = { [fmt === "responses" ? "input" : "messages"]: messages };
  if (system != null) body[fmt === "responses" ? "instructions" : "system"] = system;
  return body;
}

/** `ctxbench compact` on a body: {written: its list, report: its JSON report}. */
export function cliCompact(bin, body, strategy, window, { fmt = "chat", threshold, target } = {}) {
  const args = ["compact", "--strategy", strategy, "--window", String(window), "--format", fmt, "--estimator", "chars4", "--report", "json"];
  if (threshold != null) args.push("--threshold", String(threshold));
  if (target != null) args.push("--target", String(target));
  const done = spawnSync(bin, args, { input: JSON.stringify(body), maxBuffer: 1 << 30 });
  if (done.status !== 0) throw new Error(`ctxbench ${args.join(" ")} exited ${done.status}: ${done.stderr}`);
  const written = JSON.parse(done.stdout);
  return { written: Array.isArray(written) ? written : written[fmt === "responses" ? "input" : "messages"], report: JSON.parse(done.stderr) };
}

/** A `ctxbench serve` child on a free port; `stop()` writes its results. */
export async function serve(bin, scenario = SCENARIO) {
  const out = mkdtempSync(join(tmpdir(), "ctxbench-node-serve-"));
  const child = spawn(bin, ["serve", scenario, "--port", "0", "-o", out], { cwd: REPO, stdio: ["ignore", "pipe", "pipe"] });
  let log = "";
  child.stderr.on("data", (chunk) => (log += chunk));
  const lines = createInterface({ input: child.stdout });
  const first = await new Promise((done, fail) => {
    lines.once("line", done);
    child.once("exit", (code) => fail(new Error(`serve exited ${code} before listening: ${log}`)));
  });
  if (!first.startsWith("listening on ")) throw new Error(`serve said: ${first}`);
  const url = first.slice("listening on ".length);
  return {
    url,
    baseUrl: `${url}/v1`,
    async stop() {
      const exited = new Promise((done) => child.once("exit", done));
      await fetch(`${url}/ctxbench/shutdown`, { method: "POST" });
      const code = await exited;
      if (code !== 0) throw new Error(`serve exited ${code}: ${log}`);
      return JSON.parse(readFileSync(join(out, "results.json"), "utf8")).results;
    },
    kill() {
      if (child.exitCode === null) child.kill();
    },
  };
}

/**
 * A `make` for the examples' `main` that records every compaction: `recorder.calls` holds
 * {given, options, messages, report} per call, `recorder.settings` the window and threshold.
 */
export function recorder(strategy, served) {
  const rec = { calls: [], settings: null };
  rec.make = (args, played, format) => {
    const made = served.compactor({ ...args, strategy }, played, format);
    let real = made.compactor;
    rec.settings = { window: args.window ?? played.window, threshold: args.threshold, target: args.target, format };
    const wrapper = {
      format,
      settings: () => real.settings(),
      compact(messages, options) {
        const out = real.compact(messages, options);
        rec.calls.push({ given: structuredClone(messages), options, ...out });
        return out;
      },
      async compactAsync(messages, options) {
        const given = structuredClone(messages);
        const out = await real.compactAsync(messages, options);
        rec.calls.push({ given, options, ...out });
        return out;
      },
      fresh() {
        real = typeof real.fresh === "function" ? real.fresh() : real;
        return wrapper;
      },
    };
    return { compactor: wrapper, clock: made.clock };
  };
  return rec;
}
