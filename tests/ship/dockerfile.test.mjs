// Docker cannot run on our machines, so this proves from the outside what the image
// would do: each stage of the Dockerfile runs only the scripts and commands CI runs
// (scripts/setup, scripts/build, scripts/test), the runtime stage is small, non-root,
// listens on $PORT and checks its own health, and that HEALTHCHECK, run with the
// image's environment against the real binary, passes on a serving host and fails
// once it stops.
import { test } from '../support/test.mjs';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../support/free-port.mjs';
import { bin } from '../support/host.mjs';
import { runProcess } from '../support/process.mjs';

const root = new URL('../../', import.meta.url).pathname;
const read = (path) => readFileSync(join(root, path), 'utf8');

const stages = parseDockerfile(read('Dockerfile'));
const ignored = dockerignoreMatcher(read('.dockerignore'));
const stage = (name) => {
  const found = stages.find((s) => s.name === name);
  assert.ok(found, `the Dockerfile has no stage named ${name}`);
  return found;
};
const runtime = stages.at(-1);

test('the Dockerfile has a node, a rust and a runtime stage, in that order', () => {
  assert.deepEqual(
    stages.map((s) => [s.name, s.image.split(':')[0]]),
    [['ui', 'node'], ['host', 'rust'], ['runtime', runtime.image.split(':')[0]]],
  );
});

test('the UI stage uses the Node major CI runs and installs and builds as CI does', () => {
  const ui = stage('ui');
  const major = /^node:(\d+)\b/.exec(ui.image)?.[1];
  assert.equal(major, process.versions.node.split('.')[0], `${ui.image} against CI's Node ${process.version}`);

  // scripts/setup installs the UI's packages with scripts/npm-install; so does the image.
  assert.match(read('scripts/setup'), /^scripts\/npm-install ui$/m);
  assert.deepEqual(commandsOf(ui), [['scripts/npm-install ui'], ['cd ui', 'npm run --silent build']]);

  // ... and builds the UI with the command scripts/build and scripts/test run.
  for (const script of ['scripts/build', 'scripts/test']) {
    assert.ok(read(script).includes('(cd ui && npm run --silent build)'), `${script} builds the UI another way`);
  }
  assert.equal(JSON.parse(read('ui/package.json')).scripts.build, 'node build.mjs');
});

test('the host stage builds the release binary as scripts/build does, with ENGINE as the feature', () => {
  const host = stage('host');
  const runs = commandsOf(host);

  // The Debian packages scripts/setup installs for every build (cmake, libsimde-dev).
  const setupPackages = /^want=\(([^)]*)\)/m.exec(read('scripts/setup'))[1].split(/\s+/).filter(Boolean);
  const installed = runs.flat().filter((c) => c.startsWith('apt-get install')).join(' ').split(/\s+/);
  for (const pkg of setupPackages) assert.ok(installed.includes(pkg), `the host stage does not install ${pkg}`);

  // The toolchain file that keeps the engine's CMake build offline, where cargo finds it.
  const copied = host.instructions.filter((i) => i.keyword === 'COPY').map((i) => i.args);
  assert.ok(copied.some((a) => /^\.cargo\/? /.test(a) || a.startsWith('.cargo/config.toml ')), 'copies .cargo/config.toml');
  assert.ok(copied.some((a) => a.startsWith('scripts/offline.cmake ')), 'copies scripts/offline.cmake');
  assert.match(read('.cargo/config.toml'), /CMAKE_TOOLCHAIN_FILE = \{ value = "scripts\/offline.cmake"/);
  assert.ok(copied.includes('--from=ui /src/ui/dist/ ui/dist/'), 'embeds the UI stage\'s build');

  // cargo build: scripts/build's arguments, plus --locked and the engine feature.
  const build = runs.flat().find((c) => c.startsWith('cargo build'));
  assert.ok(build, 'the host stage runs cargo build');
  const scriptBuild = /^cargo build "\$\{profile\[@\]\}" (.*) "\$@"$/m.exec(read('scripts/build'));
  assert.ok(scriptBuild, 'scripts/build runs cargo build');
  const expected = ['cargo', 'build', '--release', ...scriptBuild[1].split(' '), '--locked', '--no-default-features', '--features', '"$ENGINE,firestore"'];
  assert.deepEqual(build.split(/\s+/).sort(), expected.sort());

  // ENGINE defaults to quickjs, the crate's default engine; v8 is its other engine,
  // the one scripts/test type-checks with --no-default-features --features v8. The image
  // has Firestore, a default feature scripts/run leaves out.
  assert.ok(host.instructions.some((i) => i.keyword === 'ARG' && i.args === 'ENGINE=quickjs'));
  const cargoToml = read('server/Cargo.toml');
  assert.match(cargoToml, /^default = \["quickjs", "firestore"\]$/m);
  assert.match(cargoToml, /^firestore = \["dep:firestore"(, "dep:[\w-]+")*\]$/m);
  assert.match(cargoToml, /^quickjs = /m);
  assert.match(cargoToml, /^v8 = /m);
  assert.ok(read('scripts/test').includes('--no-default-features --features v8'));

  // Nothing else: the build copies its binary out of the cache mount and stops there.
  const known = (c) => c.startsWith('apt-get ') || c === 'rm -rf /var/lib/apt/lists/*' || c === build
    || c === 'cp target/release/lastwords /usr/local/bin/lastwords';
  assert.deepEqual(runs.flat().filter((c) => !known(c)), [], 'commands CI does not run');

  const rustVersion = /^rust-version = "(\d+)\.(\d+)"/m.exec(read('Cargo.toml'));
  const [, major, minor] = /^rust:(\d+)\.(\d+)/.exec(host.image);
  assert.ok(
    Number(major) > Number(rustVersion[1]) || (major === rustVersion[1] && Number(minor) >= Number(rustVersion[2])),
    `${host.image} is older than the workspace's rust-version ${rustVersion[1]}.${rustVersion[2]}`,
  );
});

test('the runtime stage is slim, runs as a non-root user, listens on $PORT and checks its health', () => {
  assert.match(runtime.image, /^(debian:[a-z]+-slim|gcr\.io\/distroless\/)/);
  const args = (keyword) => runtime.instructions.filter((i) => i.keyword === keyword).map((i) => i.args);

  const user = args('USER').at(-1);
  assert.ok(user, 'the runtime stage sets USER');
  const [uid] = user.split(':');
  assert.ok(uid !== 'root' && uid !== '0', `USER ${user} is root`);

  assert.deepEqual(args('EXPOSE'), ['8080']);
  const env = imageEnv(runtime);
  assert.equal(env.PORT, '8080');
  assert.equal(env.HOST, '0.0.0.0');
  // The binary reads exactly these variables (each setting's declared env), so $PORT is honoured.
  const config = read('server/src/config/settings.rs');
  assert.match(config, /\bport: u16 = "\d+", env "PORT"/);
  assert.match(config, /\bhost: IpAddr = "[\d.]+", env "HOST"/);

  const binary = '/usr/local/bin/lastwords';
  assert.ok(args('COPY').includes(`--from=host ${binary} ${binary}`));
  assert.deepEqual(JSON.parse(args('ENTRYPOINT').at(-1)), [binary]);
  assert.deepEqual(healthcheck(runtime).command, [binary, 'healthcheck']);
  assert.match(healthcheck(runtime).options, /--interval=\d+s/);

  // Only system packages and the user: nothing is built here.
  const known = /^(apt-get |rm -rf \/var\/lib\/apt\/lists\/\*$|groupadd |useradd |mkdir |chown )/;
  assert.deepEqual(commandsOf(runtime).flat().filter((c) => !known.test(c)), []);
});

test('every COPY source is in the repository and not dropped by .dockerignore', () => {
  for (const s of stages) {
    for (const { keyword, args } of s.instructions) {
      if (keyword !== 'COPY' || args.startsWith('--from=')) continue;
      const sources = args.split(/\s+/).slice(0, -1);
      for (const source of sources.filter((p) => p !== '.')) {
        const path = source.replace(/\/$/, '');
        assert.ok(existsSync(join(root, path)), `COPY ${source} in stage ${s.name}: no such path`);
        assert.ok(!ignored(path), `COPY ${source} in stage ${s.name}: excluded by .dockerignore`);
      }
    }
  }
});

test('each build stage copies only what its build reads, so a host change leaves the UI stage cached', () => {
  const copied = (s) => s.instructions
    .filter((i) => i.keyword === 'COPY' && !i.args.startsWith('--from='))
    .flatMap((i) => i.args.split(/\s+/).slice(0, -1).map((source) => source.replace(/\/$/, '')));

  // The UI build reads its own folder only: the installer, then ui/'s package files,
  // build script, TypeScript settings and sources.
  const ui = copied(stage('ui'));
  assert.deepEqual(ui.filter((path) => path !== 'scripts/npm-install' && !path.startsWith('ui/')), [], 'the UI stage copies more than ui/');
  for (const needed of ['ui/package.json', 'ui/package-lock.json', 'ui/build.mjs', 'ui/tsconfig.json', 'ui/src']) {
    assert.ok(ui.includes(needed), `the UI stage does not copy ${needed}`);
  }
  assert.doesNotMatch(read('ui/build.mjs'), /"\.\."/, 'ui/build.mjs reads outside ui/, which the UI stage does not copy');

  // The host build: the workspace, cargo's settings, the toolchain file, the crate and
  // the static files it embeds (server/build.rs reads assets/).
  const host = copied(stage('host'));
  assert.deepEqual(host.sort(), ['.cargo', 'Cargo.lock', 'Cargo.toml', 'assets', 'scripts/offline.cmake', 'server']);
  assert.match(read('server/build.rs'), /\.\.\/assets/, 'server/build.rs embeds assets/');
});

test('.dockerignore keeps build outputs and installed packages out of the context', () => {
  for (const path of ['target', 'fuzz/target', 'node_modules', 'ui/node_modules', 'tests/node_modules', 'ui/dist', '.git']) {
    assert.ok(ignored(path), `${path} would be sent to the Docker daemon`);
  }
  for (const path of ['ui/src', 'server/src', 'scripts/npm-install', 'Cargo.lock', 'assets']) {
    assert.ok(!ignored(path), `${path} is needed by the build`);
  }
});

test("the image's HEALTHCHECK passes against a serving host and fails once it stops", async (t) => {
  const env = imageEnv(runtime);
  const dataDir = mkdtempSync(join(tmpdir(), 'lastwords-ship-'));
  t.after(() => rmSync(dataDir, { recursive: true, force: true }));
  const port = String(await freePort('0.0.0.0'));
  // The image's environment, with a free port and a temporary data folder.
  const hostEnv = { ...env, PORT: port, LASTWORDS_DATA_DIR: dataDir, RUST_LOG: 'warn' };
  const command = JSON.parse(runtime.instructions.findLast((i) => i.keyword === 'CMD').args);
  const server = spawn(bin, command, { env: cleanEnv(hostEnv), stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  server.stderr.on('data', (chunk) => (log += chunk));
  const exited = new Promise((resolve) => server.once('exit', (code) => resolve(code)));
  t.after(() => server.exitCode === null && server.kill('SIGKILL'));

  const [, ...check] = healthcheck(runtime).command;
  const probe = () => runProcess(bin, check, { env: cleanEnv(hostEnv) });
  const deadline = Date.now() + 30_000;
  let result = await probe();
  while (result.code !== 0) {
    assert.ok(Date.now() < deadline && server.exitCode === null, `never healthy: ${result.stderr}\n${log}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
    result = await probe();
  }

  server.kill('SIGTERM');
  assert.equal(await exited, 0, `a SIGTERM is a clean stop:\n${log}`);
  const stopped = await probe();
  assert.notEqual(stopped.code, 0, 'the health check passes with no server');
  assert.match(stopped.stderr, new RegExp(`127\\.0\\.0\\.1:${port}/healthz`));
});

// --- the Dockerfile, read as Docker reads it -------------------------------------------

/**
 * Stages of `text`: `{name, image, instructions: [{keyword, args}]}`. Comment lines go,
 * even inside a continued instruction, and continued lines are joined, as Docker does.
 */
function parseDockerfile(text) {
  const instructions = [];
  let pending = '';
  for (const line of text.split('\n')) {
    if (/^\s*#/.test(line)) continue;
    if (!pending && !line.trim()) continue;
    if (line.endsWith('\\')) {
      pending += `${line.slice(0, -1)} `;
      continue;
    }
    const whole = (pending + line).trim();
    pending = '';
    const [, keyword, args] = /^(\S+)\s*(.*)$/.exec(whole);
    instructions.push({ keyword: keyword.toUpperCase(), args: args.replace(/\s+/g, ' ').trim() });
  }
  const result = [];
  for (const instruction of instructions) {
    if (instruction.keyword === 'FROM') {
      const [image, as, name] = instruction.args.split(' ');
      result.push({ image, name: as?.toUpperCase() === 'AS' ? name : undefined, instructions: [] });
    } else {
      assert.ok(result.length, `${instruction.keyword} before the first FROM`);
      result.at(-1).instructions.push(instruction);
    }
  }
  return result;
}

/** Each RUN of `s` as its shell commands (split at `&&`), without BuildKit flags. */
function commandsOf(s) {
  return s.instructions
    .filter((i) => i.keyword === 'RUN')
    .map((i) => i.args.replace(/^(--\S+\s+)+/, '').split('&&').map((c) => c.trim()));
}

/** The ENV of a stage as an object (the `KEY=value ...` form). */
function imageEnv(s) {
  const env = {};
  for (const { keyword, args } of s.instructions) {
    if (keyword !== 'ENV') continue;
    for (const pair of args.split(' ')) {
      const [key, ...value] = pair.split('=');
      env[key] = value.join('=');
    }
  }
  return env;
}

/** The stage's HEALTHCHECK: its options and its exec-form command. */
function healthcheck(s) {
  const found = s.instructions.findLast((i) => i.keyword === 'HEALTHCHECK');
  assert.ok(found, 'the runtime stage has a HEALTHCHECK');
  const [, options, command] = /^(.*?)\s*CMD\s+(\[.*\])$/.exec(found.args) ?? [];
  assert.ok(command, `HEALTHCHECK ${found.args}: expected the exec form CMD ["...", ...]`);
  return { options, command: JSON.parse(command) };
}

/** Whether .dockerignore's patterns drop `path` (or a folder above it) from the context. */
function dockerignoreMatcher(text) {
  const patterns = text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('#'))
    .map((pattern) => {
      const negated = pattern.startsWith('!');
      const body = pattern.replace(/^!/, '').replace(/^\/+|\/+$/g, '');
      const source = body
        .split('/')
        .map((part) => (part === '**' ? '(?:.*/)?' : `${part.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*').replace(/\?/g, '[^/]')}/`))
        .join('')
        .replace(/\/$/, '');
      return { negated, regex: new RegExp(`^${source}$`) };
    });
  return (path) => {
    const parts = path.split('/');
    let excluded = false;
    for (let depth = 1; depth <= parts.length; depth++) {
      const prefix = parts.slice(0, depth).join('/');
      for (const { negated, regex } of patterns) if (regex.test(prefix)) excluded = !negated;
      if (excluded) return true;
    }
    return excluded;
  };
}

// --- helpers ------------------------------------------------------------------------

/** The test's own environment without settings that would override the image's. */
function cleanEnv(extra) {
  const env = { ...process.env };
  for (const key of Object.keys(env)) {
    if (key.startsWith('LASTWORDS_') || key === 'HOST' || key === 'PORT' || key === 'FIRESTORE_EMULATOR_HOST') delete env[key];
  }
  return { ...env, NO_COLOR: '1', ...extra };
}

