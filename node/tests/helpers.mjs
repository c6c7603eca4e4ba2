// What the Node package's tests share: the repository, the `ctxbench` binary they hold the package
// to (the Rust library's answers; $CTXBENCH_BIN, else target/debug/ctxbench), the repository's
// conversations, and a seeded stream for generated histories.
//
// Without a binary the tests that need it fail and say how to get one: CI sets $CTXBENCH_BIN.

import { spawnSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

export const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '../..')
export const ctxbench = createRequire(import.meta.url)('../index.js')

/** The ctxbench binary; an error that says how to get one when there is none. */
export function binary() {
  const path = process.env.CTXBENCH_BIN || join(REPO, 'target/debug/ctxbench')
  if (!existsSync(path)) {
    throw new Error(`no ctxbench binary at ${path}: build it (cargo build) or set CTXBENCH_BIN`)
  }
  return path
}

/** Runs the binary with `args` (and `input` on stdin); its stdout and stderr, or an error. */
export function run(args, input) {
  const done = spawnSync(binary(), args, { input, maxBuffer: 1 << 28, cwd: REPO })
  if (done.status !== 0) {
    throw new Error(`ctxbench ${args.join(' ')} exited ${done.status}: ${done.stderr}`)
  }
  return { stdout: done.stdout.toString(), stderr: done.stderr.toString() }
}

/** `ctxbench compact` on a body: the body it wrote and its JSON report. */
export function cliCompact(body, strategy, window, { format = 'chat', estimator = 'chars4', threshold, target, keep, replyReserve, summary } = {}) {
  const args = ['compact', '--strategy', strategy, '--window', String(window), '--format', format, '--estimator', estimator, '--report', 'json']
  for (const [flag, value] of [['--threshold', threshold], ['--target', target], ['--keep', keep], ['--reply-reserve', replyReserve], ['--summary', summary]]) {
    if (value !== undefined) args.push(flag, String(value))
  }
  const { stdout, stderr } = run(args, JSON.stringify(body))
  return { written: JSON.parse(stdout), cli: JSON.parse(stderr) }
}

/** The request body a list of messages makes, in its format. */
export function bodyOf(messages, format = 'chat', system, tools) {
  const body = { [format === 'responses' ? 'input' : 'messages']: messages }
  if (system !== undefined) body[format === 'responses' ? 'instructions' : 'system'] = system
  if (tools && tools.length) body.tools = tools
  return body
}

/** A body's list (a bare list is its own). */
export function listOf(body, format = 'chat') {
  return Array.isArray(body) ? body : body[format === 'responses' ? 'input' : 'messages']
}

/** A file of the repository, parsed. */
export function json(path) {
  return JSON.parse(readFileSync(join(REPO, path), 'utf8'))
}

/** A fixture of tests/fixtures as the package is given it: { messages, format, system, tools }. */
export function fixture(name) {
  const body = json(`tests/fixtures/${name}`)
  if (name.startsWith('traces/')) return { messages: body.messages, format: 'chat', system: undefined, tools: body.tools }
  if (Array.isArray(body)) return { messages: body, format: 'chat', system: undefined, tools: undefined }
  if ('input' in body) return { messages: body.input, format: 'responses', system: body.instructions, tools: body.tools }
  if ('system' in body) return { messages: body.messages, format: 'anthropic', system: body.system, tools: body.tools }
  return { messages: body.messages, format: 'chat', system: undefined, tools: body.tools }
}

/** The repository's conversations in the three forms (the Python package's tests use the same). */
export const FIXTURES = [
  'support-chat.json',
  'coding-agent.json',
  'traces/tau1-airline-gpt4o__task12__trial3.json',
  'traces/mini-swe-deepseek__django__django-14915.json',
  'wire/anthropic-claude-code.json',
  'wire/responses-codex.json',
]

/**
 * The strategies compared: the ten standard strategies as they are (the harness's
 * `STANDARD_STRATEGIES`; the two that summarize with a summary given to both sides, `ctxbench
 * compact --summary`), python/tests/test_same_as_rust.py's variants, and the two stages that
 * rewrite a chat message past its content (thinking cleared, calls' arguments emptied).
 */
export const STRATEGIES = [
  'none',
  'truncate',
  'drop',
  'truncate+drop',
  'summarize',
  'truncate+summarize',
  'mask',
  'mask+drop',
  'window',
  'clear-tool-uses',
  'clear-thinking+drop',
  'clear-tool-uses:keep=1,inputs=true',
  'truncate:preview=20',
  'mask:m=2+drop',
  'window:n=1',
  'clear-tool-uses:keep=1',
  'truncate:trigger=always+mask:m=1,trigger=always',
  'reference',
]

/** The summary both sides put in place when a strategy summarizes. */
export const SUMMARY = 'Summary: the orders asked about, their states, and what was promised.'

/** Whether `strategy` summarizes (a summary must then be given). */
export const summarizes = (strategy) => strategy.split('+').some((stage) => stage.split(':')[0] === 'summarize')

/** A seeded stream of numbers in [0, 1) (mulberry32): the same histories on every run. */
export function seeded(seed) {
  let a = seed >>> 0
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  return {
    next,
    int: (lo, hi) => lo + Math.floor(next() * (hi - lo + 1)),
    bool: () => next() < 0.5,
    pick: (list) => list[Math.floor(next() * list.length)],
  }
}
