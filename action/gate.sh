#!/usr/bin/env bash
# The steps of the ctxbench gate action (action.yml runs this file; .ci/action runs it with a
# runner's environment to check it): build ctxbench or take one given, run `ctxbench gate` with
# `--markdown`, append the report to the job summary, write the comment body, name it in the
# step's outputs, and end as `fail-on` says. Inputs come as INPUT_* variables (action.yml sets
# them); the runner gives GITHUB_ACTION_PATH, GITHUB_WORKSPACE, RUNNER_TEMP, GITHUB_OUTPUT and
# GITHUB_STEP_SUMMARY. Exit: 0 passed (or fail-on never), 1 the gate failed, 2 unusable input.
set -euo pipefail

: "${GITHUB_ACTION_PATH:?the action's folder (set by the runner)}"
: "${RUNNER_TEMP:?a folder for the report (set by the runner)}"
: "${GITHUB_OUTPUT:?the step's output file (set by the runner)}"

fail_on="${INPUT_FAIL_ON:-regression}"
case "$fail_on" in
  regression | change | never) ;;
  *)
    echo "::error::fail-on: '$fail_on' is not one of regression, change, never"
    exit 2
    ;;
esac

# ctxbench: built from the action's own checkout, or the one given.
if [ "${INPUT_BUILD:-true}" = true ]; then
  echo "building ctxbench in $GITHUB_ACTION_PATH (cargo build --release --locked)"
  (cd "$GITHUB_ACTION_PATH" && cargo build --release --locked --quiet)
  ctxbench="$GITHUB_ACTION_PATH/target/release/ctxbench"
else
  ctxbench="${INPUT_CTXBENCH:-ctxbench}"
fi

report="$RUNNER_TEMP/ctxbench-gate.md"
comment="$RUNNER_TEMP/ctxbench-gate-comment.md"
errors="$RUNNER_TEMP/ctxbench-gate.stderr"
rm -f "$report" "$comment"

args=(gate --baseline "${INPUT_BASELINE:-reports/baseline.csv}" --markdown "$report")
read -r -a scenarios <<<"${INPUT_SCENARIOS:-}"
if [ "${#scenarios[@]}" -eq 0 ]; then
  # The pull request's own scenarios, beside the baseline they were measured into.
  scenarios=(scenarios)
fi
for path in "${scenarios[@]}"; do
  args+=(--scenarios "$path")
done
if [ "$fail_on" = change ]; then
  args+=(--exact)
elif [ -n "${INPUT_TOLERANCE:-}" ]; then
  args+=(--tolerance "$INPUT_TOLERANCE")
fi
read -r -a extra <<<"${INPUT_ARGS:-}"
args+=("${extra[@]}")

cd "${GITHUB_WORKSPACE:-$PWD}"
echo "ctxbench ${args[*]}"
# The gate appends its short table to the job summary itself; the report replaces it here.
set +e
env -u GITHUB_STEP_SUMMARY "$ctxbench" "${args[@]}" 2>"$errors"
code=$?
set -e
cat "$errors" >&2

if [ ! -f "$report" ]; then
  # The gate stopped before it could compare (exit 2): the report says why.
  {
    echo "**ctxbench gate could not run** (exit $code)"
    echo
    echo '```text'
    cat "$errors"
    echo '```'
  } >"$report"
fi
if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
  cat "$report" >>"$GITHUB_STEP_SUMMARY"
fi
# The comment body: the report, and a marker a later step can find its earlier comment by.
{
  cat "$report"
  echo
  echo "<!-- ctxbench-gate -->"
} >"$comment"
{
  echo "report=$comment"
  echo "exit-code=$code"
} >>"$GITHUB_OUTPUT"

case "$code" in
  0) exit 0 ;;
  1)
    if [ "$fail_on" = never ]; then
      echo "::warning::ctxbench gate failed; fail-on is never, so the job goes on (see the job summary)"
      exit 0
    fi
    echo "::error::ctxbench gate failed (see the job summary)"
    exit 1
    ;;
  *)
    echo "::error::ctxbench gate could not compare (exit $code): $(head -n 1 "$errors")"
    exit 2
    ;;
esac
