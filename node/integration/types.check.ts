// The adapters' declarations against the frameworks' own: each hook is what its framework's
// option takes (`tsc --noEmit`, run by types.test.mjs). Not run, only type-checked.

import type { PrepareStepFunction } from "ai";
import type { CallModelInputFilter } from "@openai/agents";
import { createAgent } from "langchain";

import { CacheClock, Compactor } from "../index";
import { compactingPrepareStep } from "../adapters/ai-sdk";
import { inputFilter } from "../adapters/openai-agents";
import { ctxbenchMiddleware } from "../adapters/langchain";

const clock = CacheClock.forPrice("gpt-5.4-mini");

export const prepareStep: PrepareStepFunction = compactingPrepareStep(new Compactor("drop", { window: 128000 }), { clock, system: "Be brief." });

export const filter: CallModelInputFilter = inputFilter(new Compactor("drop", { window: 128000, format: "responses" }), { clock });

export const agent = createAgent({
  model: "openai:gpt-5.4-mini",
  tools: [],
  middleware: [ctxbenchMiddleware(new Compactor("drop", { window: 128000 }), { clock })],
});
