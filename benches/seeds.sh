#!/usr/bin/env bash
# The memory of `compare` as the seeds grow (issue 46: it should not grow past about a thousand,
# where each configuration starts writing its seeds' figures to a temporary file): the peak of
# bike-shop-return, the default strategies tuned, at each count of seeds, and the largest the
# temporary files grew. See docs/performance.md ("Verdicts over seeds").
#
#   bash benches/seeds.sh [SEEDS ...]        # 2000 8000 by default (about 1 and 4 minutes here)
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x /usr/bin/time ] || { echo "skipped: GNU time (/usr/bin/time) measures the memory and is not installed" >&2; exit 0; }
counts=("$@")
[ ${#counts[@]} -gt 0 ] || counts=(2000 8000)
cargo build --release --quiet
bin=target/release/ctxbench
work=target/seeds
rm -rf "$work"
mkdir -p "$work"

for n in "${counts[@]}"; do
  /usr/bin/time -f "%e %M" -o "$work/$n.time" "$bin" compare scenarios/bike-shop-return.json --no-plots \
    --seeds "$n" -o "$work/out-$n" > "$work/$n.log" 2> "$work/$n.err" &
  timer=$!
  # The temporary files are unlinked as they are made: their sizes are read through the process.
  largest=0
  while kill -0 "$timer" 2> /dev/null; do
    total=0
    for pid in $(pgrep -P "$timer" || true); do
      for fd in /proc/"$pid"/fd/*; do
        case "$(readlink "$fd" 2> /dev/null)" in
          *ctxbench-seeds-*) total=$((total + $(stat -L -c %s "$fd" 2> /dev/null || echo 0))) ;;
        esac
      done
    done
    [ "$total" -gt "$largest" ] && largest=$total
    sleep 1
  done
  wait "$timer"
  read -r seconds kb < "$work/$n.time"
  printf 'compare --seeds %6d: %6.1f s, %6.1f MB peak, temporary files at most %6.1f MB\n' "$n" "$seconds" \
    "$(echo "$kb / 1024" | bc -l)" "$(echo "$largest / 1048576" | bc -l)"
done
