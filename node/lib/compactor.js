'use strict'
// `Compactor`: one conversation's compactor. The addon compacts; this side checks the arguments,
// hands the messages over as JSON text and builds what comes back from the caller's own objects:
// a message left alone is returned as the caller's object (`===`), a rewritten one as a copy of it
// with its new content (every other field kept), a summary as a new object. Anthropic and
// Responses lists come back as the library's writer wrote them. The input is never changed.

const { inspect } = require('node:util')
const { addon, NAMES } = require('./addon')
const { native, fromAddon, options, wrongType } = require('./errors')
const { checkJson, messageItems } = require('./json')
const { policyOf, text } = require('./policy')

const OPTIONS = ['window', 'threshold', 'target', 'keep', 'replyReserve', 'estimator', 'format']
const COMPACT = ['cacheCold', 'summarize', 'system', 'tools']
const SUMMARIZE = "a function that receives the summary request (an object) and returns the summary's text or null"

/** The key of a format's list in a request body. */
function listKey(format) {
  return format === 'responses' ? 'input' : 'messages'
}

/** Whether `value` is a promise (or another thenable). */
function thenable(value) {
  return value !== null && (typeof value === 'object' || typeof value === 'function') && typeof value.then === 'function'
}

/** A summary's reply tagged for the addon (`s` text, `n` none, `x` an error kept in `state`). */
function tagged(reply, state) {
  if (reply === null || reply === undefined) return 'n'
  if (typeof reply === 'string') return `s${reply}`
  const kind = Array.isArray(reply) ? 'array' : typeof reply
  state.failed = true
  state.error = new TypeError(
    `summarize returned ${/^[aeiou]/.test(kind) ? 'an' : 'a'} ${kind}; it must return the summary's text (a string) or null`,
  )
  return 'x'
}

/** A tool-schema list: an array of JSON values, or undefined. */
function toolsText(tools) {
  if (tools === undefined || tools === null) return undefined
  if (!Array.isArray(tools)) throw wrongType('tools', 'an array of tool schemas (objects), or undefined', tools)
  checkJson(tools, 'tools')
  return JSON.stringify(tools)
}

/** `system` (Anthropic's system prompt, Responses' instructions) as JSON text, or undefined. */
function systemText(system) {
  if (system === undefined || system === null) return undefined
  checkJson(system, 'system')
  return JSON.stringify(system)
}

/** Compacts one conversation before each model call, as ctxbench measured it. */
class Compactor {
  #native
  #settings

  /**
   * `new Compactor(strategy, { window, threshold = 0.8, target, keep = 2, replyReserve = 0,
   * estimator = "chars4", format = "chat" })`; `window` is required.
   */
  constructor(strategy, settings) {
    const given = options(
      'Compactor',
      settings === undefined ? undefined : settings,
      OPTIONS,
      '{ window: 8000 }',
    )
    const p = policyOf(strategy, given)
    this.#native = native(
      (...a) => new addon.Compactor(...a),
      p.strategy,
      p.window,
      p.threshold,
      p.target,
      p.keep,
      p.replyReserve,
      p.estimator,
      p.format,
    )
    const s = JSON.parse(this.#native.settings())
    this.#settings = { ...s, target: s.target === null ? undefined : s.target }
  }

  /** The strategy's canonical name (every parameter spelt). */
  get strategy() {
    return this.#settings.strategy
  }
  /** The context window, in tokens. */
  get window() {
    return this.#settings.window
  }
  /** Compact past this fraction of the window. */
  get threshold() {
    return this.#settings.threshold
  }
  /** Once compacting, work down to this fraction of the window (undefined: the threshold). */
  get target() {
    return this.#settings.target
  }
  /** Requests at the end never touched. */
  get keep() {
    return this.#settings.keep
  }
  /** Tokens kept free for the reply. */
  get replyReserve() {
    return this.#settings.replyReserve
  }
  /** The estimator's name. */
  get estimator() {
    return this.#settings.estimator
  }
  /** The messages' form: `chat`, `anthropic` or `responses`. */
  get format() {
    return this.#settings.format
  }
  /** The limit the estimate is held under, in tokens. */
  get limit() {
    return this.#settings.limit
  }

  /** A new compactor with the same settings (and none of this one's memory). */
  fresh() {
    const s = this.#settings
    return new this.constructor(s.strategy, {
      window: s.window,
      threshold: s.threshold,
      target: s.target,
      keep: s.keep,
      replyReserve: s.replyReserve,
      estimator: s.estimator,
      format: s.format,
    })
  }

  /** The line that constructs this compactor: only the options that are not the defaults. */
  toString() {
    const s = this.#settings
    const spelt = [`window: ${s.window}`]
    if (s.threshold !== 0.8) spelt.push(`threshold: ${s.threshold}`)
    if (s.target !== undefined) spelt.push(`target: ${s.target}`)
    if (s.keep !== 2) spelt.push(`keep: ${s.keep}`)
    if (s.replyReserve !== 0) spelt.push(`replyReserve: ${s.replyReserve}`)
    if (s.estimator !== 'chars4') spelt.push(`estimator: ${JSON.stringify(s.estimator)}`)
    if (s.format !== 'chat') spelt.push(`format: ${JSON.stringify(s.format)}`)
    return `new Compactor(${JSON.stringify(s.brief)}, { ${spelt.join(', ')} })`
  }

  [inspect.custom]() {
    return this.toString()
  }

  /** What a call is given, checked: the items, the addon's arguments, the function. */
  #prepare(messages, given) {
    const o = options('compact', given, COMPACT, '{ cacheCold: clock }')
    let cold = false
    const c = o.cacheCold
    if (c !== undefined && c !== null) {
      if (typeof c === 'object' && typeof c.cold === 'function') cold = Boolean(c.cold())
      else if (typeof c === 'boolean') cold = c
      else {
        throw wrongType(
          'cacheCold',
          "a boolean or a CacheClock (whether the provider's prompt cache has expired), or undefined",
          c,
        )
      }
    }
    const summarize = o.summarize === null ? undefined : o.summarize
    if (summarize !== undefined && typeof summarize !== 'function') throw wrongType('summarize', SUMMARIZE, summarize)
    const format = this.#settings.format
    const items = messageItems(messages, listKey(format), format === 'chat', wrongType)
    const tools = toolsText(o.tools)
    const system = systemText(o.system)
    return { items, args: [JSON.stringify(items), cold, system, tools], summarize }
  }

  /** The result the addon wrote, built from the caller's items. */
  static #built(items, text) {
    const result = JSON.parse(text)
    if (result.report.sources === null) return result
    const out = new Array(result.messages.length)
    result.messages.forEach((m, k) => {
      if (m.m !== undefined) out[k] = m.m // a summary, or a message rewritten past its content
      else if ('c' in m) out[k] = { ...items[m.s], content: m.c }
      else out[k] = items[m.s]
    })
    return { messages: out, report: result.report }
  }

  /**
   * Compacts `messages` for the next model call; returns `{ messages, report }`. Options:
   * `cacheCold` (a boolean or a `CacheClock`), `summarize` (a function returning the summary's
   * text or null), `system` (Anthropic's `system`, Responses' `instructions`), `tools`.
   */
  compact(messages, given) {
    const { items, args, summarize } = this.#prepare(messages, given)
    const state = {}
    let inline
    if (summarize !== undefined) {
      inline = (request) => {
        let reply
        try {
          reply = summarize(JSON.parse(request))
        } catch (error) {
          state.failed = true
          state.error = error
          return 'x'
        }
        if (thenable(reply)) {
          Promise.resolve(reply).catch(() => {})
          state.failed = true
          state.error = new TypeError(
            'summarize returned a promise, and compact waits for none: use `await compactor.compactAsync(...)` for an async summarize',
          )
          return 'x'
        }
        return tagged(reply, state)
      }
    }
    const text = native((...a) => this.#native.compact(...a), ...args, inline)
    if (state.failed) throw state.error
    return Compactor.#built(items, text)
  }

  /**
   * `compact` off the JavaScript thread: a promise of `{ messages, report }`. `summarize` may
   * return a promise; it is called (and awaited) on this thread.
   */
  async compactAsync(messages, given) {
    const { items, args, summarize } = this.#prepare(messages, given)
    const state = {}
    return new Promise((resolve, reject) => {
      const events = (event) => {
        const kind = event[0]
        if (kind === 'q') {
          const nl = event.indexOf('\n')
          const id = Number(event.slice(1, nl))
          const request = JSON.parse(event.slice(nl + 1))
          Promise.resolve()
            .then(() => summarize(request))
            .then(
              (reply) => addon.answer(id, tagged(reply, state)),
              (error) => {
                state.failed = true
                state.error = error
                addon.answer(id, 'x')
              },
            )
        } else if (kind === 'd') {
          if (state.failed) reject(state.error)
          else {
            try {
              resolve(Compactor.#built(items, event.slice(1)))
            } catch (error) {
              reject(error)
            }
          }
        } else reject(fromAddon(event.slice(1)))
      }
      native((...a) => this.#native.compactAsync(...a), ...args, summarize !== undefined, events)
    })
  }
}

module.exports = { Compactor, listKey, toolsText, systemText, text, NAMES }
