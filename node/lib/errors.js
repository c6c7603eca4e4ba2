'use strict'
// The package's errors, in the Python package's words with JavaScript's names: a wrong type is a
// `TypeError`, a number out of range a `RangeError`, each naming the argument, saying what it takes
// and what it got (`window must be a whole number of tokens greater than 0, got '8000' (a
// string)`); a value the library refuses (an unknown name, a malformed message) an `Error`; a
// broken pairing a `PairingError`. The addon throws an `Error` whose message opens with the class
// to throw (crates/node/src/errors.rs); `native` turns it into that class.

const { inspect } = require('node:util')

/** A history that breaks the pairing rule; the message says which message. */
class PairingError extends Error {
  constructor(message) {
    super(message)
    this.name = 'PairingError'
  }
}

/** A value as an error shows it: its `util.inspect`, on one line, shortened past 60 characters. */
function repr(value) {
  const text = inspect(value, { depth: 2, breakLength: Infinity, maxArrayLength: 10, maxStringLength: 80 })
  const chars = [...text]
  return chars.length > 60 ? chars.slice(0, 60).join('') + '…' : text
}

/** A value's kind, as errors name it: `string`, `number`, `array`, `Map`, `object`, `function`. */
function kindOf(value) {
  if (Array.isArray(value)) return 'array'
  if (typeof value === 'object' && value !== null) {
    const proto = Object.getPrototypeOf(value)
    if (proto === null || proto === Object.prototype) return 'object'
    const name = proto.constructor && proto.constructor.name
    return name || 'object'
  }
  return typeof value
}

/** `a string`, `an array`. */
function article(kind) {
  return /^[aeiou]/i.test(kind) ? `an ${kind}` : `a ${kind}`
}

/** A value and its kind, as a type error shows them: `'8000' (a string)`; `null` and `undefined` alone. */
function shown(value) {
  if (value === null || value === undefined) return String(value)
  return `${repr(value)} (${article(kindOf(value))})`
}

/** `TypeError`: `{name} must be {takes}, got {value} ({its kind})`. */
function wrongType(name, takes, value) {
  return new TypeError(`${name} must be ${takes}, got ${shown(value)}`)
}

/** `RangeError`: `{name} must be {takes}, got {value}`. */
function outOfRange(name, takes, value) {
  return new RangeError(`${name} must be ${takes}, got ${repr(value)}`)
}

const CLASSES = { Error, TypeError, RangeError, PairingError }

/** `fn(...args)` of the addon, its errors thrown as the class their message names. */
function native(fn, ...args) {
  try {
    return fn(...args)
  } catch (error) {
    throw fromAddon(error)
  }
}

/** The error the addon's message names (`PairingError: messages[2]: …`); others as they are. */
function fromAddon(error) {
  const text = typeof error === 'string' ? error : error && error.message
  const found = typeof text === 'string' && /^(Error|TypeError|RangeError|PairingError): ([\s\S]*)$/.exec(text)
  return found ? new CLASSES[found[1]](found[2]) : error
}

/**
 * The options object of `what` (`{}` when undefined), refusing any other value and any name it does
 * not take (`TypeError`, with the nearest name it takes).
 */
function options(what, given, names, example) {
  if (given === undefined) return {}
  if (typeof given !== 'object' || given === null || Array.isArray(given)) {
    throw wrongType(`${what}'s options`, `an object such as ${example}`, given)
  }
  for (const key of Object.keys(given)) {
    if (!names.includes(key)) {
      const near = names.find((n) => n.toLowerCase() === key.toLowerCase().replace(/_(.)/g, '$1'))
      const hint = near ? `did you mean ${near}? ` : ''
      throw new TypeError(`${what} takes no option ${JSON.stringify(key)}; ${hint}it takes ${names.join(', ')}`)
    }
  }
  return given
}

module.exports = { PairingError, repr, kindOf, article, shown, wrongType, outOfRange, native, fromAddon, options }
