// The adapters' TypeScript declarations against the frameworks' own types: types.check.ts
// assigns each hook to what its framework's option takes (`ai`'s PrepareStepFunction,
// `@openai/agents`' CallModelInputFilter, `createAgent`'s middleware), and tsc must accept it.

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));

test("each adapter's declared hook is what its framework's option takes (tsc --strict)", () => {
  const tsc = join(here, "node_modules/typescript/bin/tsc");
  const args = ["--noEmit", "--strict", "--skipLibCheck", "--module", "nodenext", "--moduleResolution", "nodenext", "--target", "es2022", "types.check.ts"];
  const done = spawnSync(process.execPath, [tsc, ...args], { cwd: here, encoding: "utf8", timeout: 300_000 });
  assert.equal(done.status, 0, `tsc ${args.join(" ")}:\n${done.stdout}${done.stderr}`);
});
