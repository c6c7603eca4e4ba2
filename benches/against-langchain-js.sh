#!/usr/bin/env bash
# ctxbench's Node package against LangChain.js's trimMessages, in one process, on the realistic
# history of benches/against-langchain.sh: the ratios of the ≥5× targets, each said met or not.
# See docs/performance.md ("Node: against LangChain.js").
#
#   bash benches/against-langchain-js.sh [MESSAGES] [--peer-limit=SECONDS]
#
# MESSAGES: the history's length (100000 by default). --peer-limit: how long one trimMessages call
# may run before it is stopped and said unfinished (300 by default; it is quadratic). Builds the release binary, the history
# (the compact crate's realistic_history example, seed 7, as benches/against-langchain.sh writes
# it), the Node package in release mode, and installs the peers (langchain, @langchain/core,
# js-tiktoken, pinned in node/integration/package-lock.json) from npm; js-tiktoken carries its
# o200k table, so nothing is downloaded at run time.
set -euo pipefail
cd "$(dirname "$0")/.."
messages=100000
limit=()
for arg in "$@"; do
  case "$arg" in
    --peer-limit=*) limit=(--peer-limit "${arg#--peer-limit=}") ;;
    *[!0-9]*|"") echo "error: expected a number of messages or --peer-limit=SECONDS, got '$arg'" >&2; exit 2 ;;
    *) messages="$arg" ;;
  esac
done
command -v node >/dev/null || { echo "skipped: node is not installed" >&2; exit 0; }
cargo build --release --quiet
cargo build --release --quiet -p ctxbench-compact --examples
mkdir -p target/peers
history="target/peers/history-$messages.json"
[ -f "$history" ] || target/release/examples/realistic_history "$history" "$messages" 7
if [ -z "${CTXBENCH_NODE_PACKAGE:-}" ]; then
  [ -d node/node_modules ] || npm ci --prefix node --no-audit --no-fund --silent
  (cd node && npm run --silent build)   # napi build --release
fi
[ -d node/integration/node_modules ] || npm ci --prefix node/integration --no-audit --no-fund --silent
exec node --max-old-space-size=4096 benches/against-langchain-js.mjs "$history" target/release/ctxbench "${limit[@]}"
