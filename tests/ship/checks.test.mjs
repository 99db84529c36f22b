// The checks scripts/test runs refuse what they are there to refuse: the UI's linter a
// component that breaks the rules of hooks, and cargo deny a crate graph that brings
// OpenSSL back, a licence deny.toml does not allow, or a crate with an advisory. Each is
// run as scripts/test runs it (the UI's `npm run lint`, the repository's deny.toml) on a
// probe of its own, next to a clean probe that must pass, so a check that passes
// everything fails here. Nothing is fetched: the advisory database is one written here.
import { test } from '../support/test.mjs';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runProcess } from '../support/process.mjs';

const root = new URL('../../', import.meta.url).pathname;

/** `command` run to its end; its two outputs together, as a terminal would show them. */
async function run(command, args, options) {
  const { code, stdout, stderr } = await runProcess(command, args, options);
  return { code, output: stdout + stderr };
}

/** `npm run lint` on one component, given as ui/src/Probe.tsx without writing it there. */
const lint = (source) =>
  run('npm', ['run', '--silent', 'lint', '--', '--stdin', '--stdin-filename', 'src/Probe.tsx'], {
    cwd: join(root, 'ui'),
    input: source,
  });

test('the UI linter refuses a hook called conditionally and an effect missing a dependency', async () => {
  const clean = await lint(`import { useEffect, useState } from 'react';
export function Probe({ id }: { id: string }) {
  const [count, setCount] = useState(0);
  useEffect(() => {
    document.title = id;
  }, [id]);
  return <button onClick={() => setCount(count + 1)}>{count}</button>;
}
`);
  assert.equal(clean.code, 0, clean.output);

  const conditional = await lint(`import { useState } from 'react';
export function Probe({ open }: { open: boolean }) {
  if (open) {
    const [count] = useState(0);
    return <p>{count}</p>;
  }
  return null;
}
`);
  assert.notEqual(conditional.code, 0, 'a conditional useState passed the linter');
  assert.match(conditional.output, /react-hooks\/rules-of-hooks/);

  const stale = await lint(`import { useEffect } from 'react';
export function Probe({ id }: { id: string }) {
  useEffect(() => {
    document.title = id;
  }, []);
  return null;
}
`);
  assert.notEqual(stale.code, 0, 'an effect missing a dependency passed the linter');
  assert.match(stale.output, /react-hooks\/exhaustive-deps/);
});

/** A crate in `dir` with the given licence and `[dependencies]` lines. */
function crate(dir, name, license, dependencies = '') {
  mkdirSync(join(dir, name, 'src'), { recursive: true });
  writeFileSync(join(dir, name, 'src', 'lib.rs'), '');
  writeFileSync(
    join(dir, name, 'Cargo.toml'),
    `[package]\nname = "${name}"\nversion = "0.9.0"\nedition = "2024"\nlicense = "${license}"\n` +
      `publish = false\n\n[dependencies]\n${dependencies}`,
  );
}

const cargoDeny = (dir, config, check) =>
  run('cargo', ['deny', '--offline', '--manifest-path', join(dir, 'probe', 'Cargo.toml'), '--config', config, 'check', check], {
    cwd: dir,
  });

/**
 * cargo deny, with the repository's deny.toml, on a crate of its own whose one dependency
 * (by path, so nothing is fetched) has the given name and licence.
 */
async function deny(check, dependency, license) {
  const dir = mkdtempSync(join(tmpdir(), 'lastwords-deny-'));
  try {
    crate(dir, dependency, license);
    crate(dir, 'probe', 'MIT', `${dependency} = { path = "../${dependency}", version = "0.9.0" }\n`);
    return await cargoDeny(dir, join(root, 'deny.toml'), check);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('cargo deny refuses OpenSSL and a licence deny.toml does not allow', async () => {
  const clean = await deny('bans', 'plain-dependency', 'MIT');
  assert.equal(clean.code, 0, clean.output);
  for (const banned of ['openssl-sys', 'openssl', 'native-tls']) {
    const result = await deny('bans', banned, 'MIT');
    assert.notEqual(result.code, 0, `a dependency on ${banned} passed cargo deny`);
    assert.match(result.output, new RegExp(`crate '${banned} = 0\\.9\\.0' is explicitly banned`));
  }

  const allowed = await deny('licenses', 'plain-dependency', 'Apache-2.0');
  assert.equal(allowed.code, 0, allowed.output);
  const copyleft = await deny('licenses', 'plain-dependency', 'GPL-3.0-only');
  assert.notEqual(copyleft.code, 0, 'a GPL-3.0 dependency passed cargo deny');
  assert.match(copyleft.output, /GPL-3\.0-only/);
  assert.match(copyleft.output, /rejected/);
});

test('cargo deny refuses a crate with an advisory that deny.toml does not ignore', async () => {
  // Advisories are for crates from crates.io, so the probe depends on one the host's own
  // build has in cargo's cache (its version from Cargo.lock), and the database, which
  // cargo deny opens as a git repository, holds one advisory for it.
  const version = readFileSync(join(root, 'Cargo.lock'), 'utf8').match(/name = "hex"\nversion = "([^"]+)"/)?.[1];
  assert.ok(version, 'Cargo.lock has no hex');
  const dir = mkdtempSync(join(tmpdir(), 'lastwords-advisory-'));
  try {
    crate(dir, 'probe', 'MIT', `hex = "=${version}"\n`);
    const config = join(dir, 'deny.toml');
    writeFileSync(
      config,
      readFileSync(join(root, 'deny.toml'), 'utf8').replace(
        /^\[advisories\]\n/m,
        `[advisories]\ndb-path = "${join(dir, 'db')}"\ndb-urls = ["https://example.invalid/advisory-db"]\n`,
      ),
    );
    // Offline, cargo deny names the folder it would have fetched that database into.
    const missing = await cargoDeny(dir, config, 'advisories');
    const folder = missing.output.match(/advisory-db-[0-9a-f]+/)?.[0];
    assert.ok(folder, `cargo deny named no database folder:\n${missing.output}`);
    const db = join(dir, 'db', folder);
    const git = (...args) => run('git', ['-c', 'user.name=probe', '-c', 'user.email=probe@example.invalid', ...args], { cwd: db });
    mkdirSync(db, { recursive: true });
    assert.equal((await git('init', '-q')).code, 0);
    const advise = async (patched) => {
      mkdirSync(join(db, 'crates', 'hex'), { recursive: true });
      writeFileSync(
        join(db, 'crates', 'hex', 'RUSTSEC-2099-0001.md'),
        '```toml\n[advisory]\nid = "RUSTSEC-2099-0001"\npackage = "hex"\ndate = "2026-11-27"\n' +
          'url = "https://example.invalid/RUSTSEC-2099-0001"\ncategories = ["memory-corruption"]\n\n' +
          `[versions]\npatched = [${patched}]\n\`\`\`\n\n# A probe's advisory\n\nWritten by tests/ship/checks.test.mjs.\n`,
      );
      assert.equal((await git('add', '-A')).code, 0);
      assert.equal((await git('commit', '-q', '-m', `patched: ${patched}`)).code, 0);
    };

    await advise(`">= ${version}"`);
    const patched = await cargoDeny(dir, config, 'advisories');
    assert.equal(patched.code, 0, `an advisory for versions before the probe's failed it:\n${patched.output}`);

    await advise('');
    const vulnerable = await cargoDeny(dir, config, 'advisories');
    assert.notEqual(vulnerable.code, 0, 'a crate with an unpatched advisory passed cargo deny');
    assert.match(vulnerable.output, /error\[vulnerability\]: A probe's advisory/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
