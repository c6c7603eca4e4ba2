'use strict'
// The native addon (crates/node), loaded by napi-rs's generated loader (native.js, written by
// `npm run build` next to the `.node` file), and the names its errors list.

const addon = require('../native.js')

/** `counters` (estimators and tokenizers: `chars4, chars4-py, o200k or cl100k`) and `formats`. */
const NAMES = JSON.parse(addon.names())

module.exports = { addon, NAMES }
