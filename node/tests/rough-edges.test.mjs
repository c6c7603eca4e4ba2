// A wrong argument is named, with what it takes, in the Python package's words
// (python/tests/test_rough_edges.py) and JavaScript's names: a wrong type a `TypeError`, a number
// out of range a `RangeError`, a value the library refuses an `Error`, a broken pairing a
// `PairingError`; never a crash of the process, never Rust's words.

import assert from 'node:assert/strict'
import { test } from 'node:test'

import { ctxbench } from './helpers.mjs'

const { CacheClock, Compactor, PairingError, checkPairing, countTokens } = ctxbench

const WINDOW = 'window must be a whole number of tokens greater than 0'
const THRESHOLD = 'threshold must be a fraction of the window greater than 0 and at most 1'
const TARGET = 'target must be a fraction of the window greater than 0 and at most the threshold (0.8), or undefined'
const KEEP = 'keep must be a whole number of requests, 1 or more (the request being answered is always kept)'
const RESERVE = 'replyReserve must be a whole number of tokens, 0 or more and smaller than the window (8000)'
const SUMMARIZE = "summarize must be a function that receives the summary request (an object) and returns the summary's text or null"
const TTL = "ttlS must be the cache's lifetime, a number of seconds (0 or more), or null for no cache"
const MESSAGES = [{ role: 'user', content: 'Where is my order?' }]
const CALL = { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'get_order', arguments: '{}' } }] }
const RESULT = { role: 'tool', tool_call_id: 'c1', content: 'Order 4471: shipped.' }

function clockAt(now) {
  const clock = new CacheClock({ ttlS: 300, now: () => now })
  clock.called(0)
  return clock
}

const conversation = () =>
  Array.from({ length: 8 }, (_, k) => ({ role: k % 2 ? 'assistant' : 'user', content: `Order ${k}. ` + 'Details follow. '.repeat(30) }))

const WRONG = [
  // Compactor: each number, each name.
  [() => new Compactor('drop', { window: '8000' }), TypeError, `${WINDOW}, got '8000' (a string)`],
  [() => new Compactor('drop', { window: 8000.5 }), TypeError, `${WINDOW}, got 8000.5 (a number)`],
  [() => new Compactor('drop', { window: true }), TypeError, `${WINDOW}, got true (a boolean)`],
  [() => new Compactor('drop', { window: null }), TypeError, `${WINDOW}, got null`],
  [() => new Compactor('drop', {}), TypeError, `${WINDOW}, got undefined`],
  [() => new Compactor('drop', { window: -5 }), RangeError, `${WINDOW}, got -5`],
  [() => new Compactor('drop', { window: 0 }), RangeError, `${WINDOW}, got 0`],
  [() => new Compactor('drop', { window: NaN }), RangeError, `${WINDOW}, got NaN`],
  [() => new Compactor('drop', { window: 2 ** 60 }), RangeError, `${WINDOW}, at most 9007199254740991, got ${2 ** 60}`],
  [() => new Compactor('drop', 8000), TypeError, "Compactor's options must be an object such as { window: 8000 }, got 8000 (a number)"],
  [() => new Compactor('drop'), TypeError, `${WINDOW}, got undefined`],
  [() => new Compactor('drop', { window: 8000, windw: 1 }), TypeError, 'Compactor takes no option "windw"'],
  [() => new Compactor('drop', { window: 8000, reply_reserve: 1 }), TypeError, 'Compactor takes no option "reply_reserve"; did you mean replyReserve?'],
  [() => new Compactor('drop', { window: 8000, threshold: '0.8' }), TypeError, `${THRESHOLD}, got '0.8' (a string)`],
  [() => new Compactor('drop', { window: 8000, threshold: null }), TypeError, `${THRESHOLD}, got null`],
  [() => new Compactor('drop', { window: 8000, threshold: 1.5 }), RangeError, `${THRESHOLD}, got 1.5`],
  [() => new Compactor('drop', { window: 8000, threshold: NaN }), RangeError, `${THRESHOLD}, got NaN`],
  [() => new Compactor('drop', { window: 8000, target: 'half' }), TypeError, `${TARGET}, got 'half' (a string)`],
  [() => new Compactor('drop', { window: 8000, target: 0.9 }), RangeError, `${TARGET}, got 0.9`],
  [() => new Compactor('drop', { window: 8000, target: 0 }), RangeError, `${TARGET}, got 0`],
  [() => new Compactor('drop', { window: 8000, keep: -1 }), RangeError, `${KEEP}, got -1`],
  [() => new Compactor('drop', { window: 8000, keep: 0 }), RangeError, `${KEEP}, got 0`],
  [() => new Compactor('drop', { window: 8000, keep: 2.5 }), TypeError, `${KEEP}, got 2.5 (a number)`],
  [() => new Compactor('drop', { window: 8000, keep: '2' }), TypeError, `${KEEP}, got '2' (a string)`],
  [() => new Compactor('drop', { window: 8000, replyReserve: -1 }), RangeError, `${RESERVE}, got -1`],
  [() => new Compactor('drop', { window: 8000, replyReserve: 8000 }), RangeError, `${RESERVE}, got 8000`],
  [() => new Compactor('drop', { window: 8000, replyReserve: [100] }), TypeError, `${RESERVE}, got [ 100 ] (an array)`],
  [() => new Compactor(42, { window: 8000 }), TypeError,
    'strategy must be a strategy string such as "truncate+drop" (strategies() lists the stages), got 42 (a number)'],
  [() => new Compactor('truncat', { window: 1000 }), Error, 'strategy "truncat": unknown strategy stage `truncat`; did you mean `truncate`?'],
  [() => new Compactor('anthropic-compact:trigger=1000', { window: 8000 }), Error, 'strategy "anthropic-compact:trigger=1000": '],
  [() => new Compactor('drop', { window: 8000, estimator: 4 }), TypeError,
    "estimator must be an estimator's name (chars4, chars4-py, o200k or cl100k), got 4 (a number)"],
  [() => new Compactor('drop', { window: 8000, estimator: 'o200' }), Error, 'estimator: `o200` is not one of chars4, chars4-py, o200k or cl100k'],
  [() => new Compactor('drop', { window: 8000, estimator: 'usage' }), Error,
    'estimator "usage" needs the server\'s count of every call, which the Node package does not take'],
  [() => new Compactor('drop', { window: 8000, format: null }), TypeError, "format must be a format's name (chat, anthropic or responses), got null"],
  [() => new Compactor('drop', { window: 8000, format: 'xml' }), Error, 'format: `xml` is not one of chat, anthropic or responses'],
  // compact and compactAsync.
  [() => new Compactor('drop', { window: 8000 }).compact(MESSAGES, { summarize: 42 }), TypeError, `${SUMMARIZE}, got 42 (a number)`],
  [() => new Compactor('summarize', { window: 8000 }).compact(MESSAGES, { summarize: 'gpt-5' }), TypeError, `${SUMMARIZE}, got 'gpt-5' (a string)`],
  [() => new Compactor('summarize', { window: 8000 }).compactAsync(MESSAGES, { summarize: 42 }), TypeError, `${SUMMARIZE}, got 42 (a number)`],
  [() => new Compactor('summarize', { window: 1000 }).compact(MESSAGES), Error,
    'summarize summarizes, and a summary needs a model: pass summarize, a function that receives the summary request'],
  [() => new Compactor('claude-code', { window: 1500 }).compact(MESSAGES), Error, 'claude-code summarizes'],
  [() => new Compactor('drop', { window: 8000 }).compact(MESSAGES, { cacheCold: 'no' }), TypeError,
    "cacheCold must be a boolean or a CacheClock (whether the provider's prompt cache has expired), or undefined, got 'no' (a string)"],
  [() => new Compactor('drop', { window: 8000 }).compact(MESSAGES, { cache_cold: true }), TypeError, 'compact takes no option "cache_cold"; did you mean cacheCold?'],
  [() => new Compactor('drop', { window: 8000 }).compact('hello'), TypeError, "messages must be an array of messages (objects), got 'hello' (a string)"],
  [() => new Compactor('drop', { window: 8000 }).compactAsync(5), TypeError, 'messages must be an array of messages (objects), got 5 (a number)'],
  [() => new Compactor('drop', { window: 8000 }).compact(['hi']), TypeError, 'messages[0]: a message is an object, not a string'],
  [() => new Compactor('drop', { window: 8000 }).compact([MESSAGES[0], { role: 'user', content: new Set([1]) }]), TypeError,
    'messages[1].content: a value of type `Set` is not JSON'],
  [() => new Compactor('drop', { window: 8000 }).compact([{ role: 'user', content: [{ type: 'text', text: 1n }] }]), TypeError,
    'messages[0].content[0].text: a value of type `bigint` is not JSON'],
  [() => new Compactor('drop', { window: 8000 }).compact([{ role: 'user', content: 'x', n: Infinity }]), Error, 'messages[0].n: Infinity is not a JSON number'],
  [() => new Compactor('drop', { window: 8000 }).compact([{ role: 'robot', content: 'x' }]), Error, 'messages[0].role: unknown role "robot"'],
  [() => new Compactor('drop', { window: 8000 }).compact(MESSAGES, { tools: { name: 'get_order' } }), TypeError,
    "tools must be an array of tool schemas (objects), or undefined, got { name: 'get_order' } (an object)"],
  [() => new Compactor('drop', { window: 8000 }).compact(MESSAGES, { system: 'be brief' }), Error, 'system: in chat the system prompt is the first message'],
  [() => new Compactor('drop', { window: 1000 }).compact([MESSAGES[0], CALL, MESSAGES[0], RESULT, MESSAGES[0]]), PairingError, 'messages[1]: tool call "c1" has no result'],
  [() => new Compactor('drop', { window: 1000 }).compactAsync([MESSAGES[0], RESULT]), PairingError, 'messages[1]: tool result for "c1" answers no call'],
  [() => new Compactor('summarize', { window: 1000 }).compact(conversation(), { summarize: () => { throw new RangeError('the model is down') } }), RangeError, 'the model is down'],
  [() => new Compactor('summarize', { window: 1000 }).compactAsync(conversation(), { summarize: async () => { throw new Error('the model is down') } }), Error, 'the model is down'],
  [() => new Compactor('summarize', { window: 1000 }).compact(conversation(), { summarize: () => 42 }), TypeError,
    "summarize returned a number; it must return the summary's text (a string) or null"],
  [() => new Compactor('summarize', { window: 1000 }).compactAsync(conversation(), { summarize: async () => ({ text: 'x' }) }), TypeError,
    "summarize returned an object; it must return the summary's text (a string) or null"],
  [() => new Compactor('summarize', { window: 1000 }).compact(conversation(), { summarize: async () => 'x' }), TypeError,
    'summarize returned a promise, and compact waits for none: use `await compactor.compactAsync(...)`'],
  // CacheClock.
  [() => new CacheClock({ ttlS: '300' }), TypeError, `${TTL}, got '300' (a string)`],
  [() => new CacheClock({ ttlS: true }), TypeError, `${TTL}, got true (a boolean)`],
  [() => new CacheClock({}), TypeError, `${TTL}, got undefined`],
  [() => new CacheClock(300), TypeError, "CacheClock's options must be an object such as { ttlS: 300 }, got 300 (a number)"],
  [() => new CacheClock({ ttlS: -1 }), RangeError, `${TTL}, got -1`],
  [() => new CacheClock({ ttlS: NaN }), RangeError, `${TTL}, got NaN`],
  [() => new CacheClock({ ttlS: 300, now: 5 }), TypeError, 'now must be a function returning the time in seconds, such as () => Date.now() / 1000, got 5 (a number)'],
  [() => new CacheClock({ ttlS: 300 }).called('12:00'), TypeError, "at must be a time in seconds, as now() gives it, or undefined for now, got '12:00' (a string)"],
  [() => clockAt(10).cold([1]), TypeError, 'at must be a time in seconds, as now() gives it, or undefined for now, got [ 1 ] (an array)'],
  [() => clockAt('noon').cold(), TypeError, "now() must return the time in seconds (a number), returned 'noon' (a string)"],
  [() => CacheClock.forPrice(42), TypeError,
    'name must be the name of a model of ctxbench\'s price table, such as "gpt-5.4-mini" (`ctxbench prices` lists them), got 42 (a number)'],
  [() => CacheClock.forPrice('claude-sonet-4-6'), Error, '"claude-sonet-4-6" is not a model of ctxbench\'s price table; did you mean claude-sonnet-4-6?'],
  // countTokens and checkPairing.
  [() => countTokens(MESSAGES, { tokenizer: 5 }), TypeError, "tokenizer must be a tokenizer's name (chars4, chars4-py, o200k or cl100k), got 5 (a number)"],
  [() => countTokens(MESSAGES, 'o200k'), TypeError, "countTokens's options must be an object such as { tokenizer: \"o200k\" }, got 'o200k' (a string)"],
  [() => countTokens(MESSAGES, { format: ['chat'] }), TypeError, "format must be a format's name (chat, anthropic or responses), got [ 'chat' ] (an array)"],
  [() => countTokens('hello'), TypeError, 'messages must be an array of messages (objects)'],
  [() => countTokens([{ role: 'assistant', content: null, tool_calls: [{ id: 3 }] }]), Error, 'messages[0].tool_calls[0].id: expected a string'],
  [() => checkPairing(MESSAGES, { format: 1 }), TypeError, "format must be a format's name (chat, anthropic or responses), got 1 (a number)"],
  [() => checkPairing([MESSAGES[0], CALL, MESSAGES[0]]), PairingError, 'messages[1]: tool call "c1" has no result before messages[2]'],
  [() => checkPairing([{ role: 'user', content: 'hi' }, { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'get_order', input: {} }] },
    { role: 'user', content: 'no result here' }], { format: 'anthropic' }), PairingError, 'messages[1]'],
]

/** Runs `call`; the error it throws or its promise rejects with (a crash fails the test). */
async function raised(call) {
  try {
    await call()
  } catch (error) {
    return error
  }
  return undefined
}

for (const [call, kind, words] of WRONG) {
  test(`${kind.name}: ${words}`, async () => {
    const error = await raised(call)
    assert.ok(error !== undefined, 'nothing was thrown')
    assert.equal(error.constructor, kind, `${error.constructor.name}: ${error.message}`)
    assert.ok(error instanceof Error)
    assert.ok(error.message.startsWith(words), `the message: ${error.message}`)
    assert.doesNotMatch(error.message, /panicked|called `Result::unwrap|napi|GenericFailure/)
  })
}

test('a PairingError is an Error named PairingError', () => {
  const error = new PairingError('messages[2]: …')
  assert.ok(error instanceof Error)
  assert.equal(error.name, 'PairingError')
  assert.match(String(error), /^PairingError: messages\[2\]/)
})

test('what the options take is still taken', () => {
  const made = new Compactor('drop', { window: 8000n, threshold: 1, target: null, keep: 3, replyReserve: 10 })
  assert.deepEqual([made.window, made.threshold, made.target, made.keep, made.replyReserve], [8000, 1, undefined, 3, 10])
  const defaults = new Compactor('drop', { window: 8000 })
  assert.deepEqual(
    [defaults.threshold, defaults.target, defaults.keep, defaults.replyReserve, defaults.estimator, defaults.format],
    [0.8, undefined, 2, 0, 'chars4', 'chat'],
  )
  const { messages } = defaults.compact(MESSAGES, { summarize: null, cacheCold: null, tools: undefined, system: undefined })
  assert.equal(messages[0], MESSAGES[0])
  assert.equal(new CacheClock({ ttlS: null }).cold(), false)
  assert.equal(new CacheClock({ ttlS: 0.5, now: () => 1 }).ttlS, 0.5)
  assert.ok(countTokens(MESSAGES, { tokenizer: 'chars4', format: 'chat' }) > 0)
  assert.equal(countTokens(new Set(MESSAGES), { tokenizer: 'chars4' }), countTokens(MESSAGES, { tokenizer: 'chars4' }), 'any iterable of messages')
})

test('a summarize that throws undefined still ends the compaction with what it threw', async () => {
  const throwsNothing = () => {
    throw undefined // eslint-disable-line no-throw-literal
  }
  let caught = 'nothing'
  try {
    new Compactor('summarize', { window: 1000 }).compact(conversation(), { summarize: throwsNothing })
  } catch (error) {
    caught = error
  }
  assert.equal(caught, undefined, 'compact threw what summarize threw')
  caught = 'nothing'
  await new Compactor('summarize', { window: 1000 })
    .compactAsync(conversation(), { summarize: async () => throwsNothing() })
    .catch((error) => {
      caught = error
    })
  assert.equal(caught, undefined, 'compactAsync rejected with what summarize threw')
})

test('a lone surrogate and a value nested too deep are said at their place, not in JSON words', () => {
  const cut = '🚲 ordered'.slice(1)
  assert.throws(
    () => new Compactor('drop', { window: 1000 }).compact([{ role: 'user', content: cut }]),
    (error) => error.message.startsWith('messages[0].content: the text holds half of a surrogate pair at character 0') && !/line 1 column/.test(error.message),
  )
  let deep = 'bottom'
  for (let k = 0; k < 200; k++) deep = { in: deep }
  assert.throws(
    () => new Compactor('drop', { window: 1000 }).compact([{ role: 'user', content: 'hi', extra: deep }]),
    (error) => error.message.startsWith('messages[0].extra.in.in') && error.message.includes('nested more than 120 levels deep') && !/recursion limit/.test(error.message),
  )
})
