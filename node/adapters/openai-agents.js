"use strict";
/**
 * ctxbench's compactor in an OpenAI Agents SDK for JavaScript run: a `callModelInputFilter`.
 *
 *   const { Compactor, CacheClock } = require("ctxbench");
 *   const { inputFilter } = require("ctxbench/openai-agents");
 *   const callModelInputFilter = inputFilter(new Compactor("truncate:trigger=cold+drop", {window: 128000, target: 0.5, format: "responses"}),
 *                                            {clock: CacheClock.forPrice("gpt-5.4-mini")});
 *   await run(agent, input, {callModelInputFilter});
 *
 * The SDK hands the filter the whole input before every model call (`{modelData: {input,
 * instructions}, agent, context}`, the items deep copies) and sends the `{input, instructions}`
 * it returns; it keeps nothing of it. The filter carries its compaction from call to call
 * (`Session`), so what it sends is what ctxbench's own loop would: a compaction made once, its
 * prefix kept for the provider's cache.
 *
 * The SDK's items (`AgentInputItem`) are not quite the Responses API's: a call names its id
 * `callId`, a result is a `function_call_result` whose output may be an object, a reasoning item
 * holds its text as `content`. They go to the compactor (format `responses`) in the API's form, as
 * the SDK's Responses model sends them (`function_call` with `call_id`, `function_call_output`
 * with its output as text, `reasoning` with a `summary`); messages and every item the adapter does
 * not know go as they are (an unknown item is part of the assistant run around it, never parted
 * from it). They come back as the SDK's own items: an item left alone is the item given, a
 * rewritten result a copy with its new output (a string stays a string, `{type: "text"}` keeps its
 * other fields), a summary a new user message.
 *
 * The SDK has no hook at a model call's end (its run hooks are agent and tool events), so the
 * clock is told of each call as the filter returns, just before the call.
 *
 * Sources (checked 2026-12-06 in `@openai/agents-core` 0.20.0): `CallModelInputFilter`,
 * `CallModelInputFilterArgs` and `ModelInputData` (dist/runner/conversation.d.ts),
 * `applyCallModelInputFilter` (dist/runner/conversation.js: the items structuredClone'd unless
 * the filter sets `preserveInputIdentity`), `RunHookEvents` (dist/lifecycle.d.ts); the items as
 * sent, `@openai/agents-openai` 0.20.0's dist/openaiResponsesConverter.js.
 */

const { Session, checkClock, checkCompactor, compactOptions } = require("./session.js");

function outputText(output) {
  if (typeof output === "string") return output;
  if (output && output.type === "text") return output.text;
  if (Array.isArray(output)) return output.map((part) => (typeof part.text === "string" ? part.text : `[${part.type}]`)).join("");
  return JSON.stringify(output ?? null);
}

/** An SDK item in the Responses API's form (the item itself when it already is). */
function toResponses(item) {
  if (item === null || typeof item !== "object") {
    throw new TypeError(`inputFilter: an input item is not an object: ${JSON.stringify(item)}`);
  }
  switch (item.type) {
    case "function_call":
      return { type: "function_call", ...(item.id ? { id: item.id } : {}), call_id: item.callId, name: item.name, arguments: item.arguments };
    case "function_call_result":
      return { type: "function_call_output", ...(item.id ? { id: item.id } : {}), call_id: item.callId, output: outputText(item.output) };
    case "reasoning":
      return {
        type: "reasoning",
        ...(item.id ? { id: item.id } : {}),
        summary: (item.content || []).map((part) => ({ type: "summary_text", text: part.text })),
      };
    default:
      return item;
  }
}

/** The item a compacted one stands for. */
function back(input, wire, kept) {
  const index = new Map(wire.map((item, i) => [item, i]));
  const byJson = new Map();
  wire.forEach((item, i) => {
    const key = JSON.stringify(item);
    if (!byJson.has(key)) byJson.set(key, []);
    byJson.get(key).push(i);
  });
  const outputs = new Map();
  const calls = new Map();
  wire.forEach((item, i) => {
    if (item.type === "function_call_output") outputs.set(item.call_id, i);
    if (item.type === "function_call") calls.set(item.call_id, i);
  });
  let after = 0; // items come back in order
  return kept.map((item) => {
    let i = index.get(item);
    if (i === undefined) i = (byJson.get(JSON.stringify(item)) || []).find((j) => j >= after);
    if (i !== undefined) {
      after = i + 1;
      return input[i];
    }
    if (item.type === "function_call_output" && outputs.has(item.call_id)) {
      const j = outputs.get(item.call_id);
      after = j + 1;
      const original = input[j];
      const text = outputText(item.output);
      if (typeof original.output === "string") return { ...original, output: text };
      if (original.output && original.output.type === "text") return { ...original, output: { ...original.output, text } };
      return { ...original, output: { type: "text", text } };
    }
    if (item.type === "function_call" && calls.has(item.call_id)) {
      // A call whose arguments the compaction cleared (clear-tool-uses inputs=true).
      const j = calls.get(item.call_id);
      after = j + 1;
      return { ...input[j], arguments: item.arguments };
    }
    return item; // a summary: a user message, as the SDK takes it
  });
}

/** Compacts the SDK's input items once: `{messages, report}`; `system` is the instructions. */
async function compactItems(compactor, input, options = {}) {
  checkCompactor(compactor, "compactItems(compactor)", "responses");
  if (!Array.isArray(input)) throw new TypeError(`compactItems(input): expected the SDK's input items (an array)`);
  const wire = input.map(toResponses);
  const done = await compactor.compactAsync(wire, options);
  return { messages: back(input, wire, done.messages), report: done.report };
}

/**
 * A `callModelInputFilter` compacting with `compactor` (its format must be "responses"). `clock`:
 * a CacheClock, told of each call as it is made; `summarize`: what writes summaries. The
 * function's `reports` lists every call's report.
 */
function inputFilter(compactor, { clock, summarize } = {}) {
  checkCompactor(compactor, "inputFilter(compactor)", "responses");
  checkClock(clock, "inputFilter({clock})");
  const session = new Session(compactor, (c, items, options) => compactItems(c, items, options));
  async function callModelInputFilter(args) {
    const data = args && args.modelData;
    if (!data || !Array.isArray(data.input)) {
      throw new TypeError("callModelInputFilter(args): expected the SDK's {modelData: {input, instructions}, agent, context}");
    }
    const done = await session.compact(data.input, compactOptions({ clock, summarize, system: data.instructions }));
    if (clock != null) clock.called();
    return { input: done.messages, instructions: data.instructions };
  }
  callModelInputFilter.session = session;
  callModelInputFilter.reports = session.reports;
  return callModelInputFilter;
}

module.exports = { inputFilter, compactItems, toResponses };
