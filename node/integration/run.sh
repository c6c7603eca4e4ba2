#!/usr/bin/env bash
# The Node adapters in real agents of their frameworks, against `ctxbench serve`: installs the
# frameworks pinned in package-lock.json (npm ci, from the npm registry), links them where the
# examples under examples/node find them, and runs node/integration/*.test.mjs with node's own
# test runner.
#
#   bash node/integration/run.sh                  # the tests
#   bash node/integration/run.sh --install-only   # only the frameworks (to run the examples by hand)
#
# The package is node/ as built (`npm run build` in node/, which .ci/run does first; built here
# when its addon is missing). The binary the compactions are held to is $CTXBENCH_BIN, else
# target/debug/ctxbench (built here when missing).
set -euo pipefail
cd "$(dirname "$0")/../.."
if [ -z "${CTXBENCH_BIN:-}" ]; then
  [ -x target/debug/ctxbench ] || cargo build --quiet --locked -p ctxbench
  export CTXBENCH_BIN="$PWD/target/debug/ctxbench"
fi
if [ -z "${CTXBENCH_NODE_PACKAGE:-}" ] && ! ls node/*.node >/dev/null 2>&1; then
  [ -d node/node_modules ] || npm ci --prefix node --no-audit --no-fund --silent
  (cd node && npm run --silent build)
fi
npm ci --prefix node/integration --no-audit --no-fund --silent
# The examples import the frameworks as a project does (`import … from "ai"`): from a
# node_modules beside them. The adapters, in node/adapters, require them through NODE_PATH.
ln -sfn ../../node/integration/node_modules examples/node/node_modules
export NODE_PATH="$PWD/node/integration/node_modules"
[ "${1:-}" = "--install-only" ] && exit 0
exec node --test --test-concurrency=1 node/integration/
