// docs/node.md stays true: every ```js block of the guide runs, as a module of its own in a node
// process of its own, with `ctxbench` (and `ctxbench/…`) resolved to this package; a block that
// throws, or exits other than 0, fails.

import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { pathToFileURL } from 'node:url'

import { REPO } from './helpers.mjs'

const PACKAGE = join(REPO, 'node')

/** The ```js blocks of a Markdown file, with the line each starts on. */
function blocks(path) {
  const text = readFileSync(join(REPO, path), 'utf8')
  const found = []
  for (const match of text.matchAll(/^```js\n([\s\S]*?)^```$/gm)) {
    found.push({ code: match[1], line: text.slice(0, match.index).split('\n').length })
  }
  return found
}

/** A block with `ctxbench` and `ctxbench/…` imported from this package. */
function resolved(code) {
  return code.replace(/(from\s+|import\s*\(\s*|require\(\s*)(['"])ctxbench((?:\/[^'"]*)?)\2/g, (_, head, quote, sub) => {
    const target = sub ? join(PACKAGE, sub) : join(PACKAGE, 'index.js')
    return `${head}${quote}${pathToFileURL(target).href}${quote}`
  })
}

const GUIDE = blocks('docs/node.md')

test('the guide has js blocks to run', () => {
  assert.ok(GUIDE.length >= 4, `found ${GUIDE.length}`)
})

const dir = mkdtempSync(join(tmpdir(), 'ctxbench-guide-'))
for (const [k, { code, line }] of GUIDE.entries()) {
  test(`docs/node.md, the js block at line ${line} runs`, () => {
    const file = join(dir, `block-${k}.mjs`)
    writeFileSync(file, resolved(code))
    const done = spawnSync(process.execPath, [file], { encoding: 'utf8', timeout: 120_000 })
    assert.equal(done.status, 0, `docs/node.md:${line} exited ${done.status}:\n${done.stderr}`)
  })
}
