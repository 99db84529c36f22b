// docs/operations.md stays true to the binary: its configuration reference names every
// setting `lastwords --help` lists, and its metrics table every series /metrics serves.
import { test } from '../support/test.mjs';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bin, runCli, startHost } from '../support/host.mjs';

const operations = readFileSync(new URL('../../docs/operations.md', import.meta.url), 'utf8');
const section = (heading) => {
  const start = operations.indexOf(`## ${heading}\n`);
  assert.ok(start >= 0, `docs/operations.md has no "## ${heading}" section`);
  const end = operations.indexOf('\n## ', start + 1);
  return operations.slice(start, end < 0 ? undefined : end);
};

test('the configuration reference has a row for every flag and variable of --help', async () => {
  const help = await runCli(['--help']);
  assert.equal(help.code, 0, help.stderr);
  const reference = section('Configuration reference');
  const rows = reference.split('\n').filter((line) => line.startsWith('| `--'));
  const flags = [...help.stdout.matchAll(/^\s+(--[a-z0-9-]+)/gm)]
    .map((m) => m[1])
    .filter((flag) => !['--help', '--version', '--config'].includes(flag));
  assert.ok(flags.length > 10, `read ${flags.length} flags from ${bin} --help`);
  for (const flag of flags) {
    assert.ok(rows.some((row) => row.startsWith(`| \`${flag}\` |`)), `${flag} is missing from the table`);
  }
  for (const [, variable] of help.stdout.matchAll(/\[env: ([A-Z_]+)=/g)) {
    if (variable === 'LASTWORDS_CONFIG') continue;
    assert.ok(rows.some((row) => row.includes(`\`${variable}\``)), `${variable} is missing from the table`);
  }
  const documented = rows.map((row) => row.split('|')[1].trim().replaceAll('`', ''));
  assert.deepEqual(documented.filter((flag) => !flags.includes(flag)), [], 'rows for flags the binary no longer has');
});

test('every TOML key of the configuration reference is one the binary accepts', async (t) => {
  const rows = section('Configuration reference').split('\n').filter((line) => line.startsWith('| `--'));
  const keys = rows.map((row) => row.split('|')[3].trim().replaceAll('`', '')).filter((key) => /^[a-z_]+$/.test(key));
  assert.ok(keys.length > 10, `read ${keys.length} TOML keys`);
  const dir = mkdtempSync(join(tmpdir(), 'lastwords-keys-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  for (const key of keys) {
    // A value of the wrong type is fine here: the binary then names the key. What must
    // not happen is a key it does not know.
    const file = join(dir, 'lastwords.toml');
    writeFileSync(file, `${key} = "probe"\n`);
    const result = await runCli(['--config', file, 'config', 'check']);
    assert.doesNotMatch(result.stderr, /unknown field/, `${key}: ${result.stderr}`);
  }
  writeFileSync(join(dir, 'lastwords.toml'), 'environment = "staging"\n');
  const unknown = await runCli(['--config', join(dir, 'lastwords.toml'), 'config', 'check']);
  assert.match(unknown.stderr, /unknown field/, 'the check can tell an unknown key');
});

test('the metrics table lists every series /metrics serves', async (t) => {
  const host = await startHost();
  t.after(() => host.stop());
  const response = await fetch(`${host.url}/metrics`);
  assert.equal(response.status, 200);
  const served = [...(await response.text()).matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1]);
  assert.ok(served.length > 5, 'the host serves metrics');
  // The first column of the metrics table: `name{labels}` or `a`, `b`.
  const documented = section('Metrics and alerts')
    .split('\n')
    .filter((line) => /^\| `(lastwords|process)_/.test(line))
    .flatMap((row) => [...row.split('|')[1].matchAll(/`((?:lastwords|process)_[a-z_]+)/g)].map((m) => m[1]));
  for (const name of served) {
    assert.ok(documented.includes(name), `${name} is not in the metrics table of docs/operations.md`);
  }
});

test('the alerting rules name only series /metrics serves, and each rule has a name and an expression', async (t) => {
  const rules = readFileSync(new URL('../../docs/alerts.yml', import.meta.url), 'utf8');
  const host = await startHost();
  t.after(() => host.stop());
  // Labelled series appear with the first request that makes one.
  await (await fetch(`${host.url}/`)).arrayBuffer();
  const served = new Set([...(await (await fetch(`${host.url}/metrics`)).text()).matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1]));
  const named = new Set([...rules.matchAll(/\b((?:lastwords|process)_[a-z_]+)/g)].map((m) => m[1].replace(/_bucket$/, '')));
  assert.ok(named.size > 10, `read ${named.size} series from docs/alerts.yml`);
  for (const name of named) assert.ok(served.has(name), `docs/alerts.yml names ${name}, which /metrics does not serve`);
  const alerts = [...rules.matchAll(/^\s+- alert: (\S+)\n(?:\s+#.*\n)*\s+expr: (.+)$/gm)];
  assert.equal(alerts.length, [...rules.matchAll(/- alert:/g)].length, 'every rule has its expression next');
});

test('every bundled font ships with its licence, served at /fonts-license.txt', async (t) => {
  const ui = JSON.parse(readFileSync(new URL('../../ui/package.json', import.meta.url), 'utf8'));
  const fonts = Object.keys({ ...ui.dependencies, ...ui.devDependencies }).filter((name) => name.startsWith('@fontsource/'));
  const notice = readFileSync(new URL('../../assets/fonts-license.txt', import.meta.url), 'utf8');
  assert.ok(fonts.length >= 2, `read ${fonts.length} fonts from ui/package.json`);
  for (const font of fonts) assert.match(notice, new RegExp(`^- ${font}: \\S`, 'm'), `${font} and its copyright are in assets/fonts-license.txt`);
  assert.match(notice, /^SIL OPEN FONT LICENSE Version 1\.1/m, 'the licence text itself');
  const host = await startHost();
  t.after(() => host.stop());
  const served = await fetch(`${host.url}/fonts-license.txt`);
  assert.equal(served.status, 200);
  assert.equal(await served.text(), notice);
});
