// The phrases page at 10,000 phrases: one page served, the rest reached by scrolling
// (with the DOM kept small) or, without JavaScript, by rel=next links; find, the checker
// and live additions agree with the API.
import { test, before, after } from '../support/test.mjs';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { allPhrases, startHost } from '../support/host.mjs';
import { launch, openHydrated } from '../support/browser.mjs';
import { poll } from '../support/poll.mjs';

const TOTAL = 10_000;
/**
 * Up to this many phrases loaded, every card is in the document (ui/src/components/VirtualPhraseGrid.tsx,
 * ALL_CARDS_UP_TO); past it the grid renders what is near the viewport, so never many more.
 */
const ALL_CARDS = 300;
const MAX_CARDS = ALL_CARDS + 48;

let host;
let browser;
/** Every word, newest first, as the API pages them. */
let newestFirst;

before(async () => {
  const folder = mkdtempSync(join(tmpdir(), 'lastwords-scale-'));
  const file = join(folder, 'phrases.json');
  writeFileSync(file, JSON.stringify(Array.from({ length: TOTAL }, (_, i) => ({ word: `DINO ${i}`, name: `Fan ${i}` }))));
  host = await startHost({
    // These tests walk every page from one address as fast as they can, as no visitor
    // does: the rate limit (proxy.test.mjs) would slow them down, as it does a crawler.
    args: ['--rate-limit-per-s', '0'],
    prepare: async (cli) => {
      for (const args of [['phrases', 'init'], ['phrases', 'import', file]]) {
        const run = await cli(...args);
        assert.equal(run.code, 0, run.stderr);
      }
    },
  });
  rmSync(folder, { recursive: true, force: true });
  browser = await launch();
  newestFirst = await everyWord('');
  assert.equal(newestFirst.length, TOTAL);
});

after(async () => {
  await browser?.close();
  await host?.stop();
});

async function api(path) {
  const response = await fetch(`${host.url}${path}`);
  assert.equal(response.status, 200, path);
  return response.json();
}

/** The words of a list (or a find's matches), newest first, paged through the API. */
const everyWord = async (query) => (await allPhrases(host.url, query)).map((phrase) => phrase.word);

const decode = (text) => text.replace(/&quot;/g, '"').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&#x27;/g, "'").replace(/&amp;/g, '&');

/** Follows `<a rel="next">` from `path` to the last page, as a crawler would: the words of every page. */
async function chain(path) {
  const pages = [];
  let next = path;
  while (next !== null) {
    const response = await fetch(new URL(next, host.url));
    assert.equal(response.status, 200, next);
    const html = await response.text();
    const words = [...html.matchAll(/<li[^>]*><a href="[^"]*"><bdi>([^<]*)<\/bdi>/g)].map((match) => decode(match[1]));
    pages.push({ words, prev: /<a rel="prev" href="/.test(html) });
    const link = /<a rel="next" href="([^"]+)"/.exec(html);
    next = link ? decode(link[1]) : null;
    assert.ok(pages.length <= TOTAL, 'the chain ends');
  }
  return pages;
}

test('without JavaScript, pages chain by rel=next from the newest phrase to the oldest, each once', async () => {
  const pages = await chain('/words');
  assert.equal(pages.length, Math.ceil(TOTAL / 48));
  assert.ok(pages.every((page) => page.words.length <= 48));
  assert.deepEqual(pages.map((page) => page.prev), pages.map((_, i) => i > 0), 'every page but the first links back');
  assert.deepEqual(pages.flatMap((page) => page.words), newestFirst);

  // The no-script find form pages the same way through the phrases that contain the text.
  const found = await chain('/words?check=dino%2012');
  assert.deepEqual(found.flatMap((page) => page.words), await everyWord('DINO 12'));
  assert.equal(found.flatMap((page) => page.words).length, 111);
});

for (const viewport of [{ width: 390, height: 844 }, { width: 1440, height: 900 }]) {
  test(`at ${viewport.width} px nothing shifts as the served page becomes the live grid`, async () => {
    const context = await browser.newContext({ viewport });
    await context.addInitScript(() => {
      window.__shifts = [];
      new PerformanceObserver((list) => window.__shifts.push(...list.getEntries().map((entry) => entry.value)))
        .observe({ type: 'layout-shift', buffered: true });
    });
    const page = await context.newPage();
    await page.goto(`${host.url}/words`);
    await page.waitForSelector('html[data-hydrated="true"]');
    await page.locator('main ul[role="list"] > li[aria-posinset]').first().waitFor();
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
    assert.deepEqual(await page.evaluate(() => window.__shifts), []);
    await context.close();
  });
}

test('scrolling keeps every card in the document up to a few hundred, then reaches the oldest phrase with a bounded number', async () => {
  const { context, page, problems } = await openHydrated(browser, `${host.url}/words`, { width: 1440, height: 900 });
  assert.equal(await page.locator('main h2').first().innerText(), `${TOTAL.toLocaleString('en-US')} Last Words minted`.toUpperCase());
  const oldest = newestFirst.at(-1);
  const cards = page.locator('main ul[role="list"] > li');
  let most = 0;
  let windowed = false;
  for (let scrolls = 0; (await page.getByText(oldest, { exact: true }).count()) === 0; scrolls++) {
    assert.ok(scrolls < 2000, 'the oldest phrase comes into reach');
    const last = await cards.last().getAttribute('aria-posinset');
    await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
    await page.waitForFunction(
      ([before, word]) =>
        [...document.querySelectorAll('main li a > bdi')].some((bdi) => bdi.textContent === word) ||
        document.querySelector('main ul[role="list"] > li:last-child')?.getAttribute('aria-posinset') !== before,
      [last, oldest],
      { timeout: 5000 },
    );
    const count = await cards.count();
    const [first, lastShown] = await Promise.all([cards.first(), cards.last()].map((card) => card.getAttribute('aria-posinset').then(Number)));
    if (lastShown <= ALL_CARDS) {
      assert.equal(first, 1, `every card from the first while ${lastShown} are loaded`);
      assert.equal(count, lastShown, 'no card is left out');
    }
    windowed ||= first > 1;
    most = Math.max(most, count);
  }
  assert.ok(windowed, `past ${ALL_CARDS} phrases only the cards near the viewport stay`);
  const end = cards.filter({ hasText: oldest });
  assert.equal(await end.getAttribute('aria-posinset'), String(TOTAL));
  assert.equal(await end.getAttribute('aria-setsize'), String(TOTAL));
  assert.ok(most <= MAX_CARDS, `at most ${MAX_CARDS} cards in the document, saw ${most}`);
  assert.equal(await page.getByRole('button', { name: 'Load more' }).count(), 0, 'nothing more to load');
  assert.deepEqual(problems, []);
  await context.close();
});

/** How many cards are loaded once the page has stopped loading on by itself (a tall screen asks for a second page at once). */
async function settled(cards) {
  let count = await cards.count();
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const now = await cards.count();
    if (now === count) return count;
    count = now;
  }
}

test('a keyboard goes through the loaded cards to Load more and past the list: Tab loads nothing by itself', async () => {
  const { context, page, problems } = await openHydrated(browser, `${host.url}/words`, { width: 1280, height: 800 });
  const cards = page.locator('main ul[role="list"] > li');
  const loaded = await settled(cards);
  await page.getByLabel('Type & Check').focus();
  const onButton = () => page.evaluate(() => document.activeElement?.textContent === 'Load more');
  // The checker, each loaded card's link, then the button.
  for (let presses = 0; !(await onButton()); presses++) {
    assert.ok(presses < loaded + 10, `Load more within ${loaded + 10} presses of Tab; ${await cards.count()} cards now`);
    await page.keyboard.press('Tab');
  }
  // The button, focused, stays where the visitor sees it: the list does not load on under it.
  assert.equal(await cards.count(), loaded, 'nothing loaded on the way');
  const cardsThen = await cards.last().getAttribute('aria-posinset');
  await page.waitForTimeout(1500);
  assert.equal(await cards.last().getAttribute('aria-posinset'), cardsThen, 'nothing loaded while the button has the focus');
  const box = await page.evaluate(() => document.activeElement.getBoundingClientRect().toJSON());
  assert.ok(box.top >= 0 && box.bottom <= 800, `the focused button is on screen: ${JSON.stringify(box)}`);
  await page.keyboard.press('Tab');
  assert.ok(await page.evaluate(() => document.activeElement?.closest('footer') !== null), 'the footer comes next');
  assert.deepEqual(problems, []);
  await context.close();
});

test('Load more, focused, loads nothing by itself; pressed, it loads the next page and takes the focus to its first card', async () => {
  const { context, page, problems } = await openHydrated(browser, `${host.url}/words`, { width: 1280, height: 800 });
  const cards = page.locator('main ul[role="list"] > li');
  const loaded = await settled(cards);
  await page.getByRole('button', { name: 'Load more' }).focus();
  await page.waitForTimeout(1500);
  assert.equal(await cards.count(), loaded, 'nothing loaded as the button came into view with the focus');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => document.activeElement?.tagName === 'LI', null, { timeout: 5000 });
  const position = await page.evaluate(() => document.activeElement.getAttribute('aria-posinset'));
  assert.equal(position, String(loaded + 1), 'the first of the cards it loaded');
  assert.deepEqual(problems, []);
  await context.close();
});

test('find shows what the API finds, and the checker says what the API says', async () => {
  const { context, page, problems } = await openHydrated(browser, `${host.url}/words`, { width: 1440, height: 900 });
  const input = page.getByLabel('Type & Check');
  const status = page.locator('p[aria-live="polite"]');
  const shown = () => page.locator('main ul[role="list"] > li a > bdi').allInnerTexts();

  // Many phrases contain it; the phrase itself is among the oldest, beyond what the page holds.
  await input.pressSequentially('dino 12');
  const matches = (await api('/api/phrases?q=DINO%2012&limit=200')).phrases.map((phrase) => phrase.word);
  await page.waitForFunction((first) => document.querySelector('main ul[role="list"] li a > bdi')?.textContent === first, matches[0]);
  const visible = await shown();
  assert.deepEqual(visible, matches.slice(0, visible.length));
  assert.equal((await api('/api/phrases/check?word=DINO%2012')).available, false);
  await page.waitForFunction(() => document.querySelector('p[aria-live="polite"]')?.textContent === 'Already taken');

  await input.fill('');
  await input.pressSequentially('dino 12345');
  assert.equal((await api('/api/phrases/check?word=DINO%2012345')).available, true);
  await page.waitForFunction(() => document.querySelector('p[aria-live="polite"]')?.textContent === 'It is available!');
  assert.equal((await api('/api/phrases?q=DINO%2012345')).phrases.length, 0);
  await page.getByText('No minted Last Words contain “DINO 12345”.').waitFor();

  // An emptied box restores the newest-first list.
  await input.fill('');
  await page.waitForFunction((first) => document.querySelector('main ul[role="list"] li a > bdi')?.textContent === first, newestFirst[0]);
  assert.equal(await status.innerText(), 'Type something');
  assert.deepEqual(problems, []);
  await context.close();
});

test('on a later page, a find typed and emptied brings back that page, and its address with it', async () => {
  const served = await (await fetch(`${host.url}/words`)).text();
  const later = new URL(/<a rel="next" href="([^"]+)"/.exec(served)[1].replaceAll('&amp;', '&'), host.url);
  const { context, page, problems } = await openHydrated(browser, later.href, { width: 1440, height: 900 });
  const input = page.getByLabel('Type & Check');
  const top = await page.locator('main ul[role="list"] li a > bdi').first().textContent();
  await input.pressSequentially('dino 12');
  await page.waitForURL((url) => url.searchParams.get('check') === 'dino 12' && !url.searchParams.has('after'));
  await input.fill('');
  await page.waitForFunction((first) => document.querySelector('main ul[role="list"] li a > bdi')?.textContent === first, top);
  await page.waitForURL((url) => url.searchParams.get('after') === later.searchParams.get('after') && !url.searchParams.has('check'));
  // So a reload shows what was shown.
  await page.reload();
  await page.waitForSelector('html[data-hydrated="true"]');
  assert.equal(await page.locator('main ul[role="list"] li a > bdi').first().textContent(), top);
  assert.deepEqual(problems, []);
  await context.close();
});

test('a phrase added with the CLI while the page is open appears at the top, and the count goes up', async () => {
  const { context, page, problems } = await openHydrated(browser, `${host.url}/words`, { width: 390, height: 844 });
  const before = (await api('/api/phrases?limit=1')).count;
  const added = await host.cli('phrases', 'add', 'FRESH FROM THE CLI', '--name', 'Tess');
  assert.equal(added.code, 0, added.stderr);
  await page.waitForFunction(() => document.querySelector('main li a > bdi')?.textContent === 'FRESH FROM THE CLI', null, { timeout: 3000 });
  await page.getByText(`${(before + 1).toLocaleString('en-US')} Last Words minted`).waitFor({ timeout: 3000 });
  assert.deepEqual(problems, []);
  await context.close();
});

/** A host of its own with 100 phrases, for a test that changes them. */
const hundredPhrases = () =>
  startHost({
    phrases: Array.from({ length: 100 }, (_, i) => ({ id: `p${String(i).padStart(3, '0')}`, word: `DINO ${i}`, name: 'Fan' })),
  });

test('every phrase loaded removed while a find shows: an emptied box shows the next ones, not "none minted"', async () => {
  const small = await hundredPhrases();
  try {
    const { context, page, problems } = await openHydrated(browser, `${small.url}/words`, { width: 390, height: 844 });
    const shown = () => page.locator('main ul[role="list"] a > bdi').allTextContents();
    const loaded = await shown();
    assert.equal(loaded.length, 48);
    const input = page.getByLabel('Type & Check');
    await input.fill('QQQ');
    await page.getByText('No minted Last Words contain').waitFor();
    const first = await (await fetch(`${small.url}/api/phrases?limit=48`)).json();
    for (const { id } of first.phrases) assert.equal((await small.cli('phrases', 'remove', id)).code, 0);
    await page.getByRole('heading', { name: '52 Last Words minted' }).waitFor();
    await input.fill('');
    const rest = (await (await fetch(`${small.url}/api/phrases?limit=48`)).json()).phrases.map((p) => p.word);
    await poll(shown, (words) => words.length > 0, 5000, 'the next page shown');
    assert.deepEqual((await shown()).slice(0, rest.length), rest);
    assert.equal(await page.getByText('No Last Words minted yet').count(), 0);
    assert.deepEqual(problems, []);
    await context.close();
  } finally {
    await small.stop();
  }
});

test('a phrase removed while the next page is on its way is not shown when it comes, nor called taken', async () => {
  const small = await hundredPhrases();
  try {
    const { context, page, problems } = await openHydrated(browser, `${small.url}/words`, { width: 1440, height: 900 });
    const all = (await (await fetch(`${small.url}/api/phrases?limit=100`)).json()).phrases;
    const doomed = all[60];
    // The next page takes its time, as on a slow phone connection; the removal comes meanwhile.
    let asked;
    const asking = new Promise((resolve) => (asked = resolve));
    await page.route(/\/api\/phrases\?.*after=/, async (route) => {
      // Made by the host before the removal, delivered after it.
      const response = await route.fetch();
      asked();
      await new Promise((resolve) => setTimeout(resolve, 1500));
      await route.fulfill({ response });
    });
    await page.getByRole('button', { name: 'Load more' }).click();
    await asking;
    assert.equal((await small.cli('phrases', 'remove', doomed.id)).code, 0);
    await page.getByRole('heading', { name: '99 Last Words minted' }).waitFor();
    await poll(() => page.locator('main ul[role="list"] a > bdi').allTextContents(), (words) => words.length >= 95, 10_000, 'the next page');
    const words = await page.locator('main ul[role="list"] a > bdi').allTextContents();
    assert.ok(!words.includes(doomed.word), `${doomed.word} was removed before its page came`);
    assert.equal(new Set(words).size, words.length, 'no phrase twice');
    await page.getByLabel('Type & Check').fill(doomed.word.toLowerCase());
    await page.waitForFunction(() => document.querySelector('p[aria-live="polite"]')?.textContent === 'It is available!', null, { timeout: 5000 });
    assert.deepEqual(problems, []);
    await context.close();
  } finally {
    await small.stop();
  }
});

test('a visitor deep in the list keeps what is loaded and their place when the host restarts under them, and sees what changed below meanwhile', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'lastwords-restart-'));
  const phrases = Array.from({ length: 400 }, (_, i) => ({ id: `r${String(i).padStart(3, '0')}`, word: `KEPT ${i}`, name: 'Fan' }));
  let running = await startHost({ dataDir, phrases });
  const port = Number(new URL(running.url).port);
  try {
    const { context, page } = await openHydrated(browser, `${running.url}/words`, { width: 390, height: 844 });
    const cards = page.locator('main ul[role="list"] > li');
    // Three pages loaded by scrolling, then the visitor reads the 120th card.
    while ((await cards.count()) < 144) {
      const before = await cards.count();
      await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
      await page.waitForFunction((n) => document.querySelectorAll('main ul[role="list"] > li').length > n, before, { timeout: 5000 });
    }
    const loaded = await settled(cards);
    await cards.nth(119).evaluate((card) => card.scrollIntoView({ block: 'start' }));
    const reading = () => page.evaluate(() => {
      const top = [...document.querySelectorAll('main ul[role="list"] > li')].find((li) => li.getBoundingClientRect().bottom > 0);
      return top?.querySelector('a > bdi')?.textContent;
    });
    const word = await reading();
    assert.equal(word, 'KEPT 280');

    await running.stop();
    // Removed while no host could say so: a restarted host's versions are new, so its
    // socket sends the first page, and what was loaded below it is asked for again.
    const removed = await running.cli('phrases', 'remove', 'r260');
    assert.equal(removed.code, 0, removed.stderr);
    running = await startHost({ dataDir, port });
    // The page comes back on its own; a phrase minted now shows once it has.
    const added = await running.cli('phrases', 'add', 'AFTER THE RESTART', '--name', 'Ops');
    assert.equal(added.code, 0, added.stderr);
    await page.waitForFunction(() => document.querySelector('main li a > bdi')?.textContent === 'AFTER THE RESTART', null, { timeout: 30_000 });
    await page.waitForFunction(() => ![...document.querySelectorAll('main li a > bdi')].some((bdi) => bdi.textContent === 'KEPT 260'), null, { timeout: 10_000 });
    assert.equal(await cards.count(), loaded, 'every card loaded is still there but the one removed, and the new one');
    assert.equal(await reading(), word, 'the visitor reads the card they were reading');
    await context.close();
  } finally {
    await running.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

/** The position of the last card loaded. */
const lastLoaded = (page) => page.evaluate(() => Number(document.querySelector('main ul[role="list"] > li:last-child')?.getAttribute('aria-posinset')));

/** Scrolls to the end, page by page, until `enough(loaded)` holds of the last card loaded. */
async function scrollUntil(page, enough) {
  while (!enough(await lastLoaded(page))) {
    const before = await lastLoaded(page);
    await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
    await page.waitForFunction((n) => Number(document.querySelector('main ul[role="list"] > li:last-child')?.getAttribute('aria-posinset')) > n, before, { timeout: 5000 });
  }
}

/** The card at the top of the viewport, and where it is. */
const reading = (page) => page.evaluate(() => {
  const top = [...document.querySelectorAll('main ul[role="list"] > li')].find((li) => li.getBoundingClientRect().top >= 0);
  return { word: top?.querySelector('a > bdi')?.textContent, top: Math.round(top?.getBoundingClientRect().top ?? -1) };
});

test('past the few hundred cards kept in the document, the card being read moved to the top by a hand-written time does not carry the reader off', async () => {
  const { context, page } = await openHydrated(browser, `${host.url}/words`, { width: 1280, height: 900 });
  const store = join(host.dataDir, 'phrases.sqlite3');
  const sql = (statement) => execFileSync('sqlite3', [store, statement], { encoding: 'utf8' }).trim();
  let moved;
  let created;
  try {
    await scrollUntil(page, (loaded) => loaded >= 400);
    await page.evaluate(() => window.scrollBy(0, -2000));
    await page.waitForTimeout(500);
    // The first card of the row at the top edge: the one the grid follows as the list changes.
    moved = await page.evaluate(() => [...document.querySelectorAll('main ul[role="list"] > li')].find((li) => li.getBoundingClientRect().bottom > 0)?.querySelector('a > bdi')?.textContent);
    const scrolled = await page.evaluate(() => window.scrollY);
    created = sql(`SELECT created FROM phrases WHERE word = '${moved}'`);
    sql(`UPDATE phrases SET created = (SELECT MAX(created) FROM phrases) + 10 WHERE word = '${moved}'`);
    await poll(async () => (await api('/api/phrases?limit=1')).phrases[0].word, (word) => word === moved, 5000, 'the move served');
    await page.waitForFunction((word) => ![...document.querySelectorAll('main ul[role="list"] > li a > bdi')].some((bdi) => bdi.textContent === word && bdi.getBoundingClientRect().top > 0), moved, { timeout: 5000 });
    await page.waitForTimeout(500);
    const now = await page.evaluate(() => window.scrollY);
    assert.ok(Math.abs(now - scrolled) < 300, `the reader stays near ${scrolled}, not carried to the top with ${moved}: ${now}`);
  } finally {
    if (created !== undefined) sql(`UPDATE phrases SET created = ${created} WHERE word = '${moved}'`);
    await context.close();
  }
});

test('a next page that could not load while offline loads by itself once the browser is back online', async () => {
  const { context, page } = await openHydrated(browser, `${host.url}/words`, { width: 360, height: 740 });
  try {
    const before = await lastLoaded(page);
    await context.setOffline(true);
    await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
    await page.getByRole('button', { name: 'Could not load: try again' }).waitFor({ timeout: 5000 });
    assert.equal(await lastLoaded(page), before);
    await context.setOffline(false);
    await page.waitForFunction((n) => Number(document.querySelector('main ul[role="list"] > li:last-child')?.getAttribute('aria-posinset')) > n, before, { timeout: 5000 });
    assert.equal(await page.getByRole('button', { name: 'Could not load: try again' }).count(), 0);
  } finally {
    await context.close();
  }
});

test('phrases minted on top that take the loaded list past the cards kept in the document leave the card being read where it is', async () => {
  const { context, page } = await openHydrated(browser, `${host.url}/words`, { width: 390, height: 844 });
  const burst = 13;
  await scrollUntil(page, (loaded) => loaded > ALL_CARDS - burst);
  const shown = await lastLoaded(page);
  assert.ok(shown <= ALL_CARDS && shown + burst > ALL_CARDS, `${shown} loaded: every card in the document, until the burst`);
  await page.evaluate(() => window.scrollBy(0, -3000));
  await page.waitForTimeout(500);
  const before = await reading(page);
  const folder = mkdtempSync(join(tmpdir(), 'lastwords-burst-'));
  const file = join(folder, 'burst.json');
  const words = Array.from({ length: burst }, (_, i) => `BURST ${i}`);
  writeFileSync(file, JSON.stringify(words.map((word) => ({ word, name: 'Live' }))));
  const minted = (await api('/api/phrases?limit=1')).count;
  try {
    const run = await host.cli('phrases', 'import', file);
    assert.equal(run.code, 0, run.stderr);
    await page.waitForFunction((n) => document.querySelector('main h2')?.textContent?.includes(n), (minted + burst).toLocaleString('en-US'), { timeout: 5000 });
    await page.waitForTimeout(300);
    assert.ok(Number(await page.locator('main ul[role="list"] > li').first().getAttribute('aria-posinset')) > 1, 'the grid is windowed now');
    assert.deepEqual(await reading(page), before, `after ${burst} phrases on top`);
  } finally {
    rmSync(folder, { recursive: true, force: true });
    const ids = (await allPhrases(host.url, 'BURST')).filter((phrase) => words.includes(phrase.word)).map((phrase) => phrase.id);
    for (const id of ids) assert.equal((await host.cli('phrases', 'remove', id)).code, 0);
    await context.close();
  }
});

test('past the few hundred cards kept in the document, phrases minted on top leave the card being read where it is, in one column or four', async () => {
  for (const { width, height } of [{ width: 390, height: 844 }, { width: 1280, height: 900 }]) {
    const { context, page } = await openHydrated(browser, `${host.url}/words`, { width, height });
    const cards = page.locator('main ul[role="list"] > li');
    const added = [];
    try {
      await scrollUntil(page, (loaded) => loaded >= 400);
      await page.evaluate(() => window.scrollBy(0, -2000));
      await page.waitForTimeout(500);
      const before = await reading(page);
      assert.ok(Number(await cards.first().getAttribute('aria-posinset')) > 1, 'the grid is windowed');
      // Where that card is: with several columns a phrase minted on top moves it along its row.
      const topOf = (word) => page.evaluate((word) => {
        const card = [...document.querySelectorAll('main ul[role="list"] a > bdi')].find((bdi) => bdi.textContent === word)?.closest('li');
        return card === undefined ? null : Math.round(card.getBoundingClientRect().top);
      }, word);
      const minted = (await api('/api/phrases?limit=1')).count;
      // Enough to move it down a row or two in four columns.
      for (let i = 0; i < 6; i++) {
        const word = `ON TOP ${width} ${i}`;
        const run = await host.cli('phrases', 'add', word, '--name', 'Live');
        assert.equal(run.code, 0, run.stderr);
        added.push(run.stdout.split(' ')[1]);
        await page.waitForFunction((n) => document.querySelector('main h2')?.textContent?.includes(n), (minted + added.length).toLocaleString('en-US'), { timeout: 5000 });
        await page.waitForTimeout(300);
        const top = await topOf(before.word);
        assert.ok(top !== null && Math.abs(top - before.top) <= 1, `${width} px, after ${word}: ${before.word} at ${top}, was ${before.top}`);
      }
      // And as they are removed again, above it: in several columns the grid keeps one
      // phrase of a row in place, and the others move along it and at most a row, never
      // further with each change.
      const pitch = await page.evaluate(() => {
        const [a, b] = [...document.querySelectorAll('main ul[role="list"] > li')].map((li) => li.getBoundingClientRect().top).filter((top, i, all) => all.indexOf(top) === i);
        return Math.round(b - a);
      });
      while (added.length > 0) {
        const id = added.pop();
        assert.equal((await host.cli('phrases', 'remove', id)).code, 0);
        await page.waitForFunction((n) => document.querySelector('main h2')?.textContent?.includes(n), (minted + added.length).toLocaleString('en-US'), { timeout: 5000 });
        await page.waitForTimeout(300);
        const top = await topOf(before.word);
        assert.ok(top !== null && Math.abs(top - before.top) <= (width > 640 ? pitch : 1), `${width} px, after removing ${id}: ${before.word} at ${top}, was ${before.top}`);
      }
    } finally {
      for (const id of added) assert.equal((await host.cli('phrases', 'remove', id)).code, 0);
      await context.close();
    }
  }
});

test('Back to the list from a phrase deep in it, or a reload, brings the visitor to the card they were reading, phrases minted meanwhile', async () => {
  // The browser loads the page afresh (these tests keep no back-forward cache): the host's
  // first page only, where its own restoring of the scroll would stop.
  for (const { width, height, loaded } of [{ width: 390, height: 844, loaded: 400 }, { width: 1280, height: 900, loaded: 150 }]) {
    const { context, page, problems } = await openHydrated(browser, `${host.url}/words`, { width, height });
    const added = [];
    try {
      await scrollUntil(page, (n) => n >= loaded);
      await page.evaluate(() => window.scrollBy(0, -1500));
      await page.waitForTimeout(500);
      // Minted while the visitor reads: held above the list in four columns (a note says
      // so), put in above them in one; either way in the page they come back to.
      for (let i = 0; i < 3; i++) {
        const run = await host.cli('phrases', 'add', `HELD ${width} ${i}`, '--name', 'Live');
        assert.equal(run.code, 0, run.stderr);
        added.push(run.stdout.split(' ')[1]);
      }
      if (width > 640) await page.getByRole('button', { name: 'Show 3 new' }).waitFor({ timeout: 5000 });
      else await page.waitForTimeout(1000);
      const before = await reading(page);
      // Where that card is now: with several columns, the phrases minted on top move it
      // along its row.
      const topOf = (word) => page.evaluate((word) => {
        const card = [...document.querySelectorAll('main ul[role="list"] a > bdi')].find((bdi) => bdi.textContent === word)?.closest('li');
        return card === undefined ? null : Math.round(card.getBoundingClientRect().top);
      }, word);
      const back = async (how) => {
        await page.waitForSelector('html[data-hydrated="true"]');
        await poll(() => topOf(before.word), (top) => top === before.top, 5000, `${how} at ${width} px: ${before.word} at ${before.top}`);
        await page.waitForTimeout(300);
        assert.equal(await topOf(before.word), before.top, `${how} at ${width} px`);
      };
      // Clicked where it is: a click of Playwright's would scroll the card into view first.
      await page.evaluate(() => [...document.querySelectorAll('main ul[role="list"] > li')].find((li) => li.getBoundingClientRect().top > 0).querySelector('a').click());
      await page.waitForURL(/\/words\/[^/?]+$/);
      for (const word of [`MINTED AWAY ${width}`, `AND ONE MORE ${width}`]) {
        const run = await host.cli('phrases', 'add', word, '--name', 'Live');
        assert.equal(run.code, 0, run.stderr);
        added.push(run.stdout.split(' ')[1]);
      }
      await page.goBack();
      await back('Back');
      await page.reload();
      await back('a reload');
      // And the list goes on from there as before.
      const last = await lastLoaded(page);
      await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
      await page.waitForFunction((n) => Number(document.querySelector('main ul[role="list"] > li:last-child')?.getAttribute('aria-posinset')) > n, last, { timeout: 5000 });
      assert.deepEqual(problems, []);
    } finally {
      for (const id of added) assert.equal((await host.cli('phrases', 'remove', id)).code, 0);
      await context.close();
    }
  }
});
