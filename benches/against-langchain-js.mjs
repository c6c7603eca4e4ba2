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
// what LangChain kept plus the first request, which `drop` always keeps and "last" does not; the
// script checks that each kept exactly that, with every tool call answered.

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

const [historyPath, bin] = process.argv.slice(2);
if (!historyPath || !bin) {
  console.error("usage: node benches/against-langchain-js.mjs HISTORY CTXBENCH (see benches/against-langchain-js.sh)");
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
const position = new Map(lcMessages.map((m, i) => [m, i]));
const budget = Math.floor(countTokensApproximately(lcMessages) / 10);
const enc = getEncoding("o200k_base");

const peersOf = {
  chars4: { name: "LangChain.js approximate (countTokensApproximately)", make: () => countTokensApproximately },
  o200k: {
    name: "LangChain.js with js-tiktoken o200k_base",
    make() {
      const memo = new Map();
      const one = (m) => {
        let n = memo.get(m);
        if (n === undefined) {
          n = typeof m.content === "string" ? enc.encode(m.content).length : 0;
          for (const call of m.tool_calls || []) n += enc.encode(call.name).length + enc.encode(JSON.stringify(call.args)).length;
          memo.set(m, (n += 3));
        }
        return n;
      };
      return (list) => list.reduce((total, m) => total + one(m), 0);
    },
  },
};

const trim = (peer) => trimMessages(lcMessages, { maxTokens: budget, tokenCounter: peer.make(), strategy: "last", includeSystem: true, startOn: "human" });

console.log(`history   ${historyPath}: ${messages.length.toLocaleString("en-US")} messages, ${(statSync(historyPath).size / 1e6).toFixed(1)} MB`);
console.log(`machine   ${cpus().length} cores, node ${process.version}; ${ROUNDS} rounds, median (best)`);
console.log(`versions  ctxbench (node) ${ctxbench.version ? (typeof ctxbench.version === "function" ? ctxbench.version() : ctxbench.version) : "?"}, @langchain/core ${version("@langchain/core")}, langchain ${version("langchain")}, js-tiktoken ${version("js-tiktoken")}`);

const checks = [];
const rows = [];
for (const estimator of ["chars4", "o200k"]) {
  const peer = peersOf[estimator];
  let start = now();
  const keptLc = (await trim(peer)).map((m) => position.get(m));
  const first = now() - start;
  checks.push([`trimMessages (${peer.name}) keeps every tool call with its result`, paired(keptLc.map((i) => messages[i]))]);
  const expected = keptLc[1] !== 1 ? [0, 1, ...keptLc.slice(1)] : keptLc;
  const window = estimate(raw.model, expected.map((i) => messages[i]), estimator);
  const times = { ctxbench: [], peer: [] };
  let out;
  for (let round = 0; round < ROUNDS; round++) {
    start = now();
    await trim(peer);
    times.peer.push(now() - start);
    const compactor = new ctxbench.Compactor("drop", { window, threshold: 1, estimator });
    start = now();
    out = compactor.compact(messages);
    times.ctxbench.push(now() - start);
  }
  checks.push([
    `ctxbench (${estimator}) keeps what trimMessages keeps, and the first request`,
    JSON.stringify(out.messages) === JSON.stringify(expected.map((i) => messages[i])),
  ]);
  checks.push([`ctxbench (${estimator}) keeps every tool call with its result`, paired(out.messages)]);
  rows.push({ estimator, peer, first, times, kept: out.messages.length });
}

console.log();
for (const { estimator, peer, first, times, kept } of rows) {
  console.log(`Compactor("drop") ${estimator.padEnd(6)} ${ms(median(times.ctxbench))} (${ms(Math.min(...times.ctxbench))})   ` +
    `trimMessages ${ms(median(times.peer))} (${ms(Math.min(...times.peer))}), first call ${ms(first)}   ${peer.name}; ${kept.toLocaleString("en-US")} messages kept`);
}
console.log();
console.log("checks");
for (const [name, ok] of checks) console.log(`  ${ok ? "ok    " : "FAILED"} ${name}`);
console.log("targets");
for (const { estimator, peer, times } of rows) {
  const ratio = median(times.peer) / median(times.ctxbench);
  console.log(`  ${ratio >= 5 ? "met    " : "NOT met"} Node package ${estimator} (objects in and out) vs trimMessages, ${peer.name}, same process: ${ratio.toFixed(1)}x (target: 5x)`);
}
process.exit(checks.every(([, ok]) => ok) ? 0 : 1);
