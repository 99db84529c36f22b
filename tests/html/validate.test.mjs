// The Nu HTML Checker (vnu.jar, the W3C validator) finds no error in the HTML the host
// serves: both pages, the phrases page with a checked word (free, taken with its taker and
// alternatives, free but reading like a minted phrase), a phrase's page, and the 404 page. It
// refuses loopback URLs, so the pages are saved to files and checked in one run.
import { test, before, after } from '../support/test.mjs';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { startHost } from '../support/host.mjs';
import { samplePhrases } from '../support/sample-phrases.mjs';

const vnuJar = join(dirname(createRequire(import.meta.url).resolve('vnu-jar')), 'build/dist/vnu.jar');

const pages = [
  { name: 'home', path: '/', status: 200 },
  { name: 'words', path: '/words', status: 200 },
  { name: 'words-checked', path: '/words?check=abc', status: 200 },
  { name: 'words-taken', path: '/words?check=see%20you%20later', status: 200 },
  { name: 'words-lookalike', path: '/words?check=SEE%20Y0U%20LATER', status: 200 },
  { name: 'not-found', path: '/no-such-page', status: 404 },
  { name: 'phrase', path: `/words/${encodeURIComponent(samplePhrases[0].id)}`, status: 200 },
  { name: 'phrase-unknown', path: '/words/no-such-id', status: 404 },
];

let host;
let saveDir;
/** vnu's messages by page name. */
const messagesOf = new Map();

before(async () => {
  host = await startHost({ phrases: samplePhrases });
  saveDir = mkdtempSync(join(tmpdir(), 'lastwords-html-'));
  const files = [];
  for (const page of pages) {
    const response = await fetch(`${host.url}${page.path}`);
    assert.equal(response.status, page.status, `GET ${page.path}`);
    const file = join(saveDir, `${page.name}.html`);
    writeFileSync(file, await response.text());
    files.push(file);
    messagesOf.set(page.name, []);
  }
  for (const message of await runVnu(files)) {
    // vnu names a file `file:/tmp/...`: the file name is the page's name.
    const list = message.url && messagesOf.get(basename(new URL(message.url).pathname, '.html'));
    assert.ok(list, `vnu reported a message about a file it was not given: ${JSON.stringify(message)}`);
    list.push(message);
  }
});

after(async () => {
  await host?.stop();
  if (saveDir) rmSync(saveDir, { recursive: true, force: true });
});

for (const page of pages) {
  test(`the Nu HTML Checker finds no error in ${page.path}`, () => {
    const messages = messagesOf.get(page.name);
    assert.equal(messages.length, 0, `vnu on ${page.path}:\n${messages.map(describe).join('\n')}`);
  });
}

/** Runs vnu.jar over `files`, errors only; resolves to its JSON messages. */
function runVnu(files) {
  const args = ['-jar', vnuJar, '--errors-only', '--format', 'json', '--stdout', ...files];
  return new Promise((resolve, reject) => {
    execFile('java', args, { maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      // vnu exits 1 when it found errors; anything else, or no JSON, is a failure to check.
      if (error && error.code !== 1) {
        reject(new Error(`java ${args.join(' ')} failed (${error.code}):\n${stderr}`));
        return;
      }
      try {
        resolve(JSON.parse(stdout).messages);
      } catch (parseError) {
        reject(new Error(`vnu printed no JSON (${parseError.message}):\n${stdout}\n${stderr}`));
      }
    });
  });
}

function describe(message) {
  const where = message.lastLine ? `line ${message.lastLine}, column ${message.firstColumn ?? message.lastColumn}` : 'document';
  const extract = message.extract ? `\n    ${message.extract.replace(/\n/g, '⏎')}` : '';
  return `  ${message.type}${message.subType ? `/${message.subType}` : ''} at ${where}: ${message.message}${extract}`;
}
