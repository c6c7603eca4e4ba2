// docs/node.md's adapter blocks stay true: every ```js-adapter block of the guide runs, as a
// module of its own in a node process of its own, with `ctxbench` resolved to the package and
// `ctxbench/ai-sdk`, `ctxbench/openai-agents`, `ctxbench/langchain` to its adapters, and the
// frameworks installed here (node/tests/guide.test.mjs runs the plain ```js blocks).

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { pathToFileURL } from "node:url";

import { REPO } from "./helpers.mjs";

const PACKAGE = process.env.CTXBENCH_NODE_PACKAGE || join(REPO, "node");

function blocks(path) {
  const text = readFileSync(join(REPO, path), "utf8");
  return [...text.matchAll(/^```js-adapter\n([\s\S]*?)^```$/gm)].map((match) => ({
    code: match[1],
    line: text.slice(0, match.index).split("\n").length,
  }));
}

function resolved(code) {
  return code.replace(/(from\s+|import\s*\(\s*|require\(\s*)(['"])ctxbench((?:\/[^'"]*)?)\2/g, (_, head, quote, sub) => {
    const target = sub ? join(REPO, "node/adapters", `${sub.slice(1)}.js`) : join(PACKAGE, "index.js");
    return `${head}${quote}${pathToFileURL(target).href}${quote}`;
  });
}

const GUIDE = blocks("docs/node.md");

test("the guide has an adapter block for each framework", () => {
  for (const name of ["ai-sdk", "openai-agents", "langchain"]) {
    assert.ok(GUIDE.some(({ code }) => code.includes(`'ctxbench/${name}'`)), `no block imports ctxbench/${name}`);
  }
});

// Written here, so that the frameworks resolve from node/integration/node_modules (gitignored).
const dir = join(REPO, "node/integration/node_modules/.ctxbench-guide");
mkdirSync(dir, { recursive: true });
for (const [k, { code, line }] of GUIDE.entries()) {
  test(`docs/node.md, the js-adapter block at line ${line} runs`, () => {
    const file = join(dir, `block-${k}.mjs`);
    writeFileSync(file, resolved(code));
    const env = { ...process.env, NODE_PATH: join(REPO, "node/integration/node_modules") };
    const done = spawnSync(process.execPath, [file], { encoding: "utf8", timeout: 120_000, env });
    assert.equal(done.status, 0, `docs/node.md:${line} exited ${done.status}:\n${done.stderr}`);
  });
}
