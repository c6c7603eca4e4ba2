// A LangChain.js v1 agent (`createAgent`) compacting with ctxbench's middleware, measured by
// `ctxbench serve`.
//
//   cargo run --release -- serve scenarios/bike-shop-return.json --port 8080 &
//   bash node/integration/run.sh --install-only        # the package built, the frameworks from npm
//   NODE_PATH=node/integration/node_modules node examples/node/langchain_agent.mjs scenarios/bike-shop-return.json --base-url http://127.0.0.1:8080/v1
//   curl -X POST http://127.0.0.1:8080/ctxbench/shutdown     # serve writes its results
//
// The agent is LangChain's own: `ChatOpenAI` pointed at serve, a tool per scenario tool (its JSON
// schema as the scenario gives it, answered by serve from the fixtures), the scenario's system
// prompt, and `ctxbenchMiddleware` compacting the agent's state before each model call. Each user
// request is one `invoke` on the thread's messages. It prints each compaction it made, and serve's
// results say what it cost. (NODE_PATH lets the adapter, in node/adapters/, find `langchain` where
// run.sh installed it; in your project both sit in one node_modules.)

import { HumanMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { ChatOpenAI } from "@langchain/openai";
import { createAgent } from "langchain";

import * as served from "./served.mjs";

const { ctxbenchMiddleware } = served.adapter("langchain");

/** Plays the scenario; `make` makes the compactor (the tests record it). Returns the summary. */
export async function main(argv, make = served.compactor) {
  const args = served.parse(argv);
  const played = served.scenario(args.scenario);
  const user = args.user ?? "examples/node/langchain_agent.mjs";
  const tools = served.tools(played).map(([name, description, schema]) =>
    tool((input) => served.askTool(args.baseUrl, name, JSON.stringify(input), user), { name, description, schema }),
  );
  const model = new ChatOpenAI({
    model: "scripted",
    apiKey: "unused",
    maxRetries: 0,
    configuration: { baseURL: args.baseUrl },
    modelKwargs: { user },
  });
  const { compactor, clock } = make(args, played, "chat");
  const middleware = ctxbenchMiddleware(compactor, { clock, system: played.system });
  const agent = createAgent({ model, tools, systemPrompt: played.system, middleware: [middleware] });
  let messages = [];
  for (const text of served.userRequests(played)) {
    const state = await agent.invoke({ messages: [...messages, new HumanMessage(text)] }, { recursionLimit: 100 });
    messages = state.messages;
    process.stderr.write(`user: ${text}\nassistant: ${messages[messages.length - 1].text}\n`);
  }
  return served.report("langchain", middleware.reports);
}

served.runIfMain(import.meta.url, main);
