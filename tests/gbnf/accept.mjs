// Check programs against a GBNF grammar with the npm package `gbnf` (an
// independent GBNF parser), for tests/gbnf.rs.
//
//   node accept.mjs NODE_MODULES_DIR < request.json
//
// request.json: {"grammar": "<GBNF text>", "inputs": [{"name": "..", "text": ".."}]}
// Prints one JSON object: {"grammar": "ok" | "<error>", "results": [{"name",
// "verdict": "accept" | "reject" | "incomplete" | "error", "at": <offset
// (in characters) of the rejected character, or null>}]} ("incomplete": a
// prefix of an accepted text; "error": the package failed, with "error": the
// message). Exit 0 unless the request cannot be read or the package cannot
// be loaded (exit 3, message on stderr).

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

async function loadGbnf(modules) {
  // The package's CommonJS build does not load; import its ES module entry
  // (from its own package.json) by path.
  const dir = join(modules, 'gbnf');
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  const entry = pkg.exports?.['.']?.import ?? pkg.module;
  const mod = await import(pathToFileURL(join(dir, entry)).href);
  return { GBNF: mod.default, version: pkg.version };
}

function verdict(initial, text) {
  let state = initial;
  try {
    // Code points, not UTF-16 units: the package works on code points.
    state = state.add(text);
  } catch (e) {
    if (e?.name !== 'InputParseError') {
      // Not a verdict: the package failed (it overflows its stack on runs
      // of thousands of repeated characters).
      return { verdict: 'error', at: null, error: String(e?.message ?? e) };
    }
    return { verdict: 'reject', at: typeof e.pos === 'number' ? e.pos : null };
  }
  const done = [...state].some((rule) => rule.type === 'end');
  return { verdict: done ? 'accept' : 'incomplete', at: null };
}

async function main() {
  const modules = process.argv[2];
  if (!modules) {
    throw new Error('usage: node accept.mjs NODE_MODULES_DIR < request.json');
  }
  const { GBNF, version } = await loadGbnf(modules);
  const request = JSON.parse(readFileSync(0, 'utf8'));
  let grammar = 'ok';
  let initial = null;
  try {
    // States are immutable: every input starts from the same one.
    initial = GBNF(request.grammar);
  } catch (e) {
    grammar = String(e.message ?? e);
  }
  const results = initial
    ? request.inputs.map((input) => ({ name: input.name, ...verdict(initial, input.text) }))
    : [];
  process.stdout.write(JSON.stringify({ consumer: `gbnf@${version}`, grammar, results }));
}

main().catch((e) => {
  process.stderr.write(`accept.mjs: ${e.stack ?? e}\n`);
  process.exit(3);
});
