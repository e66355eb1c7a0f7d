// Drives Debian's Chromium (headless, through playwright-core) for
// tests/docs.rs and bench/docs.sh. Prints one JSON document on stdout;
// the caller asserts on it.
//
//   node browser.mjs site NODE_MODULES SITE_DIR SCREENSHOT SEARCH_TERM
//       what the site's index shows and does: console errors, requests that
//       are not file://, the graph's nodes and edges, a search, a click on a
//       node (and the page it opens), a right-click and a column trace
//   node browser.mjs mermaid NODE_MODULES FILE...
//       each file's mermaid text parsed and rendered by the mermaid package:
//       the nodes and clusters of the SVG, or the error
//   node browser.mjs bench NODE_MODULES SITE_DIR RUNS SEARCH_TERM
//       per run, in a fresh browser: time from navigation to the graph's
//       first frame with its handlers on (the page's `strataReady`), then
//       until the search answers, and a click until the node's page loads
import { createRequire } from 'node:module';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const [mode, modules, ...rest] = process.argv.slice(2);
const require = createRequire(join(modules, 'noop.js'));
const { chromium } = require('playwright-core');

const CHROMIUM = process.env.STRATA_CHROMIUM || '/usr/bin/chromium';
const ARGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
];

// A browser with a profile of its own, and what it saw: console errors,
// page errors, and every request that is not for a file.
async function open() {
  const profile = mkdtempSync(join(tmpdir(), 'strata-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM, args: ARGS, headless: true, viewport: { width: 1280, height: 900 },
  });
  const seen = { errors: [], requests: [] };
  context.on('request', (r) => { if (!r.url().startsWith('file:')) seen.requests.push(r.url()); });
  const page = context.pages()[0] || await context.newPage();
  page.on('console', (m) => { if (m.type() === 'error') seen.errors.push(m.text()); });
  page.on('pageerror', (e) => seen.errors.push(String(e)));
  const close = async () => { await context.close(); rmSync(profile, { recursive: true, force: true }); };
  return { page, seen, close };
}

function index(site) {
  return pathToFileURL(join(site, 'index.html')).href;
}

async function ready(page) {
  await page.waitForFunction(() => window.strataReady !== undefined, null, { timeout: 60000 });
}

// The page position of a graph node, for the mouse.
async function nodePoint(page, id) {
  const box = await page.locator('#graph').boundingBox();
  const at = await page.evaluate((id) => window.strataGraph.getElementById(id).renderedPosition(), id);
  return { x: box.x + at.x, y: box.y + at.y };
}

async function site([site, screenshot, term]) {
  const { page, seen, close } = await open();
  await page.goto(index(site));
  await ready(page);
  const graph = await page.evaluate(() => ({
    nodes: window.strataGraph.nodes().map((n) => ({ id: n.id(), kind: n.data('kind') })),
    edges: window.strataGraph.edges().map((e) => ({
      from: e.source().id(), to: e.target().id(), kind: e.data('kind'),
    })),
  }));
  await page.locator('#graph').screenshot({ path: screenshot });

  await page.fill('#search', term);
  const search = await page.evaluate(() => ({
    rows: [...document.querySelectorAll('tr[data-id]')].filter((r) => !r.hidden).map((r) => ({
      id: r.dataset.id, hits: (r.querySelector('.hits') || { textContent: '' }).textContent,
    })),
    marked: window.strataGraph.nodes('.match').map((n) => n.id()),
    status: document.getElementById('search-status').textContent,
  }));
  await page.fill('#search', '');

  // Right-click keeps a model's lineage and lists its columns; a column
  // traces where it comes from.
  const model = graph.nodes.find((n) => n.kind === 'model' && n.id === 'model:enriched_orders')
    || graph.nodes.find((n) => n.kind === 'model');
  let point = await nodePoint(page, model.id);
  await page.mouse.click(point.x, point.y, { button: 'right' });
  await page.waitForSelector('#focus:not([hidden])');
  await page.locator('#focus ul.columns button').last().click();
  const focus = await page.evaluate(() => ({
    title: document.querySelector('#focus h3').textContent,
    columns: [...document.querySelectorAll('#focus ul.columns button')].map((b) => b.textContent),
    computedFrom: [...document.querySelectorAll('#focus .trace ul')][0].textContent,
    faded: window.strataGraph.elements('.faded').length,
  }));
  await page.click('#clear');

  point = await nodePoint(page, model.id);
  await Promise.all([page.waitForURL('**/models/*.html'), page.mouse.click(point.x, point.y)]);
  const clicked = {
    id: model.id,
    url: page.url(),
    title: await page.title(),
    heading: await page.locator('h1').textContent(),
  };
  // Every other kind of page loads cleanly too.
  const pages = [];
  for (const kind of ['source', 'contract']) {
    const n = graph.nodes.find((x) => x.kind === kind);
    if (!n) continue;
    point = null;
    await page.goto(index(site));
    await ready(page);
    point = await nodePoint(page, n.id);
    await Promise.all([page.waitForURL(`**/${kind}s/*.html`), page.mouse.click(point.x, point.y)]);
    pages.push({ id: n.id, url: page.url(), heading: await page.locator('h1').textContent() });
  }
  await close();
  return { graph, search, focus, clicked, pages, errors: seen.errors, requests: seen.requests };
}

async function mermaid(files) {
  const { readFileSync } = await import('node:fs');
  const { page, seen, close } = await open();
  await page.setContent('<!doctype html><html><body></body></html>');
  await page.addScriptTag({ path: join(modules, 'mermaid/dist/mermaid.min.js') });
  const results = [];
  for (const [i, file] of files.entries()) {
    const text = readFileSync(file, 'utf8');
    results.push(await page.evaluate(async ({ text, i }) => {
      try {
        window.mermaid.initialize({ startOnLoad: false, flowchart: { htmlLabels: false } });
        await window.mermaid.parse(text);
        const { svg } = await window.mermaid.render('graph' + i, text);
        const doc = new DOMParser().parseFromString(svg, 'image/svg+xml');
        return {
          nodes: doc.querySelectorAll('g.node').length,
          clusters: doc.querySelectorAll('g.cluster').length,
          edges: doc.querySelectorAll('path.flowchart-link').length,
        };
      } catch (e) {
        return { error: String(e && e.message || e) };
      }
    }, { text, i }));
  }
  await close();
  return { results, errors: seen.errors, requests: seen.requests };
}

async function bench([site, runs, term]) {
  const out = [];
  for (let r = 0; r < Number(runs); r++) {
    const { page, seen, close } = await open();
    await page.goto(index(site));
    await ready(page);
    const t = await page.evaluate(() => ({
      ready: window.strataReady,
      nodes: window.strataGraph.nodes().length,
      // A large graph's edges are drawn on a canvas of their own (site.js).
      edges_drawn: window.strataEdgesDrawn ?? window.strataGraph.edges().length,
    }));
    // The search answers: the time from typing to the filtered list.
    const search = await page.evaluate((term) => {
      const start = performance.now();
      const input = document.getElementById('search');
      input.value = term;
      input.dispatchEvent(new Event('input'));
      const shown = [...document.querySelectorAll('tr[data-id]')].filter((row) => !row.hidden).length;
      const end = performance.now();
      return { ms: end - start, at: end, shown };
    }, term);
    // A click on a node opens its page.
    const id = await page.evaluate(() => window.strataGraph.nodes('[kind = "model"]').last().id());
    await page.evaluate((id) => window.strataGraph.fit(window.strataGraph.getElementById(id), 200), id);
    const point = await nodePoint(page, id);
    const before = Date.now();
    await Promise.all([page.waitForURL('**/models/*.html'), page.mouse.click(point.x, point.y)]);
    // Interactive: the graph drawn with its handlers on, and a search typed
    // then answered (the lists may still be arriving when the graph is up).
    const dcl = await page.evaluate(() => performance.timing.domContentLoadedEventEnd - performance.timing.navigationStart);
    out.push({ ...t, interactive: search.at, dom_content_loaded: dcl, search_ms: search.ms, shown: search.shown, click_to_page_ms: Date.now() - before, errors: seen.errors });
    await close();
  }
  return out;
}

const run = { site, mermaid, bench }[mode];
if (!run) {
  console.error(`unknown mode ${mode}`);
  process.exit(2);
}
run(rest).then((result) => {
  process.stdout.write(JSON.stringify(result) + '\n');
}, (e) => {
  console.error(e && e.stack || String(e));
  process.exit(1);
});
