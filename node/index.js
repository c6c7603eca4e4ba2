'use strict'
// ctxbench: context compaction for LLM agent loops, as ctxbench measures it.
//
// Before every model call, a `Compactor` shrinks the oldest part of the history so the request
// stays under a limit, without ever separating a tool call from its result: the same Rust
// library, strategy strings, defaults and errors as the `ctxbench` command (and the Python
// package), for arrays of message objects in OpenAI chat, Anthropic Messages or OpenAI Responses
// form.
//
//     const { Compactor } = require('ctxbench')
//     const compactor = new Compactor('truncate:trigger=cold+drop', { window: 128000, target: 0.5 })
//     const { messages, report } = compactor.compact(history)   // before each model call
//
// `CacheClock` tells `trigger=cold` stages whether the provider's prompt cache has expired.
// The guide is docs/node.md; the types index.d.ts.

const { addon, NAMES } = require('./lib/addon')
const { CacheClock } = require('./lib/clock')
const { Compactor, listKey, toolsText, systemText } = require('./lib/compactor')
const { PairingError, native, options, wrongType } = require('./lib/errors')
const { messageItems } = require('./lib/json')
const { text } = require('./lib/policy')

/** A format's name, checked (`chat` when undefined). */
function formatOf(format) {
  return format === undefined ? 'chat' : text(format, 'format', `a format's name (${NAMES.formats})`)
}

/**
 * The tokens a request of these messages costs, counted as the library counts it:
 * `countTokens(messages, { tokenizer = "o200k", format = "chat", tools, system })`.
 */
function countTokens(messages, given) {
  const o = options('countTokens', given, ['tokenizer', 'format', 'tools', 'system'], '{ tokenizer: "o200k" }')
  const tokenizer =
    o.tokenizer === undefined ? 'o200k' : text(o.tokenizer, 'tokenizer', `a tokenizer's name (${NAMES.counters})`)
  const format = formatOf(o.format)
  const items = messageItems(messages, listKey(format), format === 'chat', wrongType)
  return native(addon.countTokens, JSON.stringify(items), tokenizer, format, toolsText(o.tools), systemText(o.system))
}

/**
 * Checks the pairing rule (every tool result answers a call of the assistant message before it;
 * every call is answered before the next message) and the format's own rules: throws a
 * `PairingError` naming the message, else returns how many calls of a final assistant message
 * still wait for their results. `checkPairing(messages, { format = "chat" })`.
 */
function checkPairing(messages, given) {
  const o = options('checkPairing', given, ['format'], '{ format: "anthropic" }')
  const format = formatOf(o.format)
  const items = messageItems(messages, listKey(format), format === 'chat', wrongType)
  return native(addon.checkPairing, JSON.stringify(items), format)
}

/** The strategies' help: every stage, its parameters and their defaults. */
function strategies() {
  return addon.strategies()
}

/** The package's version. */
const version = addon.version()

module.exports = { CacheClock, Compactor, PairingError, checkPairing, countTokens, strategies, version }
