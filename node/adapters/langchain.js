"use strict";
/**
 * ctxbench's compactor in a LangChain.js v1 agent: a middleware for `createAgent({middleware})`.
 *
 *   const { Compactor, CacheClock } = require("ctxbench");
 *   const { ctxbenchMiddleware } = require("ctxbench/langchain");
 *   const agent = createAgent({model, tools, systemPrompt,
 *     middleware: [ctxbenchMiddleware(new Compactor("truncate:trigger=cold+drop", {window: 128000, target: 0.5}),
 *                                     {clock: CacheClock.forPrice("gpt-5.4-mini"), system: systemPrompt})]});
 *
 * The middleware compacts the agent's state before each model call (`beforeModel`), as ctxbench's
 * own loop does: the compaction stays in the state (a `RemoveMessage` of all messages and the
 * kept ones, as LangChain's own `summarizationMiddleware` does), so the next call extends it and
 * the provider's cache keeps its prefix. It tells the clock of each model call when the call ends
 * (`wrapModelCall`) and counts the system prompt of the last call.
 *
 * Messages go to the compactor in OpenAI chat form (role, content, tool calls with their ids and
 * JSON arguments, tool results with their call's id) and come back as the agent's own objects: a
 * message left alone is the same object, a rewritten tool result a copy of its own class with its
 * new content (ids, name, artifact and metadata kept), a summary a new `HumanMessage`.
 *
 * Sources (checked 2026-12-06 in `langchain` 1.5.14 and `@langchain/core` 1.4.0):
 * `createMiddleware({name, beforeModel, wrapModelCall})` (dist/agents/middleware.d.ts,
 * dist/agents/middleware/types.d.ts), `ModelRequest.systemMessage` (dist/agents/nodes/types.d.ts),
 * and `summarizationMiddleware` returning `{messages: [new RemoveMessage({id:
 * REMOVE_ALL_MESSAGES}), …]}` (dist/agents/middleware/summarization.js).
 */

const { randomUUID } = require("node:crypto");
const { checkArray, checkClock, checkCompactor, compactOptions } = require("./session.js");

const ROLES = { human: "user", ai: "assistant", system: "system", tool: "tool", developer: "developer" };

function peers() {
  const { createMiddleware } = require("langchain");
  const { HumanMessage, RemoveMessage, SystemMessage } = require("@langchain/core/messages");
  let removeAll = "__remove_all__";
  try {
    removeAll = require("@langchain/langgraph").REMOVE_ALL_MESSAGES ?? removeAll;
  } catch {
    // langgraph comes with langchain; its constant's value is the fallback
  }
  return { createMiddleware, HumanMessage, RemoveMessage, SystemMessage, removeAll };
}

function content(value) {
  if (typeof value === "string" || value == null) return value ?? "";
  return JSON.parse(JSON.stringify(value)).map((part) => (typeof part === "object" && part !== null ? part : { type: "text", text: String(part) }));
}

/** A LangChain message in OpenAI chat form, as the compactor reads it. */
function toChat(message) {
  if (message === null || typeof message !== "object" || typeof message.getType !== "function") {
    throw new TypeError(`toChat(message): expected a LangChain BaseMessage, got ${message === null ? "null" : typeof message}`);
  }
  const type = message.getType();
  const role = type === "generic" ? ROLES[message.role] ?? message.role : ROLES[type] ?? "user";
  const out = { role, content: content(message.content) };
  if (type === "ai" && Array.isArray(message.tool_calls) && message.tool_calls.length) {
    if (out.content === "") out.content = null;
    out.tool_calls = message.tool_calls.map((call) => ({
      id: call.id,
      type: "function",
      function: { name: call.name, arguments: JSON.stringify(call.args ?? {}) },
    }));
  }
  if (type === "tool") {
    out.tool_call_id = message.tool_call_id;
    if (message.name) out.name = message.name;
  }
  return out;
}

/** A copy of `message`, of its own class, as the compactor left it (its content, its calls' arguments). */
function rewritten(message, item, wire) {
  const fields = { ...message.lc_kwargs, id: message.id };
  if (JSON.stringify(item.content) !== JSON.stringify(wire.content)) fields.content = item.content ?? "";
  if (Array.isArray(item.tool_calls) && Array.isArray(message.tool_calls)) {
    const calls = new Map(item.tool_calls.map((c) => [c.id, c]));
    fields.tool_calls = message.tool_calls
      .filter((call) => calls.has(call.id))
      .map((call) => {
        const args = calls.get(call.id).function.arguments;
        return args === JSON.stringify(call.args ?? {}) ? call : { ...call, args: JSON.parse(args) };
      });
  }
  return new message.constructor(fields);
}

/**
 * Compacts a list of LangChain messages once: `{messages, report}`; `system` (a string or a
 * `SystemMessage`) is counted but not returned; the other options are `Compactor.compact`'s.
 */
async function compactMessages(compactor, messages, { system, ...options } = {}) {
  checkCompactor(compactor, "compactMessages(compactor)", "chat");
  checkArray(messages, "compactMessages(messages)");
  const { HumanMessage, SystemMessage } = peers();
  const wire = messages.map(toChat);
  const head = system == null ? [] : [toChat(typeof system === "string" ? new SystemMessage(system) : system)];
  const done = await compactor.compactAsync(head.concat(wire), options);
  const sources = done.report.sources;
  if (!Array.isArray(sources) || sources.length !== done.messages.length) {
    throw new Error("ctxbench: the report gives no source for each message kept (the compactor's format must be chat)");
  }
  const out = [];
  done.messages.forEach((item, k) => {
    const source = sources[k];
    if (source == null) {
      out.push(new HumanMessage({ content: item.content, id: randomUUID() }));
      return;
    }
    if (source < head.length) return;
    const i = source - head.length;
    const untouched = item === wire[i] || JSON.stringify(item) === JSON.stringify(wire[i]);
    out.push(untouched ? messages[i] : rewritten(messages[i], item, wire[i]));
  });
  return { messages: out, report: done.report };
}

/**
 * A middleware compacting the agent's messages before each model call, in its state.
 * `compactor`: a ctxbench Compactor (format chat; one per agent run or thread); `clock`: a
 * CacheClock told of each model call's end, for `trigger=cold`; `summarize`: what writes
 * summaries for the summarize stage; `system`: the agent's system prompt (a string or a
 * `SystemMessage`), counted before the first call shows it. `middleware.reports` lists every
 * compaction's report.
 */
function ctxbenchMiddleware(compactor, { clock, summarize, system } = {}) {
  checkCompactor(compactor, "ctxbenchMiddleware(compactor)", "chat");
  checkClock(clock, "ctxbenchMiddleware({clock})");
  const { createMiddleware, RemoveMessage, removeAll } = peers();
  const reports = [];
  let shown = system;
  const middleware = createMiddleware({
    name: "CtxbenchMiddleware",
    beforeModel: async (state) => {
      const done = await compactMessages(compactor, state.messages, compactOptions({ clock, summarize, system: shown }));
      reports.push(done.report);
      if (!done.report.changed) return undefined;
      for (const message of done.messages) if (message.id == null) message.id = randomUUID();
      return { messages: [new RemoveMessage({ id: removeAll }), ...done.messages] };
    },
    wrapModelCall: async (request, handler) => {
      const response = await handler(request);
      shown = request.systemMessage ?? request.systemPrompt ?? shown;
      if (clock != null) clock.called();
      return response;
    },
  });
  middleware.reports = reports;
  return middleware;
}

module.exports = { ctxbenchMiddleware, compactMessages, toChat };
