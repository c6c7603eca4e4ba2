# The suite's figures per strategy from the results.json of `ctxbench compare` (docs/fidelity.md):
# each figure is the mean over the seeds a scenario ran, summed over the scenarios; then each
# strategy against `none`, and the pairs the published results compare.
#
#     jq -r -f scenarios/swe/sums.jq reports/NAME/results.json
def mean_sum(f): group_by(.scenario) | map(map(f) | add / length) | add;
def usd: . * 10000 | round / 10000 | tostring | "$" + .;
def pct: . * 1000 | round / 10 | tostring + "%";
def times: . * 100 | round / 100 | tostring + "x";
def against($a; $b): "\($a.strategy) against \($b.strategy): cost \($a.cost / $b.cost | times)"
    + " (\($a.cost / $b.cost - 1 | pct)), tokens sent \($a.tokens / $b.tokens | times)";

[.results | group_by(.strategy)[] | {
    strategy: .[0].strategy,
    scenarios: (map(.scenario) | unique | length),
    cost: mean_sum(.cost_usd),
    tokens: mean_sum(.tokens_sent),
    read: mean_sum(.cache_read_tokens),
    facts: mean_sum(.facts),
    lost: mean_sum(.facts_lost)
}] as $rows
| ($rows | map({key: (.strategy | split(":")[0]), value: .}) | from_entries) as $by
| ($rows[] | "\(.strategy): \(.scenarios) scenarios, cost \(.cost | usd), tokens sent \(.tokens | round),"
    + " cache read \(.read / .tokens | pct), facts lost \(.lost * 10 | round / 10) of \(.facts)"),
  ($rows[] | select(.strategy != "none" and $by.none != null) | against(.; $by.none)),
  (if $by["swe-agent-mask"] and $by.none then against($by.none; $by["swe-agent-mask"]) else empty end),
  (if $by["swe-agent-hybrid"] and $by["swe-agent-mask"] then against($by["swe-agent-hybrid"]; $by["swe-agent-mask"]) else empty end),
  (if $by["swe-agent-hybrid"] and $by["swe-agent-summary"] then against($by["swe-agent-hybrid"]; $by["swe-agent-summary"]) else empty end)
