// The budgets of issue 4, measured against a running host: Lighthouse 12 (mobile and
// desktop presets) on /, /words and a phrase's page, and the bytes a first view of / costs. scripts/audit
// runs this after building; it needs LASTWORDS_BIN and `scripts/setup --audit`.
//
// Usage: node tests/audit/audit.mjs [--no-fail] [--url=URL] [--scale]
//   --url=URL  audit a host already serving at URL instead of starting one
//   --scale    for scripts/bench scale (issue 14): /words only, mobile only, and the
//              first view of /words at the narrowest layout (budget 150 KB)
// Prints a table, saves each Lighthouse report and a summary to tests/artifacts/lighthouse/,
// and exits 1 when a score is under 100 or a budget is exceeded (unless --no-fail).
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { startHost } from '../support/host.mjs';
import { launch, CHROMIUM_ARGS } from '../support/browser.mjs';
import { samplePhrases } from '../support/sample-phrases.mjs';

const KB = 1000;
const budgets = {
  firstViewTotalBytes: 200 * KB,
  firstViewScriptBytes: 80 * KB,
  cumulativeLayoutShift: 0,
  score: 100,
};
const pages = [
  { name: 'home', path: '/' },
  { name: 'words', path: '/words' },
  // The sample store's first phrase; on a host given by --url, its newest (below).
  { name: 'phrase', path: `/words/${encodeURIComponent(samplePhrases[0].id)}` },
];
const presets = ['mobile', 'desktop'];
const categories = ['performance', 'accessibility', 'best-practices', 'seo'];
/** The first view is measured at the narrowest and the widest layout: each loads its own art. */
const firstViewSizes = [
  { width: 390, height: 844 },
  { width: 1920, height: 1080 },
];

const reportDir = fileURLToPath(new URL('../artifacts/lighthouse/', import.meta.url));
const lighthouseBin = fileURLToPath(new URL('node_modules/lighthouse/cli/index.js', import.meta.url));
const chromePath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

const args = process.argv.slice(2);
const unknown = args.filter((arg) => !['--no-fail', '--scale'].includes(arg) && !arg.startsWith('--url='));
if (unknown.length) {
  console.error(`audit.mjs: unknown option ${unknown.join(' ')} (known: --no-fail, --url=URL, --scale)`);
  process.exit(2);
}
const failOnBudget = !args.includes('--no-fail');
const givenUrl = args.find((arg) => arg.startsWith('--url='))?.slice('--url='.length);
const scale = args.includes('--scale');
const audited = scale ? pages.filter((page) => page.name === 'words') : pages;
const auditedPresets = scale ? ['mobile'] : presets;
const firstViewPath = scale ? '/words' : '/';
const viewports = scale ? firstViewSizes.slice(0, 1) : firstViewSizes;
if (scale) budgets.firstViewTotalBytes = 150 * KB;

mkdirSync(reportDir, { recursive: true });
const host = givenUrl ? { url: givenUrl, stop: async () => {} } : await startHost({ phrases: samplePhrases });
const failures = [];
if (givenUrl) {
  const { phrases } = await (await fetch(`${givenUrl}/api/phrases?limit=1`)).json();
  const phrase = pages.find((page) => page.name === 'phrase');
  if (phrases.length) phrase.path = `/words/${encodeURIComponent(phrases[0].id)}`;
  else pages.splice(pages.indexOf(phrase), 1);
}
try {
  console.log(`host ${host.url}; load average ${loadavg().map((n) => n.toFixed(2)).join(' ')}`);
  const runs = [];
  for (const page of audited) {
    for (const preset of auditedPresets) {
      const started = Date.now();
      const report = await runLighthouse(page, preset);
      runs.push(readRun(page, preset, report));
      console.log(`lighthouse ${page.path} ${preset}: ${((Date.now() - started) / 1000).toFixed(1)} s`);
    }
  }
  const firstViews = [];
  for (const viewport of viewports) firstViews.push(await measureFirstView(firstViewPath, viewport));

  printRuns(runs);
  printFirstViews(firstViews);
  judge(runs, firstViews);
  const summary = { url: host.url, budgets, runs, firstViews, failures, loadAverage: loadavg() };
  writeFileSync(`${reportDir}${scale ? 'scale-' : ''}summary.json`, `${JSON.stringify(summary, null, 2)}\n`);
} finally {
  await host.stop();
}

console.log(`\nreports in ${reportDir}`);
if (failures.length) {
  console.log(`\n${failures.length} budget(s) failed:\n${failures.map((f) => `  - ${f}`).join('\n')}`);
  if (failOnBudget) process.exit(1);
} else {
  console.log('\nevery score is 100 and every budget holds');
}

// --- Lighthouse -----------------------------------------------------------------------

/**
 * Runs the Lighthouse CLI; resolves to its JSON report (also saved to a file). A run that
 * fails in Lighthouse itself (a trace it could not record: NO_NAVSTART) is run again,
 * once: one such run lost the whole audit.
 */
async function runLighthouse(page, preset) {
  try {
    return await runLighthouseOnce(page, preset);
  } catch (error) {
    console.log(`${error.message.split('\n')[0]}; running it again`);
    return runLighthouseOnce(page, preset);
  }
}

async function runLighthouseOnce(page, preset) {
  const output = `${reportDir}${scale ? 'scale-' : ''}${page.name}-${preset}.json`;
  const cliArgs = [
    lighthouseBin,
    `${host.url}${page.path}`,
    `--only-categories=${categories.join(',')}`,
    '--output=json',
    `--output-path=${output}`,
    `--chrome-flags=--headless=new ${CHROMIUM_ARGS.join(' ')}`,
    '--quiet',
  ];
  if (preset === 'desktop') cliArgs.push('--preset=desktop');
  const { code, stderr } = await run(process.execPath, cliArgs, { ...process.env, CHROME_PATH: chromePath });
  if (code !== 0) throw new Error(`lighthouse ${page.path} (${preset}) exited with ${code}:\n${stderr}`);
  const report = JSON.parse(readFileSync(output, 'utf8'));
  if (report.runtimeError) throw new Error(`lighthouse ${page.path} (${preset}): ${report.runtimeError.code} ${report.runtimeError.message}`);
  return report;
}

/** The figures of one report that the table and the budgets use. */
function readRun(page, preset, report) {
  const audits = report.audits;
  const requests = audits['network-requests']?.details?.items ?? [];
  const scores = Object.fromEntries(
    categories.map((id) => [id, report.categories[id]?.score == null ? null : Math.round(report.categories[id].score * 100)]),
  );
  // What keeps a category under 100: its weighted audits that did not pass.
  const shortfalls = {};
  for (const id of categories) {
    const failing = (report.categories[id]?.auditRefs ?? [])
      .filter((ref) => ref.weight > 0 && audits[ref.id]?.score !== null && audits[ref.id]?.score < 1)
      .map((ref) => `${ref.id} (${audits[ref.id].displayValue || `score ${audits[ref.id].score}`})`);
    if (failing.length) shortfalls[id] = failing;
  }
  return {
    page: page.path,
    preset,
    scores,
    cumulativeLayoutShift: audits['cumulative-layout-shift']?.numericValue ?? null,
    largestContentfulPaintMs: audits['largest-contentful-paint']?.numericValue ?? null,
    transferBytes: audits['total-byte-weight']?.numericValue ?? null,
    scriptTransferBytes: requests.filter((r) => r.resourceType === 'Script').reduce((sum, r) => sum + (r.transferSize ?? 0), 0),
    shortfalls,
    runtimeError: report.runtimeError?.message ?? null,
    warnings: report.runWarnings ?? [],
  };
}

// --- first view -----------------------------------------------------------------------

/**
 * Loads `path` in a fresh browser (empty cache) and sums the compressed bodies of every
 * response until the page has hydrated and gone quiet, by kind of resource.
 */
async function measureFirstView(path, viewport) {
  const browser = await launch();
  try {
    const context = await browser.newContext({ viewport });
    const page = await context.newPage();
    const finished = [];
    page.on('requestfinished', (request) => finished.push(request));
    await page.goto(`${host.url}${path}`, { waitUntil: 'load' });
    await page.waitForSelector('html[data-hydrated="true"]', { timeout: 10_000 });
    await page.waitForLoadState('networkidle');
    const byKind = {};
    let headerBytes = 0;
    for (const request of finished) {
      if (!/^https?:/.test(request.url())) continue;
      const sizes = await request.sizes();
      const kind = kindOf(request.resourceType());
      byKind[kind] ??= { requests: 0, bytes: 0 };
      byKind[kind].requests += 1;
      byKind[kind].bytes += sizes.responseBodySize;
      headerBytes += sizes.responseHeadersSize;
    }
    const totalBytes = Object.values(byKind).reduce((sum, kind) => sum + kind.bytes, 0);
    return { path, viewport: `${viewport.width}x${viewport.height}`, byKind, totalBytes, headerBytes };
  } finally {
    await browser.close();
  }
}

function kindOf(resourceType) {
  return { document: 'html', stylesheet: 'css', script: 'js', image: 'images', font: 'fonts' }[resourceType] ?? 'other';
}

// --- judging and printing -------------------------------------------------------------

function judge(runs, firstViews) {
  for (const r of runs) {
    const label = `${r.page} ${r.preset}`;
    if (r.runtimeError) failures.push(`${label}: Lighthouse could not measure: ${r.runtimeError}`);
    for (const id of categories) {
      if (r.scores[id] === null || r.scores[id] < budgets.score) {
        const why = r.shortfalls[id] ? `: ${r.shortfalls[id].join(', ')}` : '';
        failures.push(`${label}: ${id} ${r.scores[id] ?? 'not measured'} < ${budgets.score}${why}`);
      }
    }
    if (r.cumulativeLayoutShift !== budgets.cumulativeLayoutShift) {
      failures.push(`${label}: CLS ${r.cumulativeLayoutShift} > ${budgets.cumulativeLayoutShift}`);
    }
  }
  for (const view of firstViews) {
    const label = `first view of ${view.path} at ${view.viewport}`;
    if (view.totalBytes > budgets.firstViewTotalBytes) {
      failures.push(`${label}: ${kb(view.totalBytes)} in all > ${kb(budgets.firstViewTotalBytes)}`);
    }
    const scriptBytes = view.byKind.js?.bytes ?? 0;
    if (scriptBytes > budgets.firstViewScriptBytes) {
      failures.push(`${label}: ${kb(scriptBytes)} of JavaScript > ${kb(budgets.firstViewScriptBytes)}`);
    }
  }
}

function printRuns(runs) {
  console.log('\nLighthouse 12 (scores out of 100; bytes as transferred)\n');
  const rows = runs.map((r) => [
    r.page,
    r.preset,
    ...categories.map((id) => String(r.scores[id] ?? '—')),
    r.cumulativeLayoutShift === null ? '—' : String(Number(r.cumulativeLayoutShift.toFixed(4))),
    r.largestContentfulPaintMs === null ? '—' : `${Math.round(r.largestContentfulPaintMs)} ms`,
    r.transferBytes === null ? '—' : kb(r.transferBytes),
    kb(r.scriptTransferBytes),
  ]);
  printTable(['page', 'preset', 'perf', 'a11y', 'best-pr', 'SEO', 'CLS', 'LCP', 'transfer', 'JS transfer'], rows);
  for (const r of runs) {
    for (const [id, failing] of Object.entries(r.shortfalls)) console.log(`  ${r.page} ${r.preset} ${id}: ${failing.join(', ')}`);
    for (const warning of r.warnings) console.log(`  ${r.page} ${r.preset} warning: ${warning}`);
  }
}

function printFirstViews(firstViews) {
  console.log(`\nFirst view of ${firstViewPath} in a fresh browser (compressed response bodies)\n`);
  const kinds = ['html', 'css', 'js', 'images', 'fonts', 'other'];
  const rows = firstViews.map((view) => [
    view.path,
    view.viewport,
    ...kinds.map((kind) => (view.byKind[kind] ? `${kb(view.byKind[kind].bytes)} (${view.byKind[kind].requests})` : '—')),
    kb(view.totalBytes),
    kb(view.headerBytes),
  ]);
  printTable(['page', 'viewport', ...kinds.map((kind) => `${kind} (requests)`), 'total', '+ headers'], rows);
  console.log(
    `\nbudgets: total ≤ ${kb(budgets.firstViewTotalBytes)}, JS ≤ ${kb(budgets.firstViewScriptBytes)} ` +
      `(1 KB = ${KB} bytes), CLS ${budgets.cumulativeLayoutShift}, every score ${budgets.score}`,
  );
}

function printTable(header, rows) {
  const widths = header.map((title, i) => Math.max(title.length, ...rows.map((row) => row[i].length)));
  const line = (cells) => cells.map((cell, i) => (i < 2 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join('  ');
  console.log(line(header));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const row of rows) console.log(line(row));
}

function kb(bytes) {
  return `${(bytes / KB).toFixed(1)} KB`;
}

function run(command, commandArgs, env) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, commandArgs, { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, stderr }));
  });
}
