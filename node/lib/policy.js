'use strict'
// `Compactor`'s options read and checked under their names, in the Python package's words
// (crates/python/src/policy.rs): the addon then has nothing left to refuse but the library's
// names. Whole numbers are integers (not a string, a boolean or a fraction) up to 2^53 - 1.

const { wrongType, outOfRange } = require('./errors')
const { NAMES } = require('./addon')

const WINDOW = 'a whole number of tokens greater than 0'
const THRESHOLD = 'a fraction of the window greater than 0 and at most 1'
const KEEP = 'a whole number of requests, 1 or more (the request being answered is always kept)'
const MAX_KEEP = 2 ** 32 - 1

/** A whole number of at least `min` (a number or a bigint), else the error naming `name`. */
function whole(value, name, takes, min, max = Number.MAX_SAFE_INTEGER) {
  let n
  if (typeof value === 'number' && Number.isInteger(value)) n = value
  else if (typeof value === 'bigint') n = value
  else if (typeof value === 'number' && Number.isNaN(value)) throw outOfRange(name, takes, value)
  else throw wrongType(name, takes, value)
  if (n < min) throw outOfRange(name, takes, value)
  if (n > max) throw outOfRange(name, `${takes}, at most ${max}`, value)
  return Number(n)
}

/** A real number (never a boolean or a string); its range is the caller's to check. */
function real(value, name, takes) {
  if (typeof value !== 'number') throw wrongType(name, takes, value)
  return value
}

/** A name: a string, else the error naming `name`. */
function text(value, name, takes) {
  if (typeof value !== 'string') throw wrongType(name, takes, value)
  return value
}

/** The settings the options make; the defaults are the library's (the Python package's). */
function policyOf(strategy, given) {
  text(strategy, 'strategy', 'a strategy string such as "truncate+drop" (strategies() lists the stages)')
  const window = whole(given.window, 'window', WINDOW, 1)
  let threshold = 0.8
  if (given.threshold !== undefined) {
    threshold = real(given.threshold, 'threshold', THRESHOLD)
    if (!(threshold > 0 && threshold <= 1)) throw outOfRange('threshold', THRESHOLD, given.threshold)
  }
  let target
  if (given.target !== undefined && given.target !== null) {
    const takes = `a fraction of the window greater than 0 and at most the threshold (${threshold}), or undefined`
    target = real(given.target, 'target', takes)
    if (!(target > 0 && target <= threshold)) throw outOfRange('target', takes, given.target)
  }
  const keep = given.keep === undefined ? 2 : whole(given.keep, 'keep', KEEP, 1, MAX_KEEP)
  let replyReserve = 0
  if (given.replyReserve !== undefined) {
    const takes = `a whole number of tokens, 0 or more and smaller than the window (${window})`
    replyReserve = whole(given.replyReserve, 'replyReserve', takes, 0)
    if (replyReserve >= window) throw outOfRange('replyReserve', takes, given.replyReserve)
  }
  const estimator =
    given.estimator === undefined ? 'chars4' : text(given.estimator, 'estimator', `an estimator's name (${NAMES.counters})`)
  const format = given.format === undefined ? 'chat' : text(given.format, 'format', `a format's name (${NAMES.formats})`)
  return { strategy, window, threshold, target, keep, replyReserve, estimator, format }
}

module.exports = { policyOf, text, whole }
