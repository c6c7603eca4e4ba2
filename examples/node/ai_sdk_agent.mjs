// A Vercel AI SDK agent (`generateText` with tools and `stopWhen`) compacting with ctxbench's
// `prepareStep`, measured by `ctxbench serve`.
//
//   cargo run --release -- serve scenarios/bike-shop-return.json --port 8080 &
//   bash node/integration/run.sh --install-only        # the package built, the frameworks from npm
//   node examples/node/ai_sdk_agent.mjs scenarios/bike-shop-return.json --base-url http://127.0.0.1:8080/v1
//   curl -X POST http://127.0.0.1:8080/ctxbench/shutdown     # serve writes its results
//
// The agent is the SDK's own: `generateText` with `@ai-sdk/openai`'s chat model pointed at serve,
// a tool per scenario tool (its JSON schema as the scenario gives it, answered by serve from the
// fixtures), the scenario's system prompt, and `compactingPrepareStep` compacting each step's
// messages. Each user request is one `generateText` on the conversation's messages (the last
// call's `response.messages` appended). It prints each compaction it made, and serve's results
// say what it cost.

import { createOpenAI } from "@ai-sdk/openai";
import { generateText, jsonSchema, stepCountIs, tool } from "ai";

import * as served from "./served.mjs";

const { compactingPrepareStep } = served.adapter("ai-sdk");

/** Plays the scenario; `make` makes the compactor (the tests record it). Returns the summary. */
export async function main(argv, make = served.compactor) {
  const args = served.parse(argv);
  const played = served.scenario(args.scenario);
  const user = args.user ?? "examples/node/ai_sdk_agent.mjs";
  const tools = Object.fromEntries(
    served.tools(played).map(([name, description, schema]) => [
      name,
      tool({
        description,
        inputSchema: jsonSchema(schema),
        execute: (input) => served.askTool(args.baseUrl, name, JSON.stringify(input), user),
      }),
    ]),
  );
  const provider = createOpenAI({ baseURL: args.baseUrl, apiKey: "unused" });
  const { compactor, clock } = make(args, played, "chat");
  const prepareStep = compactingPrepareStep(compactor, { clock, system: played.system });
  const messages = [];
  for (const text of served.userRequests(played)) {
    messages.push({ role: "user", content: text });
    const result = await generateText({
      model: provider.chat("scripted"),
      system: played.system,
      messages,
      tools,
      prepareStep,
      stopWhen: stepCountIs(50),
      maxRetries: 0,
      providerOptions: { openai: { user } },
    });
    messages.push(...result.response.messages);
    process.stderr.write(`user: ${text}\nassistant: ${result.text}\n`);
  }
  return served.report("ai-sdk", prepareStep.reports);
}

served.runIfMain(import.meta.url, main);
