'use strict'
// `CacheClock`: what the provider's prompt cache knows, for `trigger=cold` stages (the Python
// package's `ctxbench._clock`).
//
// A provider keeps a request's prefix for a while after the call that last used it (OpenAI about
// 5 minutes, Anthropic 5 minutes or an hour): past that, the next call pays for the whole request
// anyway, so rewriting the history then costs no cache. No framework tells its hooks that; a clock
// told of each model call does.

const { addon } = require('./addon')
const { native, options, shown, wrongType, outOfRange } = require('./errors')

/** Wall-clock seconds. */
const wallClock = () => Date.now() / 1000

/** A number of seconds (never a boolean or a string), or the `TypeError` naming `name`. */
function seconds(value, name, takes) {
  if (typeof value !== 'number') throw wrongType(name, takes, value)
  return value
}

/** The provider's prompt cache lifetime, and when the last model call ended. */
class CacheClock {
  /**
   * `new CacheClock({ ttlS, now })`: `ttlS` the cache's lifetime in seconds (null: no cache);
   * `now` a function returning the time in seconds (default: wall-clock, `Date.now() / 1000`).
   */
  constructor(given) {
    const o = options('CacheClock', given, ['ttlS', 'now'], '{ ttlS: 300 }')
    const ttlS = o.ttlS
    if (ttlS !== null) {
      const takes = "the cache's lifetime, a number of seconds (0 or more), or null for no cache"
      if (!(seconds(ttlS, 'ttlS', takes) >= 0)) throw outOfRange('ttlS', takes, ttlS)
    }
    const now = o.now === undefined ? wallClock : o.now
    if (typeof now !== 'function') {
      throw wrongType('now', 'a function returning the time in seconds, such as () => Date.now() / 1000', now)
    }
    /** The cache's lifetime in seconds; null without a cache. */
    this.ttlS = ttlS
    /** The clock, in seconds. */
    this.now = now
    /** When the last model call ended (seconds), or null before any. */
    this.lastCall = null
  }

  /** The clock of the cache that model `name` of ctxbench's price table implies. */
  static forPrice(name, given) {
    if (typeof name !== 'string') {
      throw wrongType(
        'name',
        'the name of a model of ctxbench\'s price table, such as "gpt-5.4-mini" (`ctxbench prices` lists them)',
        name,
      )
    }
    const o = options('CacheClock.forPrice', given, ['now'], '{ now: () => Date.now() / 1000 }')
    return new this({ ttlS: native(addon.cacheTtl, name), now: o.now })
  }

  /** `at`, or now: a time in seconds. */
  #at(at) {
    if (at === undefined || at === null) {
      const now = this.now()
      if (typeof now !== 'number') {
        throw new TypeError(`now() must return the time in seconds (a number), returned ${shown(now)}`)
      }
      return now
    }
    return seconds(at, 'at', 'a time in seconds, as now() gives it, or undefined for now')
  }

  /** A model call ended (at `at`, or now): the cache holds its request from then on. */
  called(at) {
    this.lastCall = this.#at(at)
  }

  /**
   * Whether a call at `at` (or now) would find the cache expired: longer than its lifetime since
   * the last call ended. False before any call and without a cache, as in ctxbench's own loop.
   */
  cold(at) {
    if (this.ttlS === null || this.lastCall === null) return false
    return this.#at(at) - this.lastCall > this.ttlS
  }

  toString() {
    return `CacheClock { ttlS: ${this.ttlS}, lastCall: ${this.lastCall} }`
  }
}

module.exports = { CacheClock }
