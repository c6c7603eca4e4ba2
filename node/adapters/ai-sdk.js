"use strict";
/**
 * ctxbench's compactor in a Vercel AI SDK agent (`generateText`, `streamText`, `ToolLoopAgent`):
 * a `prepareStep` that compacts each step's messages.
 *
 *   const { Compactor, CacheClock } = require("ctxbench");
 *   const { compactingPrepareStep } = require("ctxbench/ai-sdk");
 *   const prepareStep = compactingPrepareStep(new Compactor("truncate:trigger=cold+drop", {window: 128000, target: 0.5}),
 *                                             {clock: CacheClock.forPrice("gpt-5.4-mini"), system});
 *   await generateText({model, system, messages, tools, stopWhen: stepCountIs(20), prepareStep});
 *
 * The SDK hands `prepareStep` the whole history of the call before every step (the call's
 * messages and the steps' responses) and sends the `messages` it returns for that step only; it
 * keeps nothing of them. So the callback carries its compaction from step to step, and from one
 * call to the next while the history only grows (`Session`): what it sends is what ctxbench's own
 * loop would, a compaction made once and its prefix kept for the provider's cache.
 *
 * Messages go to the compactor in OpenAI chat form: a system or user message is one message
 * (text parts as text, other parts by their type); an assistant message is one message (its text
 * and reasoning as content, its tool calls with their ids and JSON input); a tool message is one
 * tool result per `tool-result` part (its output as text). They come back as the SDK's own
 * objects: a message left alone is the same object, a tool message some of whose results were
 * dropped or rewritten a copy with those parts (a rewritten result's output becomes
 * `{type: "text", value}`; ids, provider options and approval parts kept), a summary a new user
 * message.
 *
 * Sources (checked 2026-12-06 in `ai` 6.0.333's dist/index.d.ts and dist/index.js):
 * `PrepareStepFunction` ({steps, stepNumber, model, messages, experimental_context}) and
 * `PrepareStepResult` ({messages, system, …}); `generateText` builds each step's messages as the
 * initial messages plus the responses so far and uses the returned `messages` for that step.
 * `ModelMessage` and its parts: `@ai-sdk/provider-utils` 4's dist/index.d.ts.
 */

const { Session, checkArray, checkClock, checkCompactor, compactOptions } = require("./session.js");

function text(value) {
  return typeof value === "string" ? value : JSON.stringify(value ?? null);
}

/** A tool result's output as the text the model reads. */
function outputText(output) {
  if (output == null) return "";
  switch (output.type) {
    case "text":
    case "error-text":
      return output.value;
    case "json":
    case "error-json":
      return text(output.value);
    case "execution-denied":
      return output.reason ?? "execution denied";
    case "content":
      return output.value.map((part) => (part.type === "text" ? part.text : `[${part.type}]`)).join("");
    default:
      return text(output);
  }
}

function userContent(content) {
  if (typeof content === "string") return content;
  return content.map((part) => (part.type === "text" ? { type: "text", text: part.text } : { type: part.type }));
}

/**
 * The SDK's messages in OpenAI chat form, and where each came from: `[message index, part
 * index]`, the part index -1 for a whole message.
 */
function toChat(messages) {
  checkArray(messages, "toChat(messages)");
  const wire = [];
  const where = [];
  messages.forEach((message, m) => {
    if (message === null || typeof message !== "object" || typeof message.role !== "string") {
      throw new TypeError(`toChat(messages): messages[${m}] is not an AI SDK ModelMessage (no role)`);
    }
    if (message.role === "tool") {
      message.content.forEach((part, p) => {
        if (part.type !== "tool-result") return;
        wire.push({ role: "tool", tool_call_id: part.toolCallId, name: part.toolName, content: outputText(part.output) });
        where.push([m, p]);
      });
      return;
    }
    if (message.role === "assistant") {
      const parts = typeof message.content === "string" ? [{ type: "text", text: message.content }] : message.content;
      const said = parts.filter((p) => p.type === "text" || p.type === "reasoning").map((p) => p.text).join("");
      const calls = parts.filter((p) => p.type === "tool-call" && !p.providerExecuted);
      const item = { role: "assistant", content: said || (calls.length ? null : "") };
      if (calls.length) {
        item.tool_calls = calls.map((p) => ({
          id: p.toolCallId,
          type: "function",
          function: { name: p.toolName, arguments: text(p.input) },
        }));
      }
      wire.push(item);
      where.push([m, -1]);
      return;
    }
    wire.push({ role: message.role, content: userContent(message.content) });
    where.push([m, -1]);
  });
  return { wire, where };
}

/** The compacted chat messages back as the SDK's messages. */
function back(messages, wire, where, kept, report) {
  const sources = report.sources;
  if (!Array.isArray(sources) || sources.length !== kept.length) {
    throw new Error("ctxbench: the report gives no source for each message kept (the compactor's format must be chat)");
  }
  const out = [];
  let pending = null; // [message index, [[part index, part]]]
  const flush = () => {
    if (pending === null) return;
    const [m, chosen] = pending;
    const original = messages[m];
    const ours = new Set(chosen.map(([p]) => p));
    // Parts the compactor never saw (tool approval responses) stay with their message.
    original.content.forEach((part, p) => {
      if (part.type !== "tool-result" && !ours.has(p)) chosen.push([p, part]);
    });
    chosen.sort((a, b) => a[0] - b[0]);
    const parts = chosen.map(([, part]) => part);
    const unchanged = parts.length === original.content.length && parts.every((part, i) => part === original.content[i]);
    out.push(unchanged ? original : { ...original, content: parts });
    pending = null;
  };
  kept.forEach((item, k) => {
    const source = sources[k];
    if (source == null) {
      flush();
      out.push({ role: "user", content: typeof item.content === "string" ? item.content : text(item.content) });
      return;
    }
    const [m, p] = where[source];
    const original = messages[m];
    const untouched = item === wire[source] || JSON.stringify(item) === JSON.stringify(wire[source]);
    if (p === -1) {
      flush();
      out.push(untouched ? original : rewritten(original, item));
      return;
    }
    let part = original.content[p];
    if (!untouched) part = { ...part, output: { type: "text", value: item.content } };
    if (pending !== null && pending[0] === m) pending[1].push([p, part]);
    else {
      flush();
      pending = [m, [[p, part]]];
    }
  });
  flush();
  return out;
}

/** A whole message the compactor rewrote: its new text, its calls as the compactor left them. */
function rewritten(original, item) {
  if (typeof original.content === "string" || original.role === "system") {
    return { ...original, content: typeof item.content === "string" ? item.content : text(item.content) };
  }
  if (original.role === "assistant") {
    const calls = new Map((item.tool_calls || []).map((c) => [c.id, c]));
    const said = original.content.filter((p) => p.type === "text" || p.type === "reasoning").map((p) => p.text).join("");
    const sameText = (item.content ?? "") === said;
    const content = [];
    for (const part of original.content) {
      if (part.type === "tool-call" && !part.providerExecuted) {
        const call = calls.get(part.toolCallId);
        if (call === undefined) continue;
        // A call whose input the compaction cleared (clear-tool-uses inputs=true) keeps that.
        content.push(call.function.arguments === text(part.input) ? part : { ...part, input: JSON.parse(call.function.arguments) });
      } else if (part.type === "text" || part.type === "reasoning") {
        if (sameText) content.push(part);
      } else content.push(part);
    }
    if (!sameText && item.content) content.unshift({ type: "text", text: item.content });
    return { ...original, content };
  }
  const content = typeof item.content === "string" ? [{ type: "text", text: item.content }] : original.content;
  return { ...original, content };
}

/**
 * Compacts AI SDK messages once: `{messages, report}`; `system` (a string or a system message) is
 * counted but not returned; the other options are `Compactor.compact`'s.
 */
async function compactMessages(compactor, messages, { system, ...options } = {}) {
  checkCompactor(compactor, "compactMessages(compactor)", "chat");
  const { wire, where } = toChat(messages);
  // The system prompt goes first, as the SDK sends it, and is not returned.
  const head = system == null ? [] : [{ role: "system", content: typeof system === "string" ? system : system.content }];
  const done = await compactor.compactAsync(head.concat(wire), options);
  const sources = (done.report.sources || []).map((s) => (s == null ? s : s - head.length));
  const kept = done.messages.filter((_, k) => sources[k] == null || sources[k] >= 0);
  const report = { ...done.report, sources: sources.filter((s) => s == null || s >= 0) };
  return { messages: back(messages, wire, where, kept, report), report: done.report };
}

/**
 * A `prepareStep` compacting each step's messages with `compactor` (format chat). `clock`: a
 * CacheClock, told of each step's model call as the step starts (the SDK has no hook between a
 * call's end and its tools); `summarize`: what writes summaries for the summarize stage;
 * `system`: the call's system prompt, counted (the SDK does not show it to `prepareStep`);
 * `tools`: the tools' chat definitions, counted. The function's `reports` lists every step's
 * report.
 */
function compactingPrepareStep(compactor, { clock, summarize, system, tools } = {}) {
  checkCompactor(compactor, "compactingPrepareStep(compactor)", "chat");
  checkClock(clock, "compactingPrepareStep({clock})");
  const options = compactOptions({ clock, summarize, system, tools });
  const session = new Session(compactor, (c, messages, opts) => compactMessages(c, messages, opts));
  async function prepareStep(step) {
    if (step === null || typeof step !== "object" || !Array.isArray(step.messages)) {
      throw new TypeError("prepareStep(step): expected the AI SDK's step options ({messages, stepNumber, …})");
    }
    const done = await session.compact(step.messages, options);
    if (clock != null) clock.called();
    return { messages: done.messages };
  }
  prepareStep.session = session;
  prepareStep.reports = session.reports;
  return prepareStep;
}

module.exports = { compactingPrepareStep, compactMessages, toChat };
