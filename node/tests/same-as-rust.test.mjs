// The package gives what the Rust library gives: on the repository's conversations (chat bodies,
// real traces, an Anthropic and a Responses body) and on generated histories, `compact` returns
// byte for byte the messages `ctxbench compact` writes, with the same figures; and `countTokens`
// counts what the library counts.

import assert from 'node:assert/strict'
import { test } from 'node:test'

import { FIXTURES, STRATEGIES, SUMMARY, bodyOf, cliCompact, ctxbench, fixture, listOf, seeded, summarizes } from './helpers.mjs'

const { Compactor, countTokens } = ctxbench

/** Compacts with the package and with the binary; asserts the same bytes and figures. */
function same(messages, format, system, tools, strategy, window, policy = {}) {
  const compactor = new Compactor(strategy, { window, format, ...policy })
  const summary = summarizes(strategy) ? SUMMARY : undefined
  const { messages: kept, report } = compactor.compact(messages, { system, tools, summarize: summary && (() => summary) })
  const { written, cli } = cliCompact(bodyOf(messages, format, system, tools), strategy, window, { format, ...policy, summary })
  const where = `${strategy} at ${window} (${JSON.stringify(policy)})`
  assert.equal(JSON.stringify(kept), JSON.stringify(listOf(written, format)), where)
  assert.deepEqual([report.tokensBefore, report.tokensAfter, report.limit], [cli.before.estimated, cli.after.estimated, cli.limit], where)
  assert.deepEqual([report.truncated, report.masked, report.dropped], [cli.truncated, cli.masked, cli.dropped], where)
  return report
}

for (const name of FIXTURES) {
  test(`${name} compacts as in Rust, every strategy, chars4 and o200k`, () => {
    const { messages, format, system, tools } = fixture(name)
    const before = JSON.stringify(messages)
    let changed = 0
    for (const estimator of ['chars4', 'o200k']) {
      const total = countTokens(messages, { tokenizer: estimator, format, system, tools })
      for (const strategy of STRATEGIES) {
        if (strategy === 'reference' && format !== 'chat') continue
        for (const window of [total, Math.floor((total * 3) / 4), Math.floor(total / 3)]) {
          const policy = { estimator }
          if (window % 2) policy.target = 0.5
          changed += same(messages, format, system, tools, strategy, Math.max(window, 1), policy).changed
        }
      }
    }
    assert.ok(changed > 0, 'some compaction changed the history (the comparison compared something)')
    assert.equal(JSON.stringify(messages), before, 'the input was not changed')
  })

  test(`${name}: countTokens counts what Rust counts`, () => {
    const { messages, format, system, tools } = fixture(name)
    for (const tokenizer of ['o200k', 'cl100k', 'chars4', 'chars4-py']) {
      const counted = countTokens(messages, { tokenizer, format, system, tools })
      const { cli } = cliCompact(bodyOf(messages, format, system, tools), 'none', 10 ** 9, { format, estimator: tokenizer })
      assert.equal(counted, cli.before.estimated, tokenizer)
    }
  })
}

// Generated chat histories: requests of text (Latin, Chinese, emoji, escapes), parallel tool calls
// answered in or out of order, null contents, thinking, later system messages, a pending call at
// the end (python/tests/test_same_as_rust.py's, with thinking, drawn from a seeded stream).
const ALPHABET = [...'abc xyz 0123 订单号 🚲"\\\n\t']

function history(r) {
  const words = () => Array.from({ length: r.int(0, 40) }, () => r.pick(ALPHABET)).join('')
  const longText = () => words().repeat(r.int(1, 60))
  const messages = []
  if (r.bool()) messages.push({ role: 'system', content: words() })
  for (let q = r.int(1, 7); q > 0; q--) {
    messages.push({ role: 'user', content: longText() })
    for (let s = 0, steps = r.int(0, 3); s < steps; s++) {
      const calls = r.int(0, 3)
      if (calls === 0) {
        const reply = { role: 'assistant', content: r.bool() ? null : longText() }
        if (r.int(0, 3) === 0) reply.reasoning_content = longText()
        messages.push(reply)
        continue
      }
      const ids = Array.from({ length: calls }, (_, k) => `call_${s}_${k}`)
      messages.push({
        role: 'assistant',
        content: null,
        tool_calls: ids.map((id, n) => ({ id, type: 'function', function: { name: 'get_order', arguments: JSON.stringify({ k: n }) } })),
      })
      if (r.bool()) ids.reverse()
      for (const id of ids) messages.push({ role: 'tool', tool_call_id: id, content: longText() })
    }
    if (r.int(0, 9) === 0) messages.push({ role: 'system', content: 'Reminder: be brief.' })
  }
  if (r.int(0, 5) === 0) {
    messages.push({
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'pending', type: 'function', function: { name: 'get_order', arguments: '{}' } }],
    })
  }
  return messages
}

test('generated histories compact as in Rust (150 drawn from a seeded stream, chars4 and o200k)', () => {
  const r = seeded(47)
  let changed = 0
  for (let n = 0; n < 150; n++) {
    const messages = history(r)
    const strategy = r.pick(STRATEGIES)
    const policy = { threshold: r.pick([0.5, 0.8, 1.0]), keep: r.int(1, 3), estimator: r.pick(['chars4', 'o200k']) }
    changed += same(messages, 'chat', undefined, undefined, strategy, r.int(20, 4000), policy).changed
  }
  assert.ok(changed > 0, 'some compaction changed the history')
})

test('every standard strategy changed some history of the repository, summaries included', () => {
  // The comparison above compared something for each: each standard strategy rewrote a fixture.
  for (const strategy of STRATEGIES.slice(0, 10).filter((s) => s !== 'none')) {
    const changed = FIXTURES.some((name) => {
      const { messages, format, system, tools } = fixture(name)
      const total = countTokens(messages, { tokenizer: 'chars4', format, system, tools })
      return same(messages, format, system, tools, strategy, Math.max(Math.floor(total / 3), 1)).changed
    })
    assert.ok(changed, `${strategy} changed no fixture`)
  }
})
