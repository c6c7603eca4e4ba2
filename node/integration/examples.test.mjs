// Each adapter in a real agent of its framework (installed from npm; none is faked): the examples
// under examples/node run against `ctxbench serve`, compact, keep every tool call with its result
// (serve checks each request, as a provider does, and refuses a broken pairing), complete the
// scenario, and each compaction they made is the one the Rust library makes of the same history
// (`ctxbench compact`). (python/tests/test_integrations.py, for Node.)

import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";

import { REPO, SCENARIO, binary, bodyOf, cliCompact, recorder, serve } from "./helpers.mjs";

const EXAMPLES = {
  "ai-sdk": "ai_sdk_agent.mjs",
  "openai-agents": "openai_agents_agent.mjs",
  langchain: "langchain_agent.mjs",
};
const STRATEGIES = ["truncate:trigger=cold+drop", "drop"];

const bin = binary();
const served = await import(join(REPO, "examples/node/served.mjs"));

/** Mutes what the example prints (its summary is returned). */
async function quietly(run) {
  const write = process.stdout.write;
  const error = process.stderr.write;
  process.stdout.write = process.stderr.write = () => true;
  try {
    return await run();
  } finally {
    process.stdout.write = write;
    process.stderr.write = error;
  }
}

for (const [name, file] of Object.entries(EXAMPLES)) {
  for (const strategy of STRATEGIES) {
    test(`${name} (${strategy}): a real agent compacts against serve as the library does`, { skip: bin ? false : "no ctxbench binary: build it (cargo build) or set CTXBENCH_BIN" }, async () => {
      const example = await import(join(REPO, "examples/node", file));
      const server = await serve(bin);
      let rows;
      let summary;
      const rec = recorder(strategy, served);
      try {
        summary = await quietly(() => example.main([SCENARIO, "--base-url", server.baseUrl, "--user", name, "--strategy", strategy], rec.make));
        rows = await server.stop();
      } finally {
        server.kill();
      }
      assert.ok(summary.compactions >= 1, `no compaction: ${JSON.stringify(summary)}`);
      assert.equal(summary.calls, rec.calls.length);
      assert.equal(rows.length, 1, JSON.stringify(rows));
      const row = rows[0];
      assert.deepEqual([row.run, row.completed, row.pairing_errors, row.overflows], [name, true, 0, 0], JSON.stringify(row));
      const fmt = rec.settings.format;
      let compared = 0;
      for (const [i, call] of rec.calls.entries()) {
        if (call.report.stages.some((stage) => stage.guarded)) continue; // the loop guard remembers earlier calls
        const { written, report } = cliCompact(bin, bodyOf(call.given, fmt, call.options?.system), strategy, rec.settings.window, {
          fmt,
          threshold: rec.settings.threshold,
        });
        assert.equal(JSON.stringify(call.messages), JSON.stringify(written), `call ${i + 1}: not what ctxbench compact writes`);
        assert.deepEqual([call.report.tokensBefore, call.report.tokensAfter], [report.before.estimated, report.after.estimated], `call ${i + 1}`);
        compared += 1;
      }
      assert.ok(compared >= rec.calls.length - 1, `${compared} of ${rec.calls.length} calls compared`);
      assert.ok(rec.calls.some((call) => call.report.changed));
    });
  }
}
