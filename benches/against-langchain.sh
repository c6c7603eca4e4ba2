#!/usr/bin/env bash
# ctxbench against LangChain's trim_messages and the parse floor, on one realistic history, in one
# run: the ratios of the project's speed targets, each said met or not. See docs/performance.md.
#
#   bash benches/against-langchain.sh [MESSAGES] [--sweep]
#
# MESSAGES: the history's length (100000 by default). --sweep also runs the million-configuration
# sweep of the bundled suite for its peak memory (about 15 minutes and 17 GB of disk).
# Installs langchain-core, tiktoken and maturin with pip into target/peers/venv, and the Python
# package's wheel built with maturin; when it cannot (no python3, no network), the LangChain or
# Python package figures are skipped and said so. tiktoken's o200k table is
# read from the bpe-openai crate's own copy, so nothing is downloaded at run time.
set -euo pipefail
cd "$(dirname "$0")/.."
messages=100000
sweep=""
for arg in "$@"; do
  case "$arg" in
    --sweep) sweep="--sweep" ;;
    *[!0-9]*|"") echo "error: expected a number of messages or --sweep, got '$arg'" >&2; exit 2 ;;
    *) messages="$arg" ;;
  esac
done
command -v python3 >/dev/null || { echo "skipped: python3 is not installed" >&2; exit 0; }
cargo build --release --quiet
cargo build --release --quiet -p ctxbench-compact --examples
mkdir -p target/peers
history="target/peers/history-$messages.json"
[ -f "$history" ] || target/release/examples/realistic_history "$history" "$messages" 7
python="python3"
if [ ! -x target/peers/venv/bin/python ]; then
  python3 -m venv target/peers/venv 2>/dev/null || true
fi
if [ -x target/peers/venv/bin/python ] &&
   target/peers/venv/bin/python -m pip install --quiet --disable-pip-version-check langchain-core tiktoken maturin 2>/dev/null; then
  python="target/peers/venv/bin/python"
  # The Python package, as a user installs it: its wheel.
  if (cd python && ../target/peers/venv/bin/maturin build --release --quiet 2>/dev/null); then
    target/peers/venv/bin/python -m pip install --quiet --disable-pip-version-check --force-reinstall --no-deps \
      "$(ls -t target/wheels/ctxbench-*.whl | head -1)"
  fi
fi
# The o200k table tiktoken would download, from the crate's sources that cargo fetched.
table=$(ls "${CARGO_HOME:-$HOME/.cargo}"/registry/src/*/bpe-openai-*/data/o200k_base.tiktoken.gz 2>/dev/null | tail -1 || true)
exec "$python" benches/against_langchain.py "$history" target/release/ctxbench \
  target/release/examples/in_process "${table:-}" $sweep
