// The package as a user meets it: what `compact` returns and never changes (the caller's own
// objects back, `===`), summaries written by a function (sync, or async through `compactAsync`,
// off the JavaScript thread), the cache clock and its prices, pairing in the three formats, and
// the verdict's Node line. Figures are the binary's (`ctxbench compact`), never written here.

import assert from 'node:assert/strict'
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'

import { REPO, cliCompact, ctxbench, json, run } from './helpers.mjs'

const { CacheClock, Compactor, checkPairing, countTokens, strategies, version } = ctxbench

const ORDER = 'Order 4471: front wheel Mavic Aksium 700c, shipped 2026-11-02. '.repeat(40)

function supportChat() {
  return [
    { role: 'system', content: 'You are the support assistant of a bike shop.' },
    { role: 'user', content: 'My order #4471 came with a bent front wheel.' },
    { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'get_order', arguments: '{"order":4471}' } }] },
    { role: 'tool', tool_call_id: 'c1', content: ORDER },
    { role: 'assistant', content: "Order 4471 shipped a Mavic Aksium 700c. I'm sorry!" },
    { role: 'user', content: 'Can I return it?' },
    { role: 'assistant', content: 'Yes, within 30 days.' },
    { role: 'user', content: 'Then please start the return.' },
  ]
}

function conversation(n) {
  const messages = []
  for (let k = 1; k <= n; k++) {
    messages.push({ role: 'user', content: `Where is order ${k}? ` + 'Please check. '.repeat(30) })
    messages.push({ role: 'assistant', content: `Order ${k} shipped. ` + 'Details follow. '.repeat(30) })
  }
  return messages
}

function deepFreeze(value) {
  if (typeof value === 'object' && value !== null) {
    Object.values(value).forEach(deepFreeze)
    Object.freeze(value)
  }
  return value
}

test("untouched messages are the caller's own, rewritten ones copies, and the input never changes", () => {
  const messages = deepFreeze(supportChat().map((m, i) => (i === 3 ? { ...m, 'x-kept': { any: ['field', 1, 2.5, true, null] } } : m)))
  const before = JSON.stringify(messages)
  const { messages: kept, report } = new Compactor('truncate+drop', { window: 600 }).compact(messages)
  assert.equal(JSON.stringify(messages), before)
  const { written, cli } = cliCompact(messages, 'truncate+drop', 600)
  assert.equal(JSON.stringify(kept), JSON.stringify(written))
  assert.deepEqual([report.limit, report.tokensBefore, report.tokensAfter], [cli.limit, cli.before.estimated, cli.after.estimated])
  assert.deepEqual([report.truncated, report.dropped, report.changed, report.cannotFit], [1, 0, true, false])
  assert.deepEqual(report.sources, [...messages.keys()])
  for (const i of messages.keys()) {
    if (i === 3) assert.notEqual(kept[i], messages[i])
    else assert.equal(kept[i], messages[i], `messages[${i}] is the caller's own`)
  }
  assert.ok(kept[3].content.startsWith('[Truncated to save context'))
  assert.equal(kept[3]['x-kept'], messages[3]['x-kept'], 'a rewritten message keeps its other fields')
  assert.deepEqual(Object.keys(kept[3]), Object.keys(messages[3]), 'in their order')
  assert.deepEqual(
    report.stages.map((s) => s.stage),
    ['truncate:preview=150,trigger=threshold', 'drop'],
  )
  assert.deepEqual(Object.keys(report), [
    'strategy', 'estimator', 'tokensBefore', 'tokensAfter', 'limit', 'window', 'messagesBefore', 'messagesAfter',
    'truncated', 'masked', 'dropped', 'summaryCalls', 'cannotFit', 'changed', 'stages', 'sources',
  ])
})

test('a compactor spells its settings and the line that makes it', () => {
  const compactor = new Compactor('drop', { window: 300 })
  assert.equal(String(compactor), 'new Compactor("drop", { window: 300 })')
  const made = new Compactor('truncate:trigger=cold+drop', { window: 6000, target: 0.4, keep: 3, estimator: 'o200k' })
  assert.equal(String(made), 'new Compactor("truncate:trigger=cold+drop", { window: 6000, target: 0.4, keep: 3, estimator: "o200k" })')
  assert.deepEqual([made.window, made.threshold, made.target, made.keep, made.estimator, made.format], [6000, 0.8, 0.4, 3, 'o200k', 'chat'])
  assert.equal(made.limit, cliCompact([], 'truncate:trigger=cold+drop', 6000, { target: 0.4, keep: 3 }).cli.limit)
  assert.equal(made.strategy, 'truncate:preview=150,trigger=cold+drop')
  const fresh = made.fresh()
  assert.ok(fresh instanceof Compactor && fresh !== made)
  assert.equal(String(fresh), String(made))
})

// The verdict's use-line for Node: only the options that are not the defaults, the window a
// number (the Python line's rule). Evaluated as a user pastes it.
const USE_LINES = [
  'new Compactor("truncate+drop", { window: 6000 })',
  'new Compactor("truncate+drop", { window: 6000, target: 0.4, keep: 3, estimator: "o200k" })',
]

function evaluate(line) {
  return new Function('Compactor', `return ${line}`)(Compactor)
}

test("the verdict's Node lines construct what they say", () => {
  const plain = evaluate(USE_LINES[0])
  assert.deepEqual(
    [plain.strategy, plain.window, plain.threshold, plain.target, plain.keep, plain.estimator],
    ['truncate:preview=150,trigger=threshold+drop', 6000, 0.8, undefined, 2, 'chars4'],
  )
  const tuned = evaluate(USE_LINES[1])
  assert.deepEqual([tuned.window, tuned.target, tuned.keep, tuned.estimator], [6000, 0.4, 3, 'o200k'])
  for (const line of USE_LINES) assert.equal(String(evaluate(line)), line, 'a compactor spells its own line back')
})

test("compare's verdict: its Node lines build the pick and the suite's run", () => {
  const out = mkdtempSync(join(tmpdir(), 'ctxbench-node-'))
  run(['compare', join(REPO, 'scenarios/lunch-break.json'), '--seeds', '1', '--no-plots', '--out', out])
  const written = JSON.parse(readFileSync(join(out, 'verdict.json'), 'utf8'))
  const verdict = written.scenarios[0]
  const suiteRun = written.suite.run
  assert.equal(typeof suiteRun.use.node, 'string', "the suite's run has a Node line")
  const suiteMade = new Function('Compactor', 'WINDOW', `return ${suiteRun.use.node}`)(Compactor, 8000)
  assert.equal(suiteMade.strategy, new Compactor(suiteRun.strategy, { window: 8000 }).strategy)
  assert.equal(typeof verdict.use.node, 'string', 'the pick has a Node line')
  const made = evaluate(verdict.use.node)
  assert.equal(made.strategy, verdict.pick)
  const ranked = verdict.ranked.find((r) => r.strategy === verdict.pick)
  assert.equal(made.target, ranked.target !== made.threshold ? ranked.target : undefined)
})

test('summaries are written by a function, sync or async, with the request Python gives', async () => {
  const asked = []
  const summarize = (request) => {
    asked.push(request)
    return 'The user asked about orders 1 and 2; both shipped.'
  }
  const sync = new Compactor('summarize', { window: 1000 }).compact(conversation(4), { summarize })
  assert.equal(sync.report.summaryCalls, 1)
  assert.equal(sync.report.sources[1], null)
  assert.deepEqual(sync.messages[1], { role: 'user', content: '[Summary of earlier conversation]\nThe user asked about orders 1 and 2; both shipped.' })
  const request = asked[0]
  assert.deepEqual(Object.keys(request), ['system', 'messages', 'tools', 'keep', 'ratio', 'span', 'estimatedTokens', 'limit', 'attempt'])
  assert.equal(request.limit, new Compactor('summarize', { window: 1000 }).limit)
  assert.equal(request.attempt, 0)
  assert.equal(request.messages[0].role, 'user')

  let ticks = 0
  const timer = setInterval(() => ticks++, 1)
  const late = await new Compactor('summarize', { window: 1000 }).compactAsync(conversation(4), {
    summarize: async (r) => {
      await sleep(30)
      return summarize(r)
    },
  })
  clearInterval(timer)
  assert.ok(ticks > 0, 'the JavaScript thread ran other work while the summary was awaited')
  assert.equal(JSON.stringify(late), JSON.stringify(sync), 'async gives what sync gives')
  assert.deepEqual(asked[1], asked[0])
  const plain = await new Compactor('summarize', { window: 1000 }).compactAsync(conversation(4), { summarize })
  assert.equal(JSON.stringify(plain), JSON.stringify(sync), 'a sync function works with compactAsync too')
})

test('a failed summary leaves the history; compactAsync runs many at once, one at a time per compactor', async () => {
  const attempts = []
  const history = conversation(4)
  const { messages, report } = new Compactor('summarize', { window: 1000 }).compact(history, { summarize: (r) => void attempts.push(r.attempt) })
  assert.deepEqual(attempts, [0, 1, 2], 'a failed call is asked again twice')
  assert.equal(report.summaryCalls, 3)
  assert.equal(report.dropped, 0)
  assert.ok(messages.every((m, i) => m === history[i]))

  const compactors = Array.from({ length: 6 }, () => new Compactor('summarize', { window: 1000 }))
  const results = await Promise.all(compactors.map((c, k) => c.compactAsync(conversation(4), { summarize: async () => `summary ${k}` })))
  results.forEach((r, k) => assert.ok(r.messages[1].content.endsWith(`summary ${k}`)))

  const busy = new Compactor('summarize', { window: 1000 })
  const first = busy.compactAsync(conversation(4), { summarize: () => sleep(20).then(() => 'first') })
  await assert.rejects(busy.compactAsync(conversation(4), { summarize: () => 'second' }), /still compacting/)
  assert.throws(() => busy.compact(conversation(4), { summarize: () => 'third' }), /still compacting/)
  assert.ok((await first).messages[1].content.endsWith('first'))
  assert.ok(busy.compact(conversation(4), { summarize: () => 'after' }).report.changed, 'free again once awaited')
  const again = new Compactor('summarize', { window: 1000 })
  const callsBack = () => again.compact(conversation(4), { summarize: () => 'inner' })
  assert.throws(() => again.compact(conversation(4), { summarize: callsBack }), /still compacting/, 'a summarize that calls its own compactor back')
})

test('the cache clock says cold after its lifetime, and each price keeps the cache its table gives', () => {
  let now = 1000
  const clock = new CacheClock({ ttlS: 300, now: () => now })
  assert.equal(clock.cold(), false, 'no call yet: nothing to find cold')
  clock.called()
  now += 300
  assert.equal(clock.cold(), false)
  now += 1
  assert.equal(clock.cold(), true)
  const rows = run(['prices']).stdout.split('\n').slice(1).filter((l) => l.trim() && !l.startsWith('prices in'))
  assert.ok(rows.length >= 10)
  for (const row of rows) {
    const cells = row.split(/\s+/)
    const cache = cells.find((c) => /^(prefix|breakpoints|none)/.test(c))
    const ttl = /ttl=(\d+)/.exec(cache)
    assert.equal(CacheClock.forPrice(cells[0]).ttlS, ttl ? Number(ttl[1]) : null, cells[0])
  }
})

test('trigger=cold compacts when the clock says cold', () => {
  let now = 0
  const clock = new CacheClock({ ttlS: 300, now: () => now })
  const compactor = new Compactor('truncate:trigger=cold', { window: 100000 })
  assert.equal(compactor.compact(supportChat(), { cacheCold: clock }).report.changed, false, 'under the limit, a warm cache')
  clock.called()
  now += 301
  const { messages, report } = compactor.compact(supportChat(), { cacheCold: clock })
  assert.equal(report.truncated, 1)
  assert.ok(messages[3].content.startsWith('[Truncated'))
  assert.equal(new Compactor('truncate:trigger=cold', { window: 100000 }).compact(supportChat(), { cacheCold: true }).report.truncated, 1)
})

test('pairing: pending calls counted, Anthropic and Responses lists keep what no stage touched', () => {
  const messages = supportChat()
  assert.equal(checkPairing(messages), 0)
  assert.equal(checkPairing(messages.slice(0, 3)), 1, 'the final call waits for its result')
  const anthropic = json('tests/fixtures/wire/anthropic-claude-code.json')
  const total = countTokens(anthropic.messages, { tokenizer: 'chars4', format: 'anthropic', system: anthropic.system })
  const a = new Compactor('truncate', { window: Math.floor(total / 2), format: 'anthropic' }).compact(anthropic.messages, { system: anthropic.system })
  assert.ok(a.report.truncated > 0)
  assert.equal(a.report.sources, null)
  checkPairing(a.messages, { format: 'anthropic' })
  const thinking = a.messages.flatMap((m) => (Array.isArray(m.content) ? m.content : [])).filter((b) => b.type === 'thinking')
  assert.ok(thinking.length > 0 && thinking.every((b) => 'signature' in b), 'signed thinking kept as it was')
  const responses = json('tests/fixtures/wire/responses-codex.json')
  const rTotal = countTokens(responses.input, { tokenizer: 'chars4', format: 'responses', system: responses.instructions })
  const r = new Compactor('truncate+drop', { window: Math.floor(rTotal / 2), keep: 1, format: 'responses' }).compact(responses.input, {
    system: responses.instructions,
  })
  assert.ok(r.report.changed)
  checkPairing(r.messages, { format: 'responses' })
  assert.ok(r.messages.some((item) => item.type === 'reasoning' && 'encrypted_content' in item))
})

test("the strategies' help and the version are the library's", () => {
  assert.match(strategies(), /truncate/)
  assert.match(strategies(), /clear-tool-uses/)
  assert.equal(version, JSON.parse(readFileSync(join(REPO, 'node/package.json'), 'utf8')).version)
})

test('index.d.ts declares every name the package exports, and each of Compactor\'s and CacheClock\'s members', () => {
  const types = readFileSync(join(REPO, 'node/index.d.ts'), 'utf8')
  const declared = [...types.matchAll(/^export declare (?:class|function|const) (\w+)/gm)].map((m) => m[1])
  assert.deepEqual(declared.sort(), Object.keys(ctxbench).sort())
  for (const [name, made] of [['Compactor', new Compactor('drop', { window: 8000 })], ['CacheClock', new CacheClock({ ttlS: 300 })]]) {
    const body = types.slice(types.indexOf(`export declare class ${name} `)).split('\n}\n')[0]
    const members = new Set([...body.matchAll(/^ {2}(?:readonly |static )?(\w+)[(:<]/gm)].map((m) => m[1]))
    const real = new Set([...Object.getOwnPropertyNames(Object.getPrototypeOf(made)), ...Object.keys(made), ...Object.getOwnPropertyNames(made.constructor)])
    for (const skip of ['constructor', 'length', 'name', 'prototype']) real.delete(skip)
    members.delete('constructor')
    assert.deepEqual([...members].sort(), [...real].sort(), name)
  }
})

test("package.json's exports name the package and each adapter, every path there", () => {
  const pkg = JSON.parse(readFileSync(join(REPO, 'node/package.json'), 'utf8'))
  const paths = Object.values(pkg.exports).flatMap((e) => (typeof e === 'string' ? [e] : Object.values(e)))
  for (const path of paths) assert.ok(existsSync(join(REPO, 'node', path)), path)
  assert.equal(pkg.exports['.'].default, `./${pkg.main}`)
  const adapters = readdirSync(join(REPO, 'node/adapters')).filter((f) => f.endsWith('.js'))
  for (const file of adapters) {
    assert.ok(paths.includes(`./adapters/${file}`), `node/adapters/${file} is exported`)
  }
  assert.equal(createRequire(join(REPO, 'node/index.js')).resolve('ctxbench'), join(REPO, 'node/index.js'), 'the package resolves itself by name')
})

test("napi-rs's layout: a package under npm/ for each target, named and versioned as the package", () => {
  const root = JSON.parse(readFileSync(join(REPO, 'node/package.json'), 'utf8'))
  const folders = readdirSync(join(REPO, 'node/npm')).sort()
  assert.equal(folders.length, root.napi.targets.length, `a folder for each of ${root.napi.targets.join(', ')}`)
  for (const folder of folders) {
    const made = JSON.parse(readFileSync(join(REPO, 'node/npm', folder, 'package.json'), 'utf8'))
    assert.equal(made.name, `ctxbench-${folder}`)
    assert.equal(made.version, root.version, `${folder}'s version`)
    assert.deepEqual(made.files, [`ctxbench.${folder}.node`])
  }
})
