// The adapters' conversions, without a model: each framework's messages go to the compactor in
// the wire form and come back as the framework's own objects without loss (what the compactor
// left alone is the object given; converting what comes back gives exactly what the compactor
// returned), a hook fed the whole history each call carries its compaction over, and an adapter
// given the wrong thing throws a TypeError naming it.

import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { join } from "node:path";
import { test } from "node:test";

import { REPO, ctxbench } from "./helpers.mjs";

const require = createRequire(import.meta.url);
const aiSdk = require(join(REPO, "node/adapters/ai-sdk.js"));
const agents = require(join(REPO, "node/adapters/openai-agents.js"));
const langchain = require(join(REPO, "node/adapters/langchain.js"));
const { HumanMessage, AIMessage, ToolMessage } = require("@langchain/core/messages");

const BIG = "Line item, price, stock, warehouse, note. ".repeat(60);
const TURNS = 6;

/** A compactor that keeps what it was given and returned, call by call. */
function recording(strategy, options) {
  const real = new ctxbench.Compactor(strategy, options);
  const calls = [];
  return {
    calls,
    format: options.format ?? "chat",
    async compactAsync(messages, opts) {
      const out = await real.compactAsync(messages, opts);
      calls.push({ given: structuredClone(messages), ...out });
      return out;
    },
    compact(messages, opts) {
      const out = real.compact(messages, opts);
      calls.push({ given: structuredClone(messages), ...out });
      return out;
    },
  };
}

function aiSdkHistory() {
  const messages = [];
  for (let n = 0; n < TURNS; n++) {
    messages.push({ role: "user", content: [{ type: "text", text: `Where is order ${n}?` }] });
    messages.push({
      role: "assistant",
      content: [
        { type: "reasoning", text: `Look up order ${n}.` },
        { type: "tool-call", toolCallId: `c${n}a`, toolName: "get_order", input: { order: n } },
        { type: "tool-call", toolCallId: `c${n}b`, toolName: "get_stock", input: { order: n } },
      ],
      providerOptions: { openai: { itemId: `item-${n}` } },
    });
    messages.push({
      role: "tool",
      content: [
        { type: "tool-result", toolCallId: `c${n}a`, toolName: "get_order", output: { type: "text", value: `Order ${n}: ${BIG}` } },
        { type: "tool-result", toolCallId: `c${n}b`, toolName: "get_stock", output: { type: "json", value: { order: n, rows: BIG } }, providerOptions: { x: { y: n } } },
      ],
    });
    messages.push({ role: "assistant", content: `Order ${n} shipped.` });
  }
  return messages;
}

test("AI SDK: what comes back converts to exactly what the compactor returned; untouched messages are the objects given", async () => {
  const history = aiSdkHistory();
  const compactor = recording("truncate", { window: 8000 });
  const { messages, report } = await aiSdk.compactMessages(compactor, history, { system: "You are terse." });
  assert.ok(report.truncated > 0, JSON.stringify(report));
  const [call] = compactor.calls;
  assert.deepEqual(call.given[0], { role: "system", content: "You are terse." });
  assert.deepEqual(aiSdk.toChat(messages).wire, call.messages.slice(1));
  const originals = new Set(history);
  const wire = aiSdk.toChat(history).wire;
  for (const [k, message] of messages.entries()) {
    const chat = aiSdk.toChat([message]).wire;
    if (originals.has(message)) continue;
    // A copy: a tool message with some results rewritten or dropped, ids and options kept.
    assert.equal(message.role, "tool");
    for (const part of message.content) {
      const source = history.flatMap((m) => (m.role === "tool" ? m.content : [])).find((p) => p.toolCallId === part.toolCallId);
      assert.equal(part.toolName, source.toolName);
      assert.deepEqual(part.providerOptions, source.providerOptions);
    }
    assert.ok(chat.length >= 1, `message ${k}`);
  }
  assert.ok(messages.some((m) => originals.has(m)));
  assert.ok(messages.some((m) => !originals.has(m)), "no tool message was rewritten");
  assert.equal(wire.length, 5 * TURNS); // a tool message is one chat message per result
});

test("AI SDK: prepareStep carries its compaction from step to step and says so in its reports", async () => {
  const history = aiSdkHistory();
  const compactor = recording("drop", { window: 3000 });
  const prepareStep = aiSdk.compactingPrepareStep(compactor);
  const first = await prepareStep({ messages: history.slice(0, 12), stepNumber: 0, steps: [] });
  const second = await prepareStep({ messages: history, stepNumber: 1, steps: [] });
  assert.equal(prepareStep.reports.length, 2);
  // The second call was fed what the first sent, then what arrived since.
  assert.deepEqual(compactor.calls[1].given.slice(0, compactor.calls[0].messages.length), compactor.calls[0].messages);
  assert.ok(second.messages.length < history.length && first.messages.length <= 12);
});

test("AI SDK: the wrong thing is a TypeError that names it", async () => {
  assert.throws(() => aiSdk.compactingPrepareStep(null), { name: "TypeError", message: /compactingPrepareStep\(compactor\)/ });
  assert.throws(() => aiSdk.compactingPrepareStep(new ctxbench.Compactor("drop", { window: 1000 }), { clock: 5 }), { name: "TypeError", message: /\{clock\}/ });
  const prepareStep = aiSdk.compactingPrepareStep(new ctxbench.Compactor("drop", { window: 1000 }));
  await assert.rejects(prepareStep([]), { name: "TypeError", message: /prepareStep\(step\)/ });
  assert.throws(() => aiSdk.toChat([{ content: "no role" }]), { name: "TypeError", message: /messages\[0\]/ });
});

function agentsHistory() {
  const items = [];
  for (let n = 0; n < TURNS; n++) {
    items.push({ role: "user", content: `Where is order ${n}?` });
    items.push({ type: "reasoning", id: `rs_${n}`, content: [{ type: "input_text", text: `Look up ${n}.` }], providerData: { encryptedContent: "xyz" } });
    items.push({ type: "function_call", id: `fc_${n}`, callId: `call_${n}`, name: "get_order", arguments: JSON.stringify({ order: n }), status: "completed" });
    items.push({ type: "function_call_result", callId: `call_${n}`, name: "get_order", status: "completed", output: n % 2 ? `Order ${n}: ${BIG}` : { type: "text", text: `Order ${n}: ${BIG}`, providerData: { n } } });
    items.push({ role: "assistant", type: "message", status: "completed", content: [{ type: "output_text", text: `Order ${n} shipped.` }] });
  }
  return items;
}

test("OpenAI Agents: the SDK's items come back as its items, a rewritten output keeping its shape", async () => {
  const history = agentsHistory();
  const compactor = recording("truncate", { window: 4000, format: "responses" });
  const { messages, report } = await agents.compactItems(compactor, history, { system: "Be terse." });
  assert.ok(report.truncated > 0, JSON.stringify(report));
  assert.ok(messages.some((item) => typeof item.output === "string" && !history.includes(item)), "no string output rewritten");
  assert.ok(messages.some((item) => typeof item.output === "object" && !history.includes(item)), "no object output rewritten");
  const [call] = compactor.calls;
  assert.deepEqual(messages.map(agents.toResponses), call.messages);
  const originals = new Set(history);
  for (const item of messages) {
    if (originals.has(item)) continue;
    assert.equal(item.type, "function_call_result");
    const source = history.find((h) => h.type === "function_call_result" && h.callId === item.callId);
    assert.equal(typeof item.output, typeof source.output);
    if (typeof source.output === "object") assert.deepEqual(item.output.providerData, source.output.providerData);
    assert.notEqual(JSON.stringify(item.output), JSON.stringify(source.output));
  }
});

test("OpenAI Agents: the filter returns {input, instructions}, carries its compaction over, refuses a chat compactor", async () => {
  const history = agentsHistory();
  const compactor = recording("drop", { window: 3000, format: "responses" });
  const filter = agents.inputFilter(compactor);
  const first = await filter({ modelData: { input: structuredClone(history.slice(0, 15)), instructions: "Be terse." }, agent: {}, context: undefined });
  assert.equal(first.instructions, "Be terse.");
  await filter({ modelData: { input: structuredClone(history), instructions: "Be terse." }, agent: {}, context: undefined });
  assert.deepEqual(compactor.calls[1].given.slice(0, compactor.calls[0].messages.length), compactor.calls[0].messages);
  assert.equal(filter.reports.length, 2);
  assert.throws(() => agents.inputFilter(new ctxbench.Compactor("drop", { window: 1000 })), { name: "TypeError", message: /format: "responses"/ });
  await assert.rejects(filter({ input: [] }), { name: "TypeError", message: /callModelInputFilter\(args\)/ });
});

function langchainHistory() {
  const messages = [];
  for (let n = 0; n < TURNS; n++) {
    messages.push(new HumanMessage({ content: `Where is order ${n}?`, id: `h${n}` }));
    messages.push(new AIMessage({ content: "", id: `a${n}`, tool_calls: [{ id: `call_${n}`, name: "get_order", args: { order: n } }] }));
    messages.push(new ToolMessage({ content: `Order ${n}: ${BIG}`, tool_call_id: `call_${n}`, name: "get_order", id: `t${n}`, artifact: { n } }));
    messages.push(new AIMessage({ content: `Order ${n} shipped.`, id: `b${n}` }));
  }
  return messages;
}

test("LangChain: messages come back as the agent's objects, a rewritten result a ToolMessage with its ids and artifact", async () => {
  const history = langchainHistory();
  const compactor = recording("truncate", { window: 4000 });
  const { messages, report } = await langchain.compactMessages(compactor, history, { system: "Be terse." });
  assert.ok(report.truncated > 0, JSON.stringify(report));
  const [call] = compactor.calls;
  assert.deepEqual(messages.map(langchain.toChat), call.messages.slice(1));
  const originals = new Set(history);
  let copies = 0;
  for (const message of messages) {
    if (originals.has(message)) continue;
    const source = history.find((h) => h.id === message.id);
    assert.ok(message instanceof ToolMessage);
    assert.deepEqual([message.tool_call_id, message.name, message.artifact], [source.tool_call_id, source.name, source.artifact]);
    copies += 1;
  }
  assert.ok(copies > 0, `${report.truncated} truncated, no copy`);
});

test("LangChain: the middleware is LangChain's, and the wrong thing is a TypeError that names it", async () => {
  const middleware = langchain.ctxbenchMiddleware(new ctxbench.Compactor("drop", { window: 3000 }));
  assert.equal(middleware.name, "CtxbenchMiddleware");
  assert.equal(typeof middleware.beforeModel, "function");
  const update = await middleware.beforeModel({ messages: langchainHistory() }, {});
  assert.equal(update.messages[0].getType(), "remove");
  assert.equal(middleware.reports.length, 1);
  assert.throws(() => langchain.ctxbenchMiddleware("drop"), { name: "TypeError", message: /ctxbenchMiddleware\(compactor\)/ });
  assert.throws(() => langchain.toChat({ role: "user" }), { name: "TypeError", message: /toChat\(message\)/ });
});

test("clear-tool-uses with inputs=true: a call whose input was cleared comes back cleared, in each framework's form", async () => {
  const strategy = "clear-tool-uses:inputs=true";
  const ai = aiSdkHistory().map((m) => (m.role === "assistant" && Array.isArray(m.content) ? { ...m, content: m.content.map((p) => (p.type === "tool-call" ? { ...p, input: { ...p.input, note: BIG } } : p)) } : m));
  const aiCompactor = recording(strategy, { window: 8000 });
  const fromAi = await aiSdk.compactMessages(aiCompactor, ai);
  assert.ok(fromAi.report.changed, JSON.stringify(fromAi.report));
  assert.deepEqual(aiSdk.toChat(fromAi.messages).wire, aiCompactor.calls[0].messages);
  assert.ok(fromAi.messages.some((m) => m.role === "assistant" && Array.isArray(m.content) && m.content.some((p) => p.type === "tool-call" && JSON.stringify(p.input) === "{}")));
  // Reasoning stays a part of its own when the text did not change.
  assert.ok(fromAi.messages.some((m) => m.role === "assistant" && Array.isArray(m.content) && m.content.some((p) => p.type === "reasoning")));

  const items = agentsHistory().map((item) => (item.type === "function_call" ? { ...item, arguments: JSON.stringify({ order: 1, note: BIG }) } : item));
  const agentsCompactor = recording(strategy, { window: 8000, format: "responses" });
  const fromAgents = await agents.compactItems(agentsCompactor, items);
  assert.ok(fromAgents.report.changed, JSON.stringify(fromAgents.report));
  assert.deepEqual(fromAgents.messages.map(agents.toResponses), agentsCompactor.calls[0].messages);
  assert.ok(fromAgents.messages.some((item) => item.type === "function_call" && item.arguments === "{}" && "callId" in item));

  const lc = langchainHistory().map((m) => (m.getType() === "ai" && m.tool_calls.length ? new AIMessage({ content: "", id: m.id, tool_calls: m.tool_calls.map((c) => ({ ...c, args: { ...c.args, note: BIG } })) }) : m));
  const lcCompactor = recording(strategy, { window: 8000 });
  const fromLc = await langchain.compactMessages(lcCompactor, lc);
  assert.ok(fromLc.report.changed, JSON.stringify(fromLc.report));
  assert.deepEqual(fromLc.messages.map(langchain.toChat), lcCompactor.calls[0].messages);
  assert.ok(fromLc.messages.some((m) => m instanceof AIMessage && m.tool_calls.some((c) => JSON.stringify(c.args) === "{}")));
});
