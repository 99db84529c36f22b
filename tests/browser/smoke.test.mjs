// The walking skeleton in a real browser: server HTML before any script, clean
// hydration, and hostile phrases shown as text.
import { test, before, after } from '../support/test.mjs';
import assert from 'node:assert/strict';
import { startHost } from '../support/host.mjs';
import { launch, watchProblems } from '../support/browser.mjs';

const attack = '</script><script>alert(1)</script>';
// A phrase has at most 20 characters and is stored upper case: still markup to a parser.
const wordAttack = '<SCRIPT>ALERT(1)';
let host;
let browser;

before(async () => {
  host = await startHost({
    phrases: [
      { id: 'a1', word: 'SEE YOU LATER', name: 'Rex' },
      { id: 'b2', word: wordAttack, name: attack },
      { id: 'c3', word: 'GOOD LUCK!', name: 'Anky' },
    ],
  });
  browser = await launch();
});

after(async () => {
  await browser?.close();
  await host?.stop();
});

test('the server HTML carries the content before any script runs', async () => {
  const context = await browser.newContext({ javaScriptEnabled: false });
  const page = await context.newPage();
  await page.goto(`${host.url}/words`);
  assert.equal(await page.getByRole('heading', { level: 1 }).textContent(), 'Already-minted Last Words');
  assert.equal(await page.getByText('SEE YOU LATER').count(), 1);
  assert.equal(await page.getByText('By Anky').count(), 1);
  await page.goto(host.url);
  assert.ok(await page.locator('footer').getByText('THE END IS NEAR, HURRY UP!').isVisible());
  await context.close();
});

for (const path of ['/', '/words', '/missing-page']) {
  test(`${path} hydrates without a console error or hydration warning`, async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const problems = watchProblems(page);
    await page.goto(`${host.url}${path}`);
    await page.waitForSelector('html[data-hydrated="true"]', { timeout: 10_000 });
    // Let late effects (the live socket, deferred warnings) report anything they have.
    await page.waitForTimeout(300);
    // Chromium reports the document's own 404 status on the console; that one is the point.
    const expected = path === '/missing-page' ? [/status of 404/] : [];
    assert.deepEqual(problems.filter((p) => !expected.some((re) => re.test(p))), []);
    await context.close();
  });
}

test('a hostile phrase is shown literally and runs nothing', async () => {
  const context = await browser.newContext();
  const page = await context.newPage();
  const problems = watchProblems(page);
  let dialogs = 0;
  page.on('dialog', async (dialog) => {
    dialogs += 1;
    await dialog.dismiss();
  });
  await page.goto(`${host.url}/words`);
  await page.waitForSelector('html[data-hydrated="true"]');
  assert.equal(await page.getByText(wordAttack, { exact: true }).count(), 1, 'the phrase as text');
  assert.equal(await page.getByText(`By ${attack}`, { exact: true }).count(), 1, 'the name as text');
  assert.equal(await page.locator('script:not([src]):not([type="application/json"])').count(), 0);
  assert.equal(dialogs, 0);
  assert.deepEqual(problems, []);
  await context.close();
});
