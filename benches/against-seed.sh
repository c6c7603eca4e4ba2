#!/usr/bin/env bash
# ctxbench against the seed's own Python compact(): same output, and how much faster.
# Needs the seed beside the checkout (../shared/seed/compaction-pattern.md, or SEED_LISTING=…)
# and python3; sizes default to 1000 and 3000 messages (the seed is quadratic: ~25 s at 3000).
set -euo pipefail
cd "$(dirname "$0")/.."
listing="${SEED_LISTING:-../shared/seed/compaction-pattern.md}"
[ -f "$listing" ] || { echo "error: $listing not found; set SEED_LISTING to the seed's Markdown" >&2; exit 2; }
cargo build --release --quiet
python3 benches/against_seed.py "$listing" target/release/ctxbench "${@:-1000 3000}"
