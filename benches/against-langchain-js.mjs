// ctxbench's Node package against LangChain.js's trimMessages, on the same history, in one
// process (benches/against_langchain.py's package rows, for Node).
//
// Run through benches/against-langchain-js.sh, which builds the binary, the package and the
// history and installs the peers. Arguments: HISTORY CTXBENCH.
//
// What is compared, round after round (A B A B, so that a drift of the machine's speed hits
// both), in this one process on the same parsed messages:
// - `new Compactor("drop", {estimator: "chars4"}).compact(messages)` (plain objects in, plain
//   objects out; a new compactor each round) against `trimMessages(messages, {strategy: "last",
//   includeSystem: true, startOn: "human"})` with LangChain.js's approximate counter
//   (`countTokensApproximately`, exported by `langchain`), warm (its first call shown apart);
// - the same with `estimator: "o200k"` against `trimMessages` with js-tiktoken's o200k_base
//   (each message's count memoized within a call, so that it encodes every message once, as
//   ctxbench does: the binary search would otherwise encode each of them many times).
// Both keep the same messages: LangChain's budget is fixed (a tenth of its approximate count of
// the history), and ctxbench's window is its own estimate (`ctxbench compact --strategy none`) of
// what trimMessages keeps plus the first request, which `drop` always keeps and "last" does not;
// the script checks that each kept exactly that, with every tool call answered.
//
// LangChain.js's trimMessages is quadratic in the messages: its "last" strategy reverses the
// list and drops one message at a time from the far end, calling the counter on the whole rest
// each time (@langchain/core's dist/messages/transformers.js, `_firstMaxTokens`). On 100,000
// messages one call takes hours with the approximate counter. So each of its calls is stopped
// after a limit (the counter throws; 300 s by default, `--peer-limit SECONDS`), and a call
// stopped is said so, with the ratio as a lower bound (at least the limit over ctxbench's
// time). What it would keep is computed apart, in one pass over the same counts (the largest
// newest run under the budget, then back to a human message, as `_firstMaxTokens` does): that
// is what ctxbench's window is set from, and when trimMessages finishes, the script checks it
// kept exactly that.

import { spawnSync } from "node:child_process";
import { readFileSync, statSync, writeFileSync, unlinkSync } from "node:fs";
import { createRequire } from "node:module";
import { cpus, tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROUNDS = 7;
const REPO = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const peers = createRequire(join(REPO, "node/integration/package.json"));
const ctxbench = createRequire(import.meta.url)(process.env.CTXBENCH_NODE_PACKAGE || join(REPO, "node"));

const argv = process.argv.slice(2);
let peerLimitS = 300;
const limitAt = argv.indexOf("--peer-limit");
if (limitAt >= 0) {
  peerLimitS = Number(argv[limitAt + 1]);
  if (!(peerLimitS > 0)) {
    console.error(`error: --peer-limit: expected a number of seconds, got '${argv[limitAt + 1]}'`);
    process.exit(2);
  }
  argv.splice(limitAt, 2);
}
const [historyPath, bin] = argv;
if (!historyPath || !bin) {
  console.error("usage: node benches/against-langchain-js.mjs HISTORY CTXBENCH [--peer-limit SECONDS] (see benches/against-langchain-js.sh)");
  process.exit(2);
}

const { coerceMessageLikeToMessage, trimMessages } = peers("@langchain/core/messages");
const { countTokensApproximately } = peers("langchain");
const { getEncoding } = peers("js-tiktoken");
const version = (name) => JSON.parse(readFileSync(join(REPO, "node/integration/node_modules", name, "package.json"), "utf8")).version;

const now = () => Number(process.hrtime.bigint()) / 1e6;
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const ms = (x) => `${Math.round(x).toLocaleString("en-US")} ms`;

/** Every tool result answers an earlier call of the kept messages, and every call is answered. */
function paired(messages) {
  const open = new Set();
  for (const m of messages) {
    if (m.role === "assistant") for (const call of m.tool_calls || []) open.add(call.id);
    else if (m.role === "tool") {
      if (!open.has(m.tool_call_id)) return false;
      open.delete(m.tool_call_id);
    }
  }
  return open.size === 0;
}

/** ctxbench's estimate of these messages (`ctxbench compact --strategy none`). */
function estimate(model, messages, estimator) {
  const file = join(tmpdir(), `ctxbench-js-peers-${process.pid}.json`);
  writeFileSync(file, JSON.stringify({ model, messages }));
  try {
    const args = ["compact", "--strategy", "none", "--estimator", estimator, "--tokenizer", "o200k", "--window", String(1e12), "--report", "json", file];
    const done = spawnSync(bin, args, { maxBuffer: 1 << 30 });
    if (done.status !== 0) throw new Error(`${bin} ${args.join(" ")}: ${done.stderr}`);
    return JSON.parse(done.stderr).before.estimated;
  } finally {
    unlinkSync(file);
  }
}

const raw = JSON.parse(readFileSync(historyPath, "utf8"));
const messages = raw.messages;
const lcMessages = messages.map(coerceMessageLikeToMessage);
const budget = Math.floor(countTokensApproximately(lcMessages) / 10);
const enc = getEncoding("o200k_base");

/** The characters countTokensApproximately counts for one message (its sum over a list, /4, rounded up, is its count). */
function approximateChars(m) {
  let text = "";
  if (typeof m.content === "string") text = m.content;
  else if (Array.isArray(m.content)) text = m.content.map((item) => (typeof item === "string" ? item : item.type === "text" && "text" in item ? item.text : "")).join("");
  if (m.getType() === "ai" && Array.isArray(m.tool_calls) && m.tool_calls.length > 0) text += JSON.stringify(m.tool_calls);
  if (m.getType() === "tool") text += m.tool_call_id ?? "";
  return text.length;
}

function o200kCount(m) {
  let n = typeof m.content === "string" ? enc.encode(m.content).length : 0;
  for (const call of m.tool_calls || []) n += enc.encode(call.name).length + enc.encode(JSON.stringify(call.args)).length;
  return n + 3;
}

const peersOf = {
  chars4: {
    name: "LangChain.js approximate (countTokensApproximately)",
    make: () => countTokensApproximately,
    // count(list) = ceil(sum of chars / 4)
    units: approximateChars,
    fits: (units) => Math.ceil(units / 4) <= budget,
  },
  o200k: {
    name: "LangChain.js with js-tiktoken o200k_base",
    make() {
      const memo = new Map();
      const one = (m) => {
        let n = memo.get(m);
        if (n === undefined) memo.set(m, (n = o200kCount(m)));
        return n;
      };
      return (list) => list.reduce((total, m) => total + one(m), 0);
    },
    units: o200kCount,
    fits: (units) => units <= budget,
  },
};

class Stopped extends Error {}

/** One trimMessages call with the peer's counter, stopped after the limit: {ms, kept} or {stopped: true}. */
async function trim(peer) {
  const counter = peer.make();
  const deadline = now() + peerLimitS * 1e3;
  const limited = (list) => {
    if (now() > deadline) throw new Stopped();
    return counter(list);
  };
  const start = now();
  try {
    const kept = await trimMessages(lcMessages, { maxTokens: budget, tokenCounter: limited, strategy: "last", includeSystem: true, startOn: "human" });
    return { ms: now() - start, kept };
  } catch (error) {
    if (error instanceof Stopped) return { stopped: true, ms: now() - start };
    throw error;
  }
}

/** What trimMessages keeps ("last", the system message kept, starting on a human message), in one pass: indices. */
function modelTrim(peer) {
  const n = lcMessages.length;
  // The reversed list: the system message, then the newest to the oldest.
  const reversed = [0];
  for (let i = n - 1; i >= 1; i--) reversed.push(i);
  let units = 0;
  let idx = 0;
  for (let k = 0; k < reversed.length; k++) {
    units += peer.units(lcMessages[reversed[k]]);
    if (!peer.fits(units)) break;
    idx = k + 1;
  }
  while (idx > 0 && lcMessages[reversed[idx - 1]].getType() !== "human") idx -= 1;
  const kept = reversed.slice(0, idx);
  return [kept[0], ...kept.slice(1).reverse()];
}

/** The messages trimMessages returned (copies) as indices of the history. */
function indicesOf(kept, expected) {
  const key = (m) => `${m.getType()}\u0000${m.tool_call_id ?? ""}\u0000${typeof m.content === "string" ? m.content : JSON.stringify(m.content)}`;
  return kept.length === expected.length && kept.every((m, j) => key(m) === key(lcMessages[expected[j]]));
}

console.log(`history   ${historyPath}: ${messages.length.toLocaleString("en-US")} messages, ${(statSync(historyPath).size / 1e6).toFixed(1)} MB`);
console.log(`machine   ${cpus().length} cores, node ${process.version}; ${ROUNDS} rounds, median (best)`);
console.log(`versions  ctxbench (node) ${ctxbench.version ? (typeof ctxbench.version === "function" ? ctxbench.version() : ctxbench.version) : "?"}, @langchain/core ${version("@langchain/core")}, langchain ${version("langchain")}, js-tiktoken ${version("js-tiktoken")}`);

const checks = [];
const rows = [];
for (const estimator of ["chars4", "o200k"]) {
  const peer = peersOf[estimator];
  const modelled = modelTrim(peer);
  checks.push([`what trimMessages keeps (${peer.name}) keeps every tool call with its result`, paired(modelled.map((i) => messages[i]))]);
  const expected = modelled[1] !== 1 ? [0, 1, ...modelled.slice(1)] : modelled;
  const window = estimate(raw.model, expected.map((i) => messages[i]), estimator);
  const times = { ctxbench: [], peer: [] };
  let first = null;
  let stopped = null;
  let out;
  for (let round = 0; round < ROUNDS; round++) {
    if (stopped === null) {
      const done = await trim(peer);
      if (done.stopped) stopped = done.ms;
      else {
        if (first === null) {
          first = done.ms;
          checks.push([`trimMessages (${peer.name}) keeps what the one-pass model of it keeps`, indicesOf(done.kept, modelled)]);
        } else times.peer.push(done.ms);
      }
    }
    const compactor = new ctxbench.Compactor("drop", { window, threshold: 1, estimator });
    const start = now();
    out = compactor.compact(messages);
    times.ctxbench.push(now() - start);
  }
  checks.push([
    `ctxbench (${estimator}) keeps what trimMessages keeps, and the first request`,
    JSON.stringify(out.messages) === JSON.stringify(expected.map((i) => messages[i])),
  ]);
  checks.push([`ctxbench (${estimator}) keeps every tool call with its result`, paired(out.messages)]);
  rows.push({ estimator, peer, first, stopped, times, kept: out.messages.length });
}

console.log();
for (const { estimator, peer, first, stopped, times, kept } of rows) {
  const peerText = stopped !== null && first === null
    ? `trimMessages stopped unfinished after ${ms(stopped)}`
    : `trimMessages ${times.peer.length ? `${ms(median(times.peer))} (${ms(Math.min(...times.peer))}) warm, ` : ""}first call ${ms(first)}` +
      (stopped !== null ? `; a later call stopped unfinished after ${ms(stopped)}` : "");
  console.log(`Compactor("drop") ${estimator.padEnd(6)} ${ms(median(times.ctxbench))} (${ms(Math.min(...times.ctxbench))})   ${peerText}   ${peer.name}; ${kept.toLocaleString("en-US")} messages kept`);
}
console.log();
console.log("checks");
for (const [name, ok] of checks) console.log(`  ${ok ? "ok    " : "FAILED"} ${name}`);
console.log("targets");
for (const { estimator, peer, first, stopped, times } of rows) {
  const mine = median(times.ctxbench);
  const what = `Node package ${estimator} (objects in and out) vs trimMessages, ${peer.name}, same process`;
  if (times.peer.length) {
    const ratio = median(times.peer) / mine;
    console.log(`  ${ratio >= 5 ? "met    " : "NOT met"} ${what}: ${ratio.toFixed(1)}x, medians (target: 5x)`);
  } else if (first !== null) {
    const ratio = first / mine;
    console.log(`  ${ratio >= 5 ? "met    " : "NOT met"} ${what}: ${ratio.toFixed(1)}x, its one (first) call (target: 5x)`);
  } else {
    const ratio = stopped / mine;
    console.log(`  ${ratio >= 5 ? "met    " : "NOT met"} ${what}: more than ${ratio.toFixed(0)}x (trimMessages stopped after ${ms(stopped)}, unfinished) (target: 5x)`);
  }
}
process.exit(checks.every(([, ok]) => ok) ? 0 : 1);
