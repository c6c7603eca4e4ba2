// What the three Node framework examples share: the scenario `ctxbench serve` plays (its system
// prompt, its user requests, its tools), each tool answered by serve from the scenario's fixtures
// (`POST /ctxbench/tool`, as in a run in process), the compactor the flags ask for, and how each
// compaction is reported. In your agent, the tools are yours and the model is your provider's.
// (The Python examples' examples/python/served.py, in JavaScript.)

import { readFileSync, realpathSync } from "node:fs";
import { createRequire } from "node:module";
import { parseArgs } from "node:util";
import { pathToFileURL } from "node:url";

const require = createRequire(import.meta.url);

/** The package (in your project: `require("ctxbench")`), from this repository's node/ folder. */
export const ctxbench = require(process.env.CTXBENCH_NODE_PACKAGE || "../../node");

/** An adapter of the package (in your project: `require("ctxbench/ai-sdk")` and the like). */
export function adapter(name) {
  return require(`../../node/adapters/${name}.js`);
}

const HELP = `flags: SCENARIO [--base-url URL] [--user NAME] [--strategy S] [--window N] [--threshold F] [--target F] [--price MODEL]`;

/** The flags every example takes (`argv` without node and the script). */
export function parse(argv) {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      "base-url": { type: "string", default: "http://127.0.0.1:8080/v1" },
      user: { type: "string" },
      strategy: { type: "string", default: "truncate:trigger=cold+drop" },
      window: { type: "string" },
      threshold: { type: "string", default: "0.8" },
      target: { type: "string" },
      price: { type: "string", default: "gpt-5.4-mini" },
    },
  });
  if (positionals.length !== 1) throw new TypeError(`expected one scenario file, got ${positionals.length}; ${HELP}`);
  const number = (flag) => {
    if (values[flag] === undefined) return undefined;
    const n = Number(values[flag]);
    if (!Number.isFinite(n)) throw new TypeError(`--${flag}: expected a number, got '${values[flag]}'`);
    return n;
  };
  return {
    scenario: positionals[0],
    baseUrl: values["base-url"],
    user: values.user,
    strategy: values.strategy,
    window: number("window"),
    threshold: number("threshold"),
    target: number("target"),
    price: values.price,
  };
}

/** The scenario file, as JSON. */
export function scenario(path) {
  return JSON.parse(readFileSync(path, "utf8"));
}

/** The user's words, request by request. */
export function userRequests(played) {
  return played.requests.map((r) => (typeof r.user === "string" ? r.user : r.user.content));
}

/** The scenario's tools: [name, description, JSON schema of the arguments], in name order. */
export function tools(played) {
  return Object.keys(played.tools || {})
    .sort()
    .map((name) => {
      const spec = played.tools[name];
      return [name, spec.description || "", spec.parameters || { type: "object", properties: {} }];
    });
}

/** What the scenario's tool `name` answers to these arguments (JSON text) in this run, from serve. */
export async function askTool(baseUrl, name, argumentsJson, user) {
  const root = baseUrl.replace(/\/+$/, "").replace(/\/v1$/, "");
  const reply = await fetch(`${root}/ctxbench/tool`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ name, arguments: argumentsJson, user }),
  });
  if (!reply.ok) throw new Error(`serve's /ctxbench/tool answered ${reply.status}: ${await reply.text()}`);
  return (await reply.json()).output;
}

/** The compactor and the cache clock the flags ask for. */
export function compactor(args, played, format = "chat") {
  const options = { window: args.window ?? played.window, threshold: args.threshold, format };
  if (args.target !== undefined) options.target = args.target;
  return { compactor: new ctxbench.Compactor(args.strategy, options), clock: ctxbench.CacheClock.forPrice(args.price) };
}

/** Says each compaction made (stderr), and a last line of JSON with the totals (stdout, what the tests read). */
export function report(name, reports) {
  const n = (x) => x.toLocaleString("en-US");
  reports.forEach((r, i) => {
    if (r.changed) {
      process.stderr.write(
        `${name}: call ${i + 1}: ${n(r.tokensBefore)} -> ${n(r.tokensAfter)} tokens (limit ${n(r.limit)}): ` +
          `${r.truncated} truncated, ${r.masked} masked, ${r.dropped} dropped\n`,
      );
    }
  });
  const sum = (key) => reports.reduce((total, r) => total + r[key], 0);
  const summary = {
    example: name,
    calls: reports.length,
    compactions: reports.filter((r) => r.changed).length,
    truncated: sum("truncated"),
    masked: sum("masked"),
    dropped: sum("dropped"),
    strategy: reports.length ? reports[0].strategy : null,
  };
  process.stdout.write(JSON.stringify(summary) + "\n");
  return summary;
}

/** Runs `main` when the module is the script node was given. */
export function runIfMain(url, main) {
  if (process.argv[1] && url === pathToFileURL(realpathSync(process.argv[1])).href) {
    main(process.argv.slice(2)).catch((error) => {
      process.stderr.write(`error: ${error.message}\n`);
      process.exit(1);
    });
  }
}
