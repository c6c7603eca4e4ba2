#!/usr/bin/env bash
# ctxbench against the compaction pattern's own Python compact(): same output, and how much faster.
# Needs the pattern's Markdown (the document holding its Python listing) in REFERENCE_LISTING, and
# python3; sizes default to 1000 and 3000 messages (the listing is quadratic: ~25 s at 3000).
set -euo pipefail
cd "$(dirname "$0")/.."
listing="${REFERENCE_LISTING:-}"
[ -n "$listing" ] && [ -f "$listing" ] || {
  echo "error: set REFERENCE_LISTING to the compaction pattern's Markdown (with its Python compact() listing)" >&2
  exit 2
}
cargo build --release --quiet
python3 benches/against_reference.py "$listing" target/release/ctxbench "${@:-1000 3000}"
