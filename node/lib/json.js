'use strict'
// Values to the JSON text the addon reads: what a message may hold (strings, finite numbers,
// booleans, null, arrays, plain objects) and nothing else, checked before `JSON.stringify`, which
// would otherwise turn a `Map` into `{}`, a `Date` into a string and `NaN` into `null` without a
// word. A property whose value is `undefined` is left out, as `JSON.stringify` leaves it.
// What cannot be read says where it is (`messages[3].content`), as the Python package does:
// the place is spelt only on the way out of an error.

const { article, kindOf } = require('./errors')

const ADVICE = "convert your framework's objects first, or use ctxbench's adapters"

/** Half of a UTF-16 surrogate pair standing alone (what slicing a string through an emoji leaves). */
const LONE_SURROGATE = /[\uD800-\uDFFF]/u

/** How deep a value may nest (the library's JSON reader stops at 128 levels, the list included). */
const DEEPEST = 120

/** Why a value is not JSON, and where: the path from the root, innermost step last. */
class Bad {
  constructor(error, path) {
    this.error = error
    this.path = path.slice()
  }
}

function check(value, path, seen) {
  switch (typeof value) {
    case 'string':
      if (LONE_SURROGATE.test(value)) {
        const at = value.search(LONE_SURROGATE)
        throw new Bad(
          new Error(`the text holds half of a surrogate pair at character ${at}, which is not text (a string cut through an emoji leaves one); cut strings on code points, or use .toWellFormed()`),
          path,
        )
      }
      return
    case 'boolean':
      return
    case 'number':
      if (!Number.isFinite(value)) throw new Bad(new Error(`${value} is not a JSON number`), path)
      return
    case 'object':
      break
    default:
      throw new Bad(
        new TypeError(`a value of type \`${kindOf(value)}\` is not JSON; a message holds objects, arrays, strings, numbers, booleans and null (${ADVICE})`),
        path,
      )
  }
  if (value === null) return
  if (path.length >= DEEPEST) throw new Bad(new Error(`nested more than ${DEEPEST} levels deep, deeper than the library reads`), path)
  const array = Array.isArray(value)
  if (!array) {
    const proto = Object.getPrototypeOf(value)
    if (proto !== null && proto !== Object.prototype) {
      throw new Bad(
        new TypeError(`a value of type \`${kindOf(value)}\` is not JSON; a message holds objects, arrays, strings, numbers, booleans and null (${ADVICE})`),
        path,
      )
    }
  }
  if (seen.has(value)) throw new Bad(new TypeError('a value that holds itself (a cycle) is not JSON'), path)
  seen.add(value)
  if (array) {
    for (let i = 0; i < value.length; i++) {
      path.push(i)
      if (value[i] === undefined) throw new Bad(new TypeError('undefined is not JSON (use null)'), path)
      check(value[i], path, seen)
      path.pop()
    }
  } else {
    for (const key in value) {
      if (!Object.prototype.hasOwnProperty.call(value, key)) continue
      const item = value[key]
      if (item === undefined) continue
      path.push(key)
      check(item, path, seen)
      path.pop()
    }
  }
  seen.delete(value)
}

/** `root` and `path` spelt: `messages[3].content`. */
function place(root, path) {
  let at = root
  for (const step of path) at += typeof step === 'number' ? `[${step}]` : `.${step}`
  return at
}

/** Throws, as its own class, why `value` is not JSON, its place spelt from `root`. */
function checkJson(value, root) {
  try {
    check(value, [], new Set())
  } catch (bad) {
    if (!(bad instanceof Bad)) throw bad
    const error = new bad.error.constructor(`${place(root, bad.path)}: ${bad.error.message}`)
    throw error
  }
}

/**
 * The items of a list of messages, each checked: an array (or another iterable, not a string)
 * whose items are JSON; in chat each one an object.
 */
function messageItems(messages, listKey, chat, wrongType) {
  const takes = 'an array of messages (objects)'
  let items
  if (Array.isArray(messages)) items = messages
  else if (typeof messages === 'object' && messages !== null && typeof messages[Symbol.iterator] === 'function') {
    items = Array.from(messages)
  } else throw wrongType('messages', takes, messages)
  for (let i = 0; i < items.length; i++) {
    const item = items[i]
    if (chat && (typeof item !== 'object' || item === null || Array.isArray(item))) {
      const kind = item === null || item === undefined ? String(item) : article(kindOf(item))
      throw new TypeError(`messages[${i}]: a message is an object, not ${kind} (${ADVICE})`)
    }
    if (item === undefined) throw new TypeError(`${listKey}[${i}]: undefined is not JSON (use null)`)
    checkJson(item, `${listKey}[${i}]`)
  }
  return items
}

module.exports = { checkJson, messageItems }
