#!/bin/sh
# Regenerates the SWE-style scenarios of this folder from the eleven mini-swe-agent runs
# (SWE-agent/mini-swe-agent, commit ec0e8e849fea5b1619deb1753007201000904672, MIT, Copyright (c)
# the SWE-agent authors), then sets each scenario's window. Run from the repository's root, with
# the runs' folder beside the repository (../shared/traces) or named by TRACES:
#
#     sh scenarios/swe/import.sh
#     TRACES=/path/to/traces CTXBENCH='cargo run --release --' sh scenarios/swe/import.sh
#
# The window: the raw run's largest request (`none`, no compaction, counted with o200k) plus
# 10%, rounded up to a thousand tokens. `none` then just completes, every compactor that
# watches the window (threshold 0.8) compacts near the end, and the SWE-agent presets, which do
# not watch it, compact as SWE-agent does (masking on every call, a summary every 21 turns).
set -eu

TRACES=${TRACES:-../shared/traces}
CTXBENCH=${CTXBENCH:-target/release/ctxbench}
OUT=scenarios/swe

$CTXBENCH import "$TRACES/mini-swe-deepseek__django__django-14915.json" "$TRACES"/swe/*.json -o "$OUT"

# instance, window (the raw peaks: 54,965 41,532 27,838 29,193 21,074 20,160 27,604 26,571 14,442
# 29,470 38,267 tokens, in this order)
while read -r instance window; do
    file="$OUT/mini-swe-deepseek__django__django-$instance.json"
    jq --argjson w "$window" '. + {window: $w}' "$file" > "$file.tmp"
    mv "$file.tmp" "$file"
done <<'WINDOWS'
11848 61000
12184 46000
12700 31000
13028 33000
13447 24000
13768 23000
14238 31000
14672 30000
14915 16000
15202 33000
15498 43000
WINDOWS
