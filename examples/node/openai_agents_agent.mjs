// An OpenAI Agents SDK for JavaScript agent compacting with ctxbench's input filter, measured by
// `ctxbench serve`.
//
//   cargo run --release -- serve scenarios/bike-shop-return.json --port 8080 &
//   bash node/integration/run.sh --install-only        # the package built, the frameworks from npm
//   node examples/node/openai_agents_agent.mjs scenarios/bike-shop-return.json --base-url http://127.0.0.1:8080/v1
//   curl -X POST http://127.0.0.1:8080/ctxbench/shutdown     # serve writes its results
//
// The agent is the SDK's own: an `Agent` with the scenario's system prompt as its instructions, a
// function `tool` per scenario tool (its JSON schema, not strict; answered by serve from the
// fixtures), on `OpenAIResponsesModel` (the Responses API) with an `openai` client pointed at
// serve, run with `run` once per user request on the last run's `history`, with
// `callModelInputFilter` compacting each model call's input. It prints each compaction it made,
// and serve's results say what it cost.

import { Agent, OpenAIResponsesModel, run, setTracingDisabled, tool } from "@openai/agents";
import OpenAI from "openai";

import * as served from "./served.mjs";

const { inputFilter } = served.adapter("openai-agents");

/** Plays the scenario; `make` makes the compactor (the tests record it). Returns the summary. */
export async function main(argv, make = served.compactor) {
  const args = served.parse(argv);
  const played = served.scenario(args.scenario);
  const user = args.user ?? "examples/node/openai_agents_agent.mjs";
  setTracingDisabled(true);
  const client = new OpenAI({ baseURL: args.baseUrl, apiKey: "unused", maxRetries: 0 });
  const agent = new Agent({
    name: "support",
    instructions: played.system,
    model: new OpenAIResponsesModel(client, "scripted"),
    modelSettings: { providerData: { user } },
    tools: served.tools(played).map(([name, description, schema]) =>
      tool({
        name,
        description,
        parameters: schema,
        strict: false,
        execute: (input) => served.askTool(args.baseUrl, name, JSON.stringify(input), user),
      }),
    ),
  });
  const { compactor, clock } = make(args, played, "responses");
  const callModelInputFilter = inputFilter(compactor, { clock });
  let items = [];
  for (const text of served.userRequests(played)) {
    const result = await run(agent, [...items, { role: "user", content: text }], { callModelInputFilter, maxTurns: 50 });
    items = result.history;
    process.stderr.write(`user: ${text}\nassistant: ${result.finalOutput}\n`);
  }
  return served.report("openai-agents", callModelInputFilter.reports);
}

served.runIfMain(import.meta.url, main);
