#!/usr/bin/env bash
# A fleet on one machine: the memory of `ctxbench import` of a folder of 500 and of 5,000
# generated Claude Code session logs (it should not grow with their number), then a sweep over
# the 5,000 imported scenarios run as 4 shards one after another (each shard's time: they should
# finish within 20% of each other) and merged, checked byte for byte against the same sweep in
# one process. See docs/sweeps.md and docs/performance.md.
#
#   bash benches/fleet.sh [COUNT]        # COUNT: the larger fleet, 5000 by default
set -euo pipefail
cd "$(dirname "$0")/.."
count="${1:-5000}"
small=$((count / 10))
command -v python3 >/dev/null || { echo "skipped: python3 writes the session logs and is not installed" >&2; exit 0; }
[ -x /usr/bin/time ] || { echo "skipped: GNU time (/usr/bin/time) measures the memory and is not installed" >&2; exit 0; }
cargo build --release --quiet
bin=target/release/ctxbench
work=target/fleet
rm -rf "$work"
mkdir -p "$work"

for n in "$small" "$count"; do
  python3 benches/fleet.py "$work/sessions-$n" "$n" 7
  /usr/bin/time -f "%e %M" -o "$work/import-$n.time" "$bin" import "$work/sessions-$n" -o "$work/imported-$n" \
    > "$work/import-$n.log" 2> "$work/import-$n.err"
  read -r seconds kb < "$work/import-$n.time"
  printf 'import of %5d session logs (%s): %6.1f s, %6.1f MB peak\n' "$n" "$(du -sh "$work/sessions-$n" | cut -f1)" \
    "$seconds" "$(echo "$kb / 1024" | bc -l)"
done

grid=(--strategies drop,truncate+drop --threshold 0.6,0.8,0.9 --window 8000 --seeds 1 --no-plots)
/usr/bin/time -f "%e" -o "$work/whole.time" "$bin" sweep "$work/imported-$count" "${grid[@]}" --out "$work/whole" \
  > /dev/null 2> "$work/whole.err"
printf 'sweep of %d scenarios x 6 settings in one process: %.1f s\n' "$count" "$(cat "$work/whole.time")"
times=()
for i in 1 2 3 4; do
  /usr/bin/time -f "%e" -o "$work/shard-$i.time" "$bin" sweep "$work/imported-$count" "${grid[@]}" --shard "$i/4" \
    --out "$work/fleet" > /dev/null 2> "$work/shard-$i.err"
  runs=$(grep -o 'in [0-9.]* s of runs' "$work/shard-$i.err" | grep -o '[0-9.]*')
  estimate=$(grep -o '[0-9.]*% of the estimated work' "$work/shard-$i.err")
  printf '  shard %d/4: %5.1f s in all, %5.2f s of runs; %s\n' "$i" "$(cat "$work/shard-$i.time")" "$runs" "$estimate"
  times+=("$runs")
done
"$bin" merge "$work/fleet" > /dev/null 2> "$work/merge.err"
if cmp -s "$work/fleet/results.csv" "$work/whole/results.csv"; then
  echo "merged shards: byte-identical to the sweep in one process"
else
  echo "merged shards: DIFFER from the sweep in one process" >&2
  exit 1
fi
printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1} END {r=a[NR]/a[1]; printf "shards of runs: the slowest %.2fx the fastest (target: within 1.2x): %s\n", r, (r <= 1.2 ? "met" : "NOT met")}'
