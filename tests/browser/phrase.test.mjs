// A phrase's own page in Chromium: reached from the list with and without JavaScript,
// shared with and without the Web Share API, told live when its phrase is removed and
// minted again, its headline broken only between words; and every card of a short list
// in the document.
import { test, before, after } from '../support/test.mjs';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startHost } from '../support/host.mjs';
import { launch, openHydrated, watchProblems } from '../support/browser.mjs';
import { brokenWords, touchingEmojiLines } from './text-lines.mjs';

const PHRASES = [
  { id: 'a.b ü', word: 'SEE YOU LATER', name: '<b>Rex</b> "the" king' },
  { id: '100%', word: 'TOO BIG TO FAIL', name: 'שלום Bronto' },
  { id: 'c3', word: 'GOOD LUCK!', name: 'Anky' },
  { id: 'd4', word: 'MORE TREES', name: 'Stego' },
  { id: 'e5', word: 'WAS THAT A COMET?', name: 'Trixie' },
  { id: 'f6', word: 'RAWR', name: 'T' },
  { id: 'g7', word: 'EXTINCTIONISFOREVER!', name: 'Dippy' },
  { id: 'h8', word: 'WOMBATSWALKWOBBLY', name: 'Ptera' },
  { id: 'i9', word: 'CATASTROPHE', name: 'Spino' },
  { id: 'j10', word: 'METEORSHOWER', name: 'Tess' },
  { id: 'k11', word: 'HUMMINGBIRDS', name: 'Ankylo' },
  { id: 'l12', word: 'PTERODACTYLS', name: 'Rex' },
  { id: 'm13', word: 'MAMMOTHS WELCOME', name: 'Bronto' },
  { id: 'n14', word: 'WWWWWWWWWWWWWWWWWWWW', name: 'Wide' },
  { id: 'o15', word: 'ÇA VA, ÉTÉ MEURTRIER', name: 'Amélie' },
  { id: 'p16', word: '%&MW@%&MW@%&MW@%&MW@', name: 'Marks' },
  { id: 'q17', word: 'ЩЩЩЩЩЩЩЩЩЩЩЩЩЩЩЩЩЩЩЩ', name: 'Кирилл' },
  { id: 'r18', word: '🦖🦕🦖🦕🦖🦕🦖🦕🦖🦕🦖🦕🦖🦕🦖🦕🦖🦕🦖🦕', name: 'Emoji' },
  { id: 's19', word: '🦖1\uFE0F\u20E3🦕2\uFE0F\u20E3🦖3\uFE0F\u20E3🦕4\uFE0F\u20E3🦖5\uFE0F\u20E3🦕6\uFE0F\u20E3🦖7\uFE0F\u20E3🦕8\uFE0F\u20E3🦖9\uFE0F\u20E3🦕0\uFE0F\u20E3', name: 'Keycaps' },
  // Wider than the estimate knows (1.65 em each): measured once the page is live.
  { id: 't20', word: 'ⅧⅧⅧⅧⅧⅧⅧⅧⅧⅧ', name: 'Roman' },
  // Written right to left: two lines on a phone, one on a desktop.
  { id: 'u21', word: 'مرحبا بالعالم الجميل', name: 'سارة' },
  { id: 'v22', word: 'שלום עולם יפה מאוד', name: 'דן' },
];
const PHONE = { width: 390, height: 844 };

let host;
let browser;

before(async () => {
  host = await startHost({ phrases: PHRASES });
  browser = await launch();
});

after(async () => {
  await browser?.close();
  await host?.stop();
});

const pagePath = (id) => `/words/${encodeURIComponent(id)}`;

test('every card on /words links to its page, with and without JavaScript', async () => {
  for (const javaScriptEnabled of [true, false]) {
    const context = await browser.newContext({ javaScriptEnabled, viewport: PHONE });
    const page = await context.newPage();
    await page.goto(`${host.url}/words`);
    if (javaScriptEnabled) await page.waitForSelector('html[data-hydrated="true"]');
    const hrefs = await page.locator('main ul[role="list"] li a').evaluateAll((links) => links.map((a) => a.getAttribute('href')));
    assert.deepEqual(new Set(hrefs), new Set(PHRASES.map((phrase) => pagePath(phrase.id))), `JS ${javaScriptEnabled}`);
    await page.locator('main ul[role="list"] li a', { hasText: 'SEE YOU LATER' }).click();
    await page.waitForURL(`${host.url}${pagePath('a.b ü')}`);
    assert.equal(await page.locator('h1').innerText(), 'SEE YOU LATER');
    assert.equal(await page.locator('main p', { hasText: /^By / }).innerText(), 'By <b>Rex</b> "the" king');
    assert.equal(await page.locator('main p', { hasText: 'characters' }).innerText(), '13 characters');
    const post = new URL(await page.getByRole('link', { name: 'Post on X' }).getAttribute('href'));
    assert.equal(post.origin + post.pathname, 'https://twitter.com/intent/tweet');
    assert.equal(post.searchParams.get('url'), `${host.url}${pagePath('a.b ü')}`);
    assert.match(post.searchParams.get('text'), /#myLastWords$/);
    // Without JavaScript there is nothing to press that would do nothing.
    assert.equal(await page.getByRole('button', { name: 'Share' }).count(), javaScriptEnabled ? 1 : 0);
    await page.getByRole('link', { name: 'All Last Words' }).click();
    await page.waitForURL(`${host.url}/words`);
    await context.close();
  }
});

test('Share hands the page to the Web Share API where the browser has it', async () => {
  const context = await browser.newContext({ viewport: PHONE });
  await context.addInitScript(() => {
    window.__shared = [];
    navigator.share = async (data) => {
      window.__shared.push(data);
    };
    navigator.canShare = () => true;
  });
  const page = await context.newPage();
  const problems = watchProblems(page);
  await page.goto(`${host.url}${pagePath('100%')}`);
  await page.waitForSelector('html[data-hydrated="true"]');
  await page.getByRole('button', { name: 'Share' }).click();
  const shared = await page.waitForFunction(() => window.__shared[0]).then((handle) => handle.jsonValue());
  assert.equal(shared.url, `${host.url}${pagePath('100%')}`);
  assert.equal(shared.text, '“TOO BIG TO FAIL” #myLastWords');
  assert.match(shared.title, /TOO BIG TO FAIL/);
  assert.deepEqual(problems, []);
  await context.close();
});

test('without the Web Share API, Share copies the link and says so', async () => {
  const context = await browser.newContext({ viewport: PHONE });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: host.url });
  await context.addInitScript(() => {
    delete Navigator.prototype.share;
    delete Navigator.prototype.canShare;
  });
  const page = await context.newPage();
  const problems = watchProblems(page);
  await page.goto(`${host.url}${pagePath('a.b ü')}`);
  await page.waitForSelector('html[data-hydrated="true"]');
  assert.equal(await page.evaluate(() => typeof navigator.share), 'undefined');
  await page.getByRole('button', { name: 'Share' }).click();
  await page.getByText('Link copied').waitFor({ timeout: 3000 });
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), `${host.url}${pagePath('a.b ü')}`);
  assert.equal(await page.getByRole('status').filter({ hasText: 'Link copied' }).count(), 1, 'announced');
  assert.deepEqual(problems, []);
  await context.close();
});

test('a phrase removed and minted again while its page is open says so live; its old page then answers 410', async () => {
  const { context, page, problems } = await openHydrated(browser, `${host.url}${pagePath('c3')}`, PHONE);
  // Let the socket connect before the change.
  await page.waitForTimeout(300);
  const shareable = async () => [await page.getByRole('link', { name: /^Post on X/ }).count(), await page.getByRole('button', { name: 'Share' }).count()];
  assert.deepEqual(await shareable(), [1, 1]);
  const removed = await host.cli('phrases', 'remove', 'c3');
  assert.equal(removed.code, 0, removed.stderr);
  await page.getByText('This Last Words has been removed.').waitFor({ timeout: 5000 });
  assert.deepEqual(await shareable(), [0, 0], 'no post or share of a link that is gone');
  assert.equal((await fetch(`${host.url}${pagePath('c3')}`)).status, 410);
  assert.equal((await fetch(`${host.url}/words/never-was`)).status, 404);

  const added = await host.cli('phrases', 'add', 'good luck!', '--name', 'Anky II');
  assert.equal(added.code, 0, added.stderr);
  const again = page.getByRole('link', { name: 'Minted again by Anky II' });
  await again.waitFor({ timeout: 5000 });
  await again.click();
  await page.waitForSelector('h1');
  assert.equal(await page.locator('h1').innerText(), 'GOOD LUCK!');
  assert.match(page.url(), /\/words\/[^/]+$/);
  assert.notEqual(new URL(page.url()).pathname, pagePath('c3'));
  assert.deepEqual(problems, []);
  await context.close();
});

test('a phrase edited while its page is open (by another program, as a moderator would) says what it reads now and links to it', async () => {
  const { context, page, problems } = await openHydrated(browser, `${host.url}${pagePath('d4')}`, PHONE);
  await page.waitForTimeout(300);
  const edit = (word, name) =>
    execFileSync('python3', [
      '-c',
      'import sqlite3,sys\nc=sqlite3.connect(sys.argv[1])\nc.execute("UPDATE phrases SET word = ?, name = ? WHERE id = ?", (sys.argv[2], sys.argv[3], "d4"))\nc.commit()\nc.close()',
      join(host.dataDir, 'phrases.sqlite3'),
      word,
      name,
    ]);
  edit('MORE <I>TREES</I>', 'Stego & co');
  const notice = page.getByText('Changed since this page opened', { exact: false });
  await notice.waitFor({ timeout: 5000 });
  assert.match(await notice.innerText(), /now reads “MORE <I>TREES<\/I>”, by Stego & co\./);
  await page.getByRole('link', { name: 'Show it' }).click();
  await page.waitForSelector('html[data-hydrated="true"]');
  assert.equal(await page.locator('h1').innerText(), 'MORE <I>TREES</I>');
  assert.deepEqual(problems, []);
  await context.close();
  // As the other tests know it.
  edit('MORE TREES', 'Stego');
});

test('a phrase edited while its host restarted says what it reads now, once the page is live again', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'lastwords-restart-'));
  let restarted = await startHost({ dataDir, phrases: PHRASES });
  const port = Number(new URL(restarted.url).port);
  try {
    const { context, page, problems } = await openHydrated(browser, `${restarted.url}${pagePath('d4')}`, PHONE);
    await page.waitForTimeout(300);
    await restarted.stop();
    // A restarted host's versions are new: its socket cannot say what changed meanwhile.
    execFileSync('python3', [
      '-c',
      'import sqlite3,sys\nc=sqlite3.connect(sys.argv[1])\nc.execute("UPDATE phrases SET name = ? WHERE id = ?", ("Renamed", "d4"))\nc.commit()\nc.close()',
      join(dataDir, 'phrases.sqlite3'),
    ]);
    restarted = await startHost({ dataDir, port });
    const notice = page.getByText('Changed since this page opened', { exact: false });
    await notice.waitFor({ timeout: 30_000 });
    assert.match(await notice.innerText(), /now reads “MORE TREES”, by Renamed\./);
    assert.deepEqual(problems.filter((problem) => !/ERR_CONNECTION_REFUSED|WebSocket/.test(problem)), []);
    await context.close();
  } finally {
    await restarted.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('a removed phrase\'s page says who holds its words now once live again: minted again, or no longer, while the host was down', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'lastwords-again-'));
  let restarted = await startHost({ dataDir, phrases: PHRASES });
  const port = Number(new URL(restarted.url).port);
  const idOf = async (word) => {
    const list = await restarted.cli('phrases', 'list');
    return list.stdout.split('\n').find((line) => line.includes(word))?.split(/\s+/)[0];
  };
  // While the host is down the socket is silent: what changed then is asked of the host.
  const whileDown = async (...commands) => {
    await restarted.stop();
    for (const command of commands) {
      const ran = await restarted.cli('phrases', ...command);
      assert.equal(ran.code, 0, ran.stderr);
    }
    restarted = await startHost({ dataDir, port });
  };
  try {
    const { context, page, problems } = await openHydrated(browser, `${restarted.url}${pagePath('f6')}`, PHONE);
    await page.waitForTimeout(300);
    assert.equal((await restarted.cli('phrases', 'remove', 'f6')).code, 0);
    assert.equal((await restarted.cli('phrases', 'add', 'rawr', '--name', 'Second')).code, 0);
    const second = page.getByRole('link', { name: 'Minted again by Second' });
    await second.waitFor({ timeout: 5000 });

    await whileDown(['remove', await idOf('RAWR')]);
    await page.waitForFunction(() => !document.body.innerText.includes('Minted again'), null, { timeout: 30_000 });
    assert.equal(await page.getByText('This Last Words has been removed.').count(), 1);

    await whileDown(['add', 'rawr', '--name', 'Third']);
    const third = page.getByRole('link', { name: 'Minted again by Third' });
    await third.waitFor({ timeout: 30_000 });
    assert.equal((await fetch(`${restarted.url}${await third.getAttribute('href')}`)).status, 200, 'the link leads to the phrase that holds the words');
    // The host down, and then the page's own address asked again: a 410 from a host
    // restarted since the removal too (the embedded store keeps its removals), not a 404.
    assert.deepEqual(problems.filter((problem) => !/ERR_CONNECTION_REFUSED|WebSocket|status of 410/.test(problem)), []);
    await context.close();
  } finally {
    await restarted.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test("a phrase's headline breaks only between its words, at every width from a small phone's up", async () => {
  const context = await browser.newContext();
  const page = await context.newPage();
  for (const { id, word } of PHRASES) {
    await page.goto(`${host.url}${pagePath(id)}`);
    await page.waitForSelector('html[data-hydrated="true"]');
    await page.evaluate(() => document.fonts.ready);
    for (const width of [320, 360, 390, 640, 768, 1024, 1280, 1920]) {
      await page.setViewportSize({ width, height: 800 });
      const headline = page.locator('main h1');
      const split = await brokenWords(headline);
      const layout = await headline.evaluate((h1) => ({
        size: parseFloat(getComputedStyle(h1).fontSize),
        overflow: h1.scrollWidth > h1.clientWidth,
      }));
      assert.deepEqual(split, [], `"${word}" at ${width} px: a word broken across lines (${layout.size} px)`);
      assert.equal(layout.overflow, false, `"${word}" at ${width} px overflows its column`);
      // Twenty emoji wrap between them at the full size, as words do, rather than shrink to
      // one line, whose lines do not touch.
      if (id === 'r18') assert.ok(layout.size >= 40, `"${word}" at ${width} px is set at ${layout.size} px`);
      assert.deepEqual(await touchingEmojiLines(headline), [], `"${word}" at ${width} px: emoji reaching into the line below`);
    }
  }
  await context.close();
});

test("a headline written right to left reads from the right edge when it wraps, and keeps the column's start on one line", async () => {
  const context = await browser.newContext();
  const page = await context.newPage();
  const lines = (selector) =>
    page.locator(selector).evaluate((element) => {
      const range = document.createRange();
      range.selectNodeContents(element);
      const rows = new Map();
      for (const rect of range.getClientRects()) {
        if (rect.width === 0) continue;
        const top = Math.round(rect.top);
        const row = rows.get(top) ?? { left: Infinity, right: -Infinity };
        rows.set(top, { left: Math.min(row.left, rect.left), right: Math.max(row.right, rect.right) });
      }
      return [...rows.values()].map(({ left, right }) => ({ left: Math.round(left), right: Math.round(right) }));
    });
  for (const { id, word } of PHRASES.filter(({ id }) => ['u21', 'v22', 'a.b ü'].includes(id))) {
    const rtl = id !== 'a.b ü';
    await page.goto(`${host.url}${pagePath(id)}`);
    await page.waitForSelector('html[data-hydrated="true"]');
    await page.evaluate(() => document.fonts.ready);
    for (const width of [320, 360, 390, 1280]) {
      await page.setViewportSize({ width, height: 800 });
      const column = await page.locator('main h1').evaluate((h1) => {
        const { left, right } = h1.getBoundingClientRect();
        return { left: Math.round(left), right: Math.round(right) };
      });
      const rows = await lines('main h1 bdi');
      const near = (a, b) => Math.abs(a - b) <= 2;
      if (rows.length === 1) {
        assert.ok(near(rows[0].left, column.left), `"${word}" at ${width} px, on one line, starts at the column's left edge (${rows[0].left}, the column ${column.left})`);
      } else if (rtl) {
        for (const row of rows) assert.ok(near(row.right, column.right), `"${word}" at ${width} px: each line starts at the right edge (${JSON.stringify(rows)}, the column ends at ${column.right})`);
      } else {
        for (const row of rows) assert.ok(near(row.left, column.left), `"${word}" at ${width} px: each line starts at the left edge (${JSON.stringify(rows)})`);
      }
      if (width <= 360) assert.ok(rows.length > 1, `"${word}" wraps at ${width} px`);
    }
  }
  await context.close();
});

test('a short list keeps every card in the document once hydrated, at a phone width too', async () => {
  const { context, page } = await openHydrated(browser, `${host.url}/words`, PHONE);
  const count = await page.locator('main ul[role="list"] > li').count();
  const total = (await (await fetch(`${host.url}/api/phrases`)).json()).count;
  assert.equal(count, total, 'no card is left out of a full-page capture');
  await context.close();
});
