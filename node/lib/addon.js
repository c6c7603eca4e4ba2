'use strict'
// The native addon (crates/node), loaded by napi-rs's generated loader (native.js, written by
// `npm run build` next to the `.node` file), and the names its errors list.

let addon
try {
  addon = require('../native.js')
} catch (error) {
  if (error && error.code === 'MODULE_NOT_FOUND' && /native\.js/.test(error.message)) {
    throw new Error(
      "ctxbench's native addon is not built: run `npm ci && npm run build` in the package's folder (node/ of the ctxbench repository; docs/node.md)",
    )
  }
  throw error
}

/** `counters` (estimators and tokenizers: `chars4, chars4-py, o200k or cl100k`) and `formats`. */
const NAMES = JSON.parse(addon.names())

module.exports = { addon, NAMES }
