// The phrases page as a visitor uses it: the checker, the limit, the grid, live updates.
import { test, before, after } from '../support/test.mjs';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../support/free-port.mjs';
import { startHost } from '../support/host.mjs';
import { launch, watchProblems } from '../support/browser.mjs';
import { wordsOnLastLine } from './text-lines.mjs';

let host;
let browser;

before(async () => {
  host = await startHost({
    phrases: [
      { id: 'a1', word: 'SEE YOU LATER', name: 'Rex' },
      { id: 'b2', word: 'TOO BIG TO FAIL', name: 'Bronto' },
      { id: 'c3', word: 'GOOD LUCK!', name: 'Anky' },
      { id: 'd4', word: 'MORE TREES', name: 'Stego' },
      { id: 'e5', word: 'WAS THAT A COMET?', name: 'Trixie' },
    ],
  });
  browser = await launch();
});

after(async () => {
  await browser?.close();
  await host?.stop();
});

/** The list, hydrated, in a new context at `viewport` (with `options`), from `on` (this file's host). */
async function openWords(viewport = { width: 1440, height: 900 }, { on = host, ...options } = {}) {
  const context = await browser.newContext({ viewport, ...options });
  const page = await context.newPage();
  const problems = watchProblems(page);
  await page.goto(`${on.url}/words`);
  await page.waitForSelector('html[data-hydrated="true"]');
  return { context, page, problems };
}

const status = (page) => page.locator('p[aria-live="polite"]');
/** The checker's message once it reads `text`: a word the page does not hold is asked of the host. */
async function statusReads(page, text) {
  await page.waitForFunction((expected) => document.querySelector('p[aria-live="polite"]')?.textContent === expected, text, { timeout: 3000 });
  return status(page);
}
const colour = (locator) => locator.evaluate((el) => getComputedStyle(el).color);

test('on the narrowest phone a whole 20-character phrase shows in the box, with JavaScript and without', async () => {
  for (const javaScriptEnabled of [true, false]) {
    const context = await browser.newContext({ viewport: { width: 320, height: 640 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2, javaScriptEnabled });
    try {
      const page = await context.newPage();
      await page.goto(`${host.url}/words`);
      if (javaScriptEnabled) await page.waitForSelector('html[data-hydrated="true"]');
      for (const phrase of ['GOODBYE CRUEL WORLD!', 'ABCDEFGHIJKLMNOPQRST']) {
        await page.fill('#check-input', phrase);
        const { scrollWidth, clientWidth, fontSize } = await page.locator('#check-input').evaluate((input) => ({
          scrollWidth: input.scrollWidth,
          clientWidth: input.clientWidth,
          fontSize: parseFloat(getComputedStyle(input).fontSize),
        }));
        const how = javaScriptEnabled ? 'hydrated' : 'without JavaScript';
        assert.ok(scrollWidth <= clientWidth, `${how}, "${phrase}" needs ${scrollWidth} px of a ${clientWidth} px box`);
        // Under 16 px a phone zooms into the box it focuses.
        assert.ok(fontSize >= 16, `${how}: ${fontSize} px`);
      }
      // The counter is still there, beside the label.
      assert.match(await page.locator('#check-counter').innerText(), /\/20/);
    } finally {
      await context.close();
    }
  }
});

test('typing shows taken in red, available in white, and the counter follows', async () => {
  const { context, page, problems } = await openWords();
  assert.equal(await status(page).innerText(), 'Type something');
  const input = page.getByLabel('Type & Check');
  await input.pressSequentially('see you later');
  assert.equal(await status(page).innerText(), 'Already taken');
  const [r, g, b] = (await colour(status(page))).match(/\d+/g).map(Number);
  assert.ok(r > 150 && g < 120 && b < 120, `red, got rgb(${r}, ${g}, ${b})`);
  assert.match(await page.locator('#check-counter').innerText(), /13\/20/);

  await input.fill('');
  await input.pressSequentially('hello there');
  assert.equal(await colour(await statusReads(page, 'It is available!')), 'rgb(255, 255, 255)');

  await input.fill('');
  await input.press('x');
  await input.press('Backspace');
  assert.equal(await status(page).innerText(), 'Type something', 'an emptied box asks again');
  assert.deepEqual(problems, []);
  await context.close();
});

test('Arabic typed in the box reads right to left, Latin left to right, and Persian and Sinhala spelled with joiners are free', async () => {
  const { context, page, problems } = await openWords({ width: 390, height: 844 });
  const box = page.locator('#check-input');
  await box.fill('مرحبا!');
  assert.equal(await box.evaluate((input) => input.matches(':dir(rtl)')), true, 'the box follows the text');
  await box.fill('DINO!');
  assert.equal(await box.evaluate((input) => input.matches(':dir(ltr)')), true);
  // Spellings that need a joiner: Persian's non-joiner, Sinhala's joiner after a virama.
  for (const word of ['می\u200cخواهم', 'ශ්\u200dරී']) {
    await box.fill(word);
    await statusReads(page, 'It is available!');
  }
  assert.deepEqual(problems, []);
  await context.close();
});

test('the input stops at 20 characters, an emoji counting as one', async () => {
  const { context, page } = await openWords();
  const input = page.getByLabel('Type & Check');
  await input.pressSequentially('🦖'.repeat(3) + 'A'.repeat(20));
  assert.match(await page.locator('#check-counter').innerText(), /20\/20/);
  assert.equal([...new Intl.Segmenter().segment(await input.inputValue())].length, 20);
  assert.ok((await input.inputValue()).startsWith('🦖🦖🦖'));
  await context.close();
});

test('at the limit a letter typed mid-phrase is refused as one typed at the end, the caret stays, and a paste fits the room left', async () => {
  const { context, page, problems } = await openWords();
  const input = page.getByLabel('Type & Check');
  const caret = () => input.evaluate((el) => [el.selectionStart, el.selectionEnd]);
  await input.pressSequentially('my last words are ok');
  await input.press('Home');
  for (let i = 0; i < 3; i += 1) await input.press('ArrowRight');
  await input.pressSequentially('XY');
  assert.equal(await input.inputValue(), 'my last words are ok', 'nothing typed past the limit, nothing lost from the end');
  assert.deepEqual(await caret(), [3, 3]);

  await input.press('Backspace');
  await input.pressSequentially('XY');
  assert.equal(await input.inputValue(), 'myXlast words are ok', 'room for one letter takes one, where the caret is');
  assert.deepEqual(await caret(), [3, 3]);
  assert.match(await page.locator('#check-counter').innerText(), /20\/20/);

  await input.fill('abc');
  await input.press('Home');
  await input.press('ArrowRight');
  await page.keyboard.insertText('my last words were never said');
  assert.equal(await input.inputValue(), 'amy last words werbc', 'the paste is cut, what followed the caret kept');
  assert.deepEqual(await caret(), [18, 18]);
  await statusReads(page, 'It is available!');
  assert.deepEqual(problems, []);
  await context.close();
});

/** Runs `visit` on a page of a Chromium that keeps pages left by Back and Forward, as browsers do. */
async function withPageCache(visit) {
  const cached = await launch({ backForwardCache: true });
  try {
    const context = await cached.newContext({ viewport: { width: 390, height: 844 } });
    const page = await context.newPage();
    const problems = watchProblems(page);
    await visit(page);
    assert.deepEqual(problems, []);
    await context.close();
  } finally {
    await cached.close();
  }
}

test('Back from a phrase\'s page shows the list as it was left, from the browser\'s cache, and it stays live', async () => {
  await withPageCache(async (page) => {
    await page.goto(`${host.url}/words`);
    await page.waitForSelector('html[data-hydrated="true"]');
    await page.getByLabel('Type & Check').fill('see');
    await page.evaluate(() => { window.leftAt = 'the list'; });
    await page.locator('main ul[role="list"] a').first().click();
    await page.waitForURL(/\/words\/[^/?]+$/);
    await page.goBack({ waitUntil: 'commit' });
    await page.waitForFunction(() => window.leftAt === 'the list', null, { timeout: 5000 });
    assert.equal(await page.getByLabel('Type & Check').inputValue(), 'see', 'the box as it was left');
    const added = await host.cli('phrases', 'add', 'SEE YOU SOON', '--name', 'Back');
    assert.equal(added.code, 0, added.stderr);
    await page.locator('main ul[role="list"] a > bdi', { hasText: 'SEE YOU SOON' }).waitFor({ timeout: 5000 });
  });
});

test('Forward to the list after Back from it shows it from the browser\'s cache too, not loaded afresh', async () => {
  await withPageCache(async (page) => {
    await page.goto(`${host.url}/`);
    await page.goto(`${host.url}/words`);
    await page.waitForSelector('html[data-hydrated="true"]');
    await page.evaluate(() => { window.leftAt = 'the list'; });
    await page.goBack({ waitUntil: 'commit' });
    await page.waitForURL(`${host.url}/`, { waitUntil: 'commit' });
    await page.goForward({ waitUntil: 'commit' });
    await page.waitForFunction(() => window.leftAt === 'the list', null, { timeout: 5000 });
  });
});

test('an edit that does not all fit says how much was left out, until the box changes', async () => {
  const { context, page, problems } = await openWords();
  const input = page.getByLabel('Type & Check');
  const note = page.getByText(/characters fit/);
  await input.focus();
  await page.keyboard.insertText('I SHOULD HAVE BOUGHT MORE DINOS');
  // The space after BOUGHT fits: a phrase's spaces at its ends are not counted.
  assert.equal(await input.inputValue(), 'I SHOULD HAVE BOUGHT ');
  assert.equal(await note.innerText(), 'Only 20 characters fit — 10 more were left out.');
  await statusReads(page, 'It is available!');
  await input.press('Backspace');
  assert.equal(await note.count(), 0, 'gone once the box holds something else');
  await input.pressSequentially('TX');
  assert.equal(await input.inputValue(), 'I SHOULD HAVE BOUGHT');
  assert.equal(await note.innerText(), 'Only 20 characters fit — 1 more was left out.');
  // The counter says 19/20, but ß is written SS: the note says why it did not fit.
  await input.fill('A'.repeat(19));
  await input.pressSequentially('ß');
  assert.equal(await input.inputValue(), 'A'.repeat(19));
  assert.match(await page.locator('#check-counter').innerText(), /19\/20$/);
  assert.equal(await note.innerText(), 'Only 20 characters fit — 1 more was left out (“ß” is written “SS”: 2 characters).');
  assert.deepEqual(problems, []);
  await context.close();
});

test('a phrase with ß or a ligature, which upper-case longer, is replaced whole by what is typed or pasted over it', async () => {
  // Chromium loses the text typed over a selection in an upper-cased box whose text grows
  // when upper-cased (ß is SS): the box must not be upper-cased by CSS then.
  const { context, page, problems } = await openWords();
  const input = page.getByLabel('Type & Check');
  await input.pressSequentially('straße');
  await input.press('ControlOrMeta+a');
  await input.pressSequentially('h');
  assert.equal(await input.inputValue(), 'h', 'a letter typed over the selected phrase');
  await input.fill('');
  await input.pressSequentially('oﬃce');
  await input.press('ControlOrMeta+a');
  await page.keyboard.insertText('hello');
  assert.equal(await input.inputValue(), 'hello', 'a paste over the selected phrase');
  await statusReads(page, 'It is available!');
  const transform = await input.evaluate((el) => getComputedStyle(el).textTransform);
  assert.equal(transform, 'uppercase', 'a phrase that upper-cases to its own length is shown in upper case');

  await page.goto(`${host.url}/words?check=${encodeURIComponent('GROßE')}`);
  await page.waitForSelector('html[data-hydrated="true"]');
  await input.press('ControlOrMeta+a');
  await input.pressSequentially('x');
  assert.equal(await input.inputValue(), 'x', 'the same for a phrase that came in the address');
  assert.deepEqual(problems, []);
  await context.close();
});

test('an IME building characters past the limit mid-phrase is left whole until it commits, then cut to the room left', async () => {
  const { context, page, problems } = await openWords();
  const input = page.getByLabel('Type & Check');
  await input.pressSequentially('abcdefghijklmnopqrs');
  await input.press('Home');
  for (let i = 0; i < 3; i += 1) await input.press('ArrowRight');
  const cdp = await context.newCDPSession(page);
  await cdp.send('Input.imeSetComposition', { text: 'か', selectionStart: 1, selectionEnd: 1 });
  await cdp.send('Input.imeSetComposition', { text: 'かな', selectionStart: 2, selectionEnd: 2 });
  assert.equal(await input.inputValue(), 'abcかなdefghijklmnopqrs', 'a character being built is never cut');
  // Nor judged: 21 characters half built are no one's phrase yet.
  const verdict = page.locator('form p[aria-live="polite"]');
  await page.waitForTimeout(400);
  assert.equal(await verdict.innerText(), '', 'no verdict while the IME builds');
  await cdp.send('Input.insertText', { text: 'かな' });
  assert.equal(await input.inputValue(), 'abcかdefghijklmnopqrs');
  assert.deepEqual(await input.evaluate((el) => [el.selectionStart, el.selectionEnd]), [4, 4]);
  assert.match(await page.locator('#check-counter').innerText(), /20\/20/);
  await page.waitForFunction(() => document.querySelector('form p[aria-live="polite"]')?.textContent !== '', null, { timeout: 5000 });
  assert.deepEqual(problems, []);
  await context.close();
});

test('a phrase minted elsewhere appears in two open pages and flips the checker', async () => {
  const first = await openWords();
  const second = await openWords({ width: 390, height: 844 });
  await second.page.getByLabel('Type & Check').pressSequentially('rawr forever');
  await statusReads(second.page, 'It is available!');

  const added = await host.cli('phrases', 'add', 'RAWR FOREVER', '--name', 'Tess');
  assert.equal(added.code, 0, added.stderr);
  for (const { page } of [first, second]) {
    // In the grid; the checker's line under "Already taken" names it too.
    await page.getByRole('listitem').getByText('RAWR FOREVER', { exact: true }).waitFor({ timeout: 3000 });
    assert.equal(await page.getByText('By Tess', { exact: true }).count(), 1);
  }
  await statusReads(second.page, 'Already taken');
  await second.page.getByText('Minted by Tess — see “RAWR FOREVER”').waitFor({ timeout: 3000 });
  assert.deepEqual([...first.problems, ...second.problems], []);
  await first.context.close();
  await second.context.close();
});

test('a page whose live socket drops catches up on what was minted meanwhile, then keeps following', async () => {
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  // Every socket the page opens to the live feed, held until the test lets it through.
  const sockets = [];
  await context.routeWebSocket(/\/api\/phrases\/live/, (socket) => sockets.push(socket));
  const page = await context.newPage();
  const problems = watchProblems(page);
  await page.goto(`${host.url}/words`);
  await page.waitForSelector('html[data-hydrated="true"]');
  const opened = async (count) => {
    const until = Date.now() + 5000;
    while (sockets.length < count && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
    assert.equal(sockets.length, count, `the page opened ${sockets.length} live socket(s)`);
    return sockets[count - 1];
  };
  const shows = (word) => page.getByRole('listitem').getByText(word, { exact: true }).waitFor({ timeout: 5000 });
  const mint = async (word) => {
    const added = await host.cli('phrases', 'add', word, '--name', 'Away');
    assert.equal(added.code, 0, added.stderr);
  };

  (await opened(1)).connectToServer();
  await mint('BEFORE THE DROP');
  await shows('BEFORE THE DROP');
  const since = (socket) => Number(new URL(socket.url()).searchParams.get('since'));
  sockets[0].close({ code: 1001, reason: 'going away' });
  // The page opens another; the host does not hear of it until the phrase below is minted.
  const second = await opened(2);
  await mint('WHILE AWAY');
  await page.waitForTimeout(300);
  assert.equal(await page.getByText('WHILE AWAY', { exact: true }).count(), 0, 'nothing told the page yet');
  assert.ok(since(second) > since(sockets[0]), `it asks for what came after ${since(second)}, not the start`);
  second.connectToServer();
  await shows('WHILE AWAY');
  await mint('AFTER IT CAME BACK');
  await shows('AFTER IT CAME BACK');
  assert.equal(sockets.length, 2, 'one socket at a time');
  assert.deepEqual(problems, []);
  await context.close();
});

test('a page that cannot reach the host for a while says its list is not live, and stops saying so once it is again', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'lastwords-paused-'));
  const port = await freePort();
  let own = await startHost({ dataDir, port, phrases: [{ id: 'p1', word: 'STILL HERE', name: 'Rex' }] });
  const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
  try {
    const page = await context.newPage();
    const problems = watchProblems(page);
    await page.goto(`${own.url}/words`);
    await page.waitForSelector('html[data-hydrated="true"]');
    const note = page.getByRole('status').filter({ hasText: 'Live updates paused: reconnecting…' });
    await page.waitForTimeout(1000);
    assert.equal(await note.count(), 0, 'a live page says nothing');

    await own.stop();
    own = null;
    await note.waitFor({ timeout: 20_000 });
    // Over the page, not in it: the list stays where it was.
    assert.equal(await note.evaluate((el) => getComputedStyle(el).position), 'fixed');
    await page.getByText('STILL HERE', { exact: true }).waitFor();

    own = await startHost({ dataDir, port });
    // The browser would say so when its network came back; the page reconnects at once.
    await page.evaluate(() => window.dispatchEvent(new Event('online')));
    await note.waitFor({ state: 'detached', timeout: 10_000 });
    const minted = await own.cli('phrases', 'add', 'BACK AGAIN', '--name', 'Rex');
    assert.equal(minted.code, 0, minted.stderr);
    await page.getByText('BACK AGAIN', { exact: true }).waitFor({ timeout: 5000 });
    // The failed reconnects are the browser's own console errors, not the page's.
    assert.deepEqual(
      problems.filter((problem) => !/WebSocket|ERR_CONNECTION_REFUSED/.test(problem)),
      [],
    );
  } finally {
    await context.close();
    await own?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

for (const [width, columns] of [[390, 1], [1440, 4]]) {
  test(`the grid has ${columns} column(s) at ${width} px`, async () => {
    const { context, page } = await openWords({ width, height: 900 });
    const lefts = await page.locator('main ul > li').evaluateAll((items) =>
      [...new Set(items.map((item) => Math.round(item.getBoundingClientRect().left)))],
    );
    assert.equal(lefts.length, columns);
    await context.close();
  });
}

for (const width of [390, 768, 1440, 1920]) {
  test(`at ${width} px the page starts where the header's logo starts, with an upper-case display heading and our art`, async () => {
    const { context, page, problems } = await openWords({ width, height: 900 });
    const left = (selector) => page.locator(selector).first().evaluate((el) => Math.round(el.getBoundingClientRect().left));
    const logo = await left('header a[href="/"]');
    assert.equal(await left('main h1'), logo, 'the heading');
    assert.equal(await left('main form'), logo, 'the checker');
    assert.equal(await left('main ul > li'), logo, 'the list');
    const heading = await page.locator('main h1').evaluate((h1) => {
      const style = getComputedStyle(h1);
      return { transform: style.textTransform, family: style.fontFamily.split(',')[0].replace(/"/g, '') };
    });
    assert.deepEqual(heading, { transform: 'uppercase', family: 'Archivo Black' });
    const art = await page.locator('main img[src^="/assets/"]').evaluateAll((imgs) =>
      imgs.filter((img) => img.getBoundingClientRect().width > 100 && img.complete && img.naturalWidth > 0).length);
    assert.ok(art >= 1, 'a picture of ours is shown');
    assert.deepEqual(problems, []);
    await context.close();
  });
}

test('on a phone "GOOD LUCK!" is never split, nor left as the only word on its line', async () => {
  const { context, page, problems } = await openWords({ width: 390, height: 844 });
  const intro = page.locator('main p').filter({ hasText: 'GOOD' }).first();
  const lines = await intro.evaluate((p) => {
    const text = p.firstChild;
    const at = (offset) => {
      const range = document.createRange();
      range.setStart(text, offset);
      range.setEnd(text, offset + 1);
      return Math.round(range.getClientRects()[0].top);
    };
    const good = text.textContent.indexOf('GOOD');
    return { good: at(good), luck: at(text.textContent.indexOf('LUCK')) };
  });
  assert.equal(lines.good, lines.luck, 'GOOD and LUCK! on one line');
  assert.ok((await wordsOnLastLine(intro)) >= 3, 'more than "GOOD LUCK!" on the last line');
  assert.deepEqual(problems, []);
  await context.close();
});

test('once the checker is live its Check button is gone, nothing shifts, and Enter still checks without reloading', async () => {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
  await context.addInitScript(() => {
    window.__shifts = [];
    new PerformanceObserver((list) => window.__shifts.push(...list.getEntries().map((entry) => entry.value)))
      .observe({ type: 'layout-shift', buffered: true });
  });
  const page = await context.newPage();
  const problems = watchProblems(page);
  await page.goto(`${host.url}/words`);
  await page.waitForSelector('html[data-hydrated="true"]');
  await page.getByRole('button', { name: 'Check' }).waitFor({ state: 'detached', timeout: 2000 });
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
  assert.deepEqual(await page.evaluate(() => window.__shifts), [], 'no layout shift as the button goes');
  await page.evaluate(() => { window.__samePage = true; });
  const input = page.getByLabel('Type & Check');
  await input.pressSequentially('good luck!');
  await input.press('Enter');
  assert.equal(await status(page).innerText(), 'Already taken');
  assert.equal(await page.evaluate(() => window.__samePage), true, 'Enter did not reload the page');
  assert.match(page.url(), /check=good/);
  assert.deepEqual(problems, []);
  await context.close();
});

test('without JavaScript the form checks on the server', async () => {
  const context = await browser.newContext({ javaScriptEnabled: false });
  const page = await context.newPage();
  await page.goto(`${host.url}/words`);
  await page.getByLabel('Type & Check').fill('good luck!');
  await page.getByRole('button', { name: 'Check' }).click();
  await page.waitForURL(/check=/);
  assert.equal(await status(page).innerText(), 'Already taken');
  await page.goto(`${host.url}/words?check=${'A'.repeat(25)}`);
  assert.match(await status(page).innerText(), /At most 20 characters/);
  await context.close();
});

test('a hostile phrase and name arriving over the live feed into a hydrated page stay text', async () => {
  const { context, page, problems } = await openWords();
  let dialogs = 0;
  page.on('dialog', (dialog) => {
    dialogs++;
    return dialog.dismiss();
  });
  const word = '<B>HI</B><IMG SRC=X>';
  const name = '<script>alert(1)</script>"\'&amp;';
  // The CLI takes the phrase as typed; the content rules allow these characters.
  const added = await host.cli('phrases', 'add', '<b>hi</b><img src=x>', '--name', name);
  assert.equal(added.code, 0, added.stderr);
  await page.locator('[data-island] li', { hasText: word }).first().waitFor({ timeout: 5000 });
  const card = page.locator('[data-island] li', { hasText: word }).first();
  assert.match(await card.innerText(), /<B>HI<\/B><IMG SRC=X>/);
  assert.ok((await card.innerText()).includes(name), 'the name as typed');
  assert.equal(await page.locator('[data-island] li b, [data-island] li img[src="x"], [data-island] li script').count(), 0, 'no markup made of them');
  assert.equal(dialogs, 0);
  assert.deepEqual(problems, []);
  await context.close();
  const removed = await host.cli('phrases', 'remove', /added (\S+)/.exec(added.stdout)[1]);
  assert.equal(removed.code, 0, removed.stderr);
});

test('a right-to-left name reads on its card as on its page, set apart from the "By" before it', async () => {
  const name = 'שלום! (Rex)';
  const added = await host.cli('phrases', 'add', 'SHALOM', '--name', name);
  assert.equal(added.code, 0, added.stderr);
  const id = /added (\S+)/.exec(added.stdout)[1];
  const { context, page, problems } = await openWords();
  // Where on screen a piece of the name is drawn: alone, "(Rex)" ends the Hebrew
  // paragraph and so is drawn left of it; after a Latin "By " without isolation it
  // would be drawn right of it.
  const leftOf = (root, piece) =>
    root.evaluate((element, piece) => {
      const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const at = node.data.indexOf(piece);
        if (at === -1) continue;
        const range = document.createRange();
        range.setStart(node, at);
        range.setEnd(node, at + piece.length);
        return range.getBoundingClientRect().left;
      }
      return null;
    }, piece);
  const card = page.locator('[data-island] li', { hasText: 'SHALOM' });
  assert.ok((await leftOf(card, '(Rex)')) < (await leftOf(card, 'שלום')), 'on the card, (Rex) left of שלום');
  await page.goto(`${host.url}/words/${id}`);
  const byline = page.locator('main p', { hasText: /^By / });
  assert.ok((await leftOf(byline, '(Rex)')) < (await leftOf(byline, 'שלום')), 'on the page, (Rex) left of שלום');
  assert.deepEqual(problems, []);
  await context.close();
  const removed = await host.cli('phrases', 'remove', id);
  assert.equal(removed.code, 0, removed.stderr);
});

/** `n` phrases, `PHRASE NUMBER 0` the oldest. */
const numbered = (n) => Array.from({ length: n }, (_, i) => ({ id: `p${i}`, word: `PHRASE NUMBER ${i}`, name: `Name ${i}` }));

/** Waits until the list's first card reads `word`. */
const firstCardReads = (page, word) => page.waitForFunction((word) => document.querySelector('main ul[role="list"] > li a > bdi')?.textContent === word, word, { timeout: 5000 });

/** Counts the layout shifts from now on; `shifted(page)` is their sum. */
const watchShifts = (page) =>
  page.evaluate(() => {
    window.shifts = [];
    new PerformanceObserver((entries) => window.shifts.push(...entries.getEntries().map((entry) => entry.value))).observe({ type: 'layout-shift' });
  });
const shifted = async (page) => (await page.evaluate(() => window.shifts)).reduce((sum, value) => sum + value, 0);

/**
 * Writes the time of the phrase `word` by hand, as an operator with the sqlite3 shell:
 * one past the newest (`MAX`) or before the oldest (`MIN`).
 */
function writeTime(host, word, end) {
  const to = end === 'MAX' ? '(SELECT MAX(created) FROM phrases) + 1' : '(SELECT MIN(created) FROM phrases) - 1';
  execFileSync('sqlite3', [join(host.dataDir, 'phrases.sqlite3'), `UPDATE phrases SET created = ${to} WHERE word = '${word}'`]);
}

/**
 * `url` in a new page of `context`, hydrated, with Chromium's scroll anchoring or, when
 * `anchoring` is false, none, as in Safari (the page then keeps the reader's place itself).
 */
async function openAnchoring(context, url, anchoring) {
  const page = await context.newPage();
  if (!anchoring) {
    await page.addInitScript(() => {
      const supports = CSS.supports.bind(CSS);
      CSS.supports = (...args) => (String(args[0]).includes('overflow-anchor') ? false : supports(...args));
    });
  }
  await page.goto(url);
  await page.waitForSelector('html[data-hydrated="true"]');
  if (!anchoring) await page.evaluate(() => { document.documentElement.style.overflowAnchor = 'none'; });
  return page;
}

test('on a phone, a phrase minted on top leaves the card being read where it is, though the cards differ in height', async () => {
  // A page of cards, the newest two lines taller than the one minted over it.
  const phrases = numbered(25);
  phrases.push({ id: 'tall', word: 'SEE YOU LATER', name: 'Jean-Baptiste Emmanuel Zorg the Third' });
  const own = await startHost({ phrases });
  try {
    // Chromium's scroll anchoring, then none, as in Safari, which has none.
    for (const anchoring of [true, false]) {
      const context = await browser.newContext({ viewport: { width: 320, height: 672 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 });
      try {
        const page = await openAnchoring(context, `${own.url}/words`, anchoring);
        const card = page.locator('main ul[role="list"] > li', { hasText: 'PHRASE NUMBER 6' });
        await card.evaluate((element) => window.scrollBy(0, element.getBoundingClientRect().top - 200));
        await page.waitForTimeout(300);
        const top = () => card.evaluate((element) => Math.round(element.getBoundingClientRect().top));
        const before = await top();
        const word = anchoring ? 'SHORT' : 'SHORTER';
        const short = await own.cli('phrases', 'add', word, '--name', 'bo');
        assert.equal(short.code, 0, short.stderr);
        await firstCardReads(page, word);
        await page.waitForTimeout(500);
        assert.equal(await top(), before, `the card read stays where it was (${anchoring ? 'the browser anchoring' : 'no scroll anchoring'})`);
        // In, above the reader, and said: the note takes them up to it.
        await page.getByRole('button', { name: 'Show 1 new' }).click();
        await page.waitForFunction((word) => document.activeElement?.querySelector('a > bdi')?.textContent === word, word, { timeout: 5000 });
        const newest = await page.locator('main ul[role="list"] > li').first().evaluate((li) => li.getBoundingClientRect().top);
        assert.ok(newest >= 0 && newest < 672, `the newest card is on screen (${newest})`);
      } finally {
        await context.close();
      }
    }
  } finally {
    await own.stop();
  }
});

test('a phrase minted while the list is open comes in at the top marked as new for a few seconds, with or without motion; nothing else is marked', async () => {
  const own = await startHost({ phrases: numbered(30) });
  try {
    for (const reducedMotion of ['no-preference', 'reduce']) {
      const { context, page, problems } = await openWords({ width: 1280, height: 900 }, { on: own, reducedMotion });
      try {
        const marked = () => page.locator('main ul[role="list"] > li[data-fresh]');
        assert.equal(await marked().count(), 0, 'nothing is marked as the page comes');
        const word = `FRESH ${reducedMotion.toUpperCase()}`;
        const added = await own.cli('phrases', 'add', word, '--name', 'Live');
        assert.equal(added.code, 0, added.stderr);
        await firstCardReads(page, word);
        assert.equal(await marked().count(), 1, 'the one that came is marked, no other');
        assert.equal(await marked().locator('a > bdi').textContent(), word);
        const look = await marked().evaluate((li) => {
          const style = getComputedStyle(li);
          return { animation: style.animationName, outline: style.outlineStyle };
        });
        if (reducedMotion === 'reduce') assert.deepEqual(look, { animation: 'none', outline: 'solid' });
        else assert.equal(look.animation, 'arrive');
        await page.waitForFunction(() => document.querySelector('main ul[role="list"] > li[data-fresh]') === null, null, { timeout: 6000 });
        // Under a steady stream each mark goes in its own time, not once the stream pauses.
        const [early, later] = ['A', 'B'].map((letter) => `STREAM ${reducedMotion.length} ${letter}`);
        assert.equal((await own.cli('phrases', 'add', early, '--name', 'Live')).code, 0);
        await firstCardReads(page, early);
        await page.waitForTimeout(2500);
        assert.equal((await own.cli('phrases', 'add', later, '--name', 'Live')).code, 0);
        await firstCardReads(page, later);
        const markedWords = () => marked().locator('a > bdi').allTextContents();
        await page.waitForFunction((word) => [...document.querySelectorAll('main ul[role="list"] > li[data-fresh] a > bdi')].every((bdi) => bdi.textContent !== word), early, { timeout: 3500 });
        assert.deepEqual(await markedWords(), [later], 'the later one is still marked');
        assert.deepEqual(problems, []);
      } finally {
        await context.close();
      }
    }
  } finally {
    await own.stop();
  }
});

test('with the top of the list in view, a phrase minted on top moves the cards on screen by gliding them, not in a jump: in one column and in four', async () => {
  const own = await startHost({ phrases: numbered(60) });
  try {
    for (const viewport of [{ width: 1280, height: 900 }, { width: 390, height: 844 }]) {
      const { context, page, problems } = await openWords(viewport, { on: own });
      try {
        // The list's top a little below the top of the screen, cards under it.
        await page.locator('main ul[role="list"]').evaluate((list) => window.scrollBy(0, list.getBoundingClientRect().top - 150));
        await page.waitForTimeout(300);
        await watchShifts(page);
        const word = `GLIDE ${viewport.width}`;
        assert.equal((await own.cli('phrases', 'add', word, '--name', 'Live')).code, 0);
        await firstCardReads(page, word);
        await page.waitForTimeout(600);
        // Each card moved a place: in four columns a jump was a shift of 0.47, in one 0.07.
        const sum = await shifted(page);
        assert.ok(sum < 0.05, `${viewport.width} px: layout shifts of ${sum.toFixed(3)}`);
        assert.deepEqual(problems, []);
      } finally {
        await context.close();
      }
    }
  } finally {
    await own.stop();
  }
});

test('on a wide screen, phrases minted while the visitor reads down the list wait above it: nothing moves, a note says how many, and lets them in', async () => {
  const own = await startHost({ phrases: numbered(60) });
  const { context, page, problems } = await openWords({ width: 1280, height: 900 }, { on: own });
  try {
    const gridTop = () => page.locator('main ul[role="list"]').evaluate((list) => list.getBoundingClientRect().top + window.scrollY);
    await page.evaluate((y) => window.scrollTo(0, y), (await gridTop()) + 400);
    await page.waitForTimeout(300);
    await watchShifts(page);
    const places = () => page.evaluate(() => [...document.querySelectorAll('main ul[role="list"] > li')].map((li) => `${li.textContent} ${Math.round(li.getBoundingClientRect().left)},${Math.round(li.getBoundingClientRect().top)}`));
    const before = await places();
    const mint = async (word) => {
      const added = await own.cli('phrases', 'add', word, '--name', 'Live');
      assert.equal(added.code, 0, added.stderr);
    };
    await mint('ABOVE ONE');
    await mint('ABOVE TWO');
    const note = page.getByRole('button', { name: 'Show 2 new' });
    await note.waitFor({ timeout: 5000 });
    assert.match(await page.locator('main h2').first().textContent(), /^62 /, 'the count is live');
    assert.deepEqual(await places(), before, 'no card moved, none came in');
    assert.equal(await shifted(page), 0, 'no layout shift');
    // Pressed: they come in at the top, marked, and the focus is on the newest.
    await note.click();
    await firstCardReads(page, 'ABOVE TWO');
    assert.equal(await page.evaluate(() => document.activeElement?.querySelector('a > bdi')?.textContent), 'ABOVE TWO');
    assert.equal(await page.locator('main ul[role="list"] > li[data-fresh]').count(), 2);
    assert.equal(await page.getByRole('button', { name: /^Show \d+ new$/ }).count(), 0, 'the note is gone');
    assert.equal(await page.locator('main ul[role="list"] > li').first().getAttribute('aria-posinset'), '1');
    // Back down the list, one more waits; scrolling up to the top lets it in by itself.
    await page.evaluate((y) => window.scrollTo(0, y), (await gridTop()) + 400);
    await page.waitForTimeout(300);
    await mint('ABOVE THREE');
    await page.getByRole('button', { name: 'Show 1 new' }).waitFor({ timeout: 5000 });
    assert.equal(await page.locator('main ul[role="list"] > li').first().getAttribute('aria-posinset'), '2', 'the cards shown count the one above');
    await page.evaluate(() => window.scrollTo(0, 0));
    await firstCardReads(page, 'ABOVE THREE');
    assert.equal(await page.getByRole('button', { name: /^Show \d+ new$/ }).count(), 0);
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
    await own.stop();
  }
});

test('a card on screen whose time is written by hand moves to its new place, and the card being read stays where it is', async () => {
  const own = await startHost({ phrases: numbered(30) });
  try {
    for (const anchoring of [true, false]) {
      const context = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
      try {
        const page = await openAnchoring(context, `${own.url}/words`, anchoring);
        const cards = page.locator('main ul[role="list"] > li');
        const reading = (await cards.nth(12).locator('a > bdi').textContent()) ?? '';
        const read = page.locator('main ul[role="list"] > li', { has: page.locator('a > bdi', { hasText: new RegExp(`^${reading}$`) }) });
        await read.evaluate((element) => window.scrollBy(0, element.getBoundingClientRect().top - 200));
        await page.waitForTimeout(300);
        const top = () => read.evaluate((element) => Math.round(element.getBoundingClientRect().top));
        const before = await top();
        // The card just below the one read, on screen, goes to the top of the list.
        const moved = (await cards.nth(13).locator('a > bdi').textContent()) ?? '';
        writeTime(own, moved, 'MAX');
        await firstCardReads(page, moved);
        await page.waitForTimeout(500);
        assert.equal(await top(), before, `the card read stays where it was (${anchoring ? 'the browser anchoring' : 'no scroll anchoring'})`);
        const words = await page.locator('main ul[role="list"] > li a > bdi').allTextContents();
        assert.equal(words.filter((word) => word === moved).length, 1, 'the moved card shows once');
        // Put back below the rest for the second round.
        writeTime(own, moved, 'MIN');
      } finally {
        await context.close();
      }
    }
  } finally {
    await own.stop();
  }
});

test('a card with the keyboard focus whose time is written by hand keeps the focus where it goes', async () => {
  const own = await startHost({ phrases: numbered(30) });
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  try {
    const page = await context.newPage();
    await page.goto(`${own.url}/words`);
    await page.waitForSelector('html[data-hydrated="true"]');
    const link = page.locator('main ul[role="list"] > li').nth(9).locator('a');
    const moved = (await link.locator('> bdi').textContent()) ?? '';
    await link.focus();
    writeTime(own, moved, 'MAX');
    await firstCardReads(page, moved);
    await page.waitForTimeout(200);
    const focused = await page.evaluate(() => {
      const active = document.activeElement;
      return active?.matches('main ul[role="list"] > li > a') ? active.querySelector(':scope > bdi')?.textContent : active?.tagName;
    });
    assert.equal(focused, moved, 'the focus went with the card, not to the page');
  } finally {
    await context.close();
    await own.stop();
  }
});

test('while a find is on its way the list shown is dimmed, until the matches come', async () => {
  const { context, page, problems } = await openWords();
  let release;
  const held = new Promise((resolve) => (release = resolve));
  await page.route((url) => url.pathname === '/api/phrases' && url.searchParams.has('q'), async (route) => {
    await held;
    await route.continue();
  });
  const dimness = () => page.evaluate(() => Number(getComputedStyle(document.querySelector('main ul[role="list"]').parentElement).opacity));
  assert.equal(await dimness(), 1);
  await page.getByLabel('Type & Check').pressSequentially('good');
  await page.waitForFunction(() => Number(getComputedStyle(document.querySelector('main ul[role="list"]').parentElement).opacity) <= 0.5, null, { timeout: 3000 });
  release();
  await page.waitForFunction(() => Number(getComputedStyle(document.querySelector('main ul[role="list"]').parentElement).opacity) === 1, null, { timeout: 3000 });
  assert.deepEqual(await page.locator('main ul[role="list"] a > bdi').allInnerTexts(), ['GOOD LUCK!']);
  assert.deepEqual(problems, []);
  await context.close();
});

test('a reload of the list, or Back to it, leaves the visitor where the browser put them as the page comes alive', async () => {
  // Cards shorter than the grid's estimate of one: each row above the place, measured at
  // hydration, must not move the page.
  const own = await startHost({ phrases: Array.from({ length: 46 }, (_, i) => ({ id: `s${i}`, word: `SMALL ${i}`, name: `Tester ${i}` })) });
  const context = await browser.newContext({ viewport: { width: 360, height: 740 }, isMobile: true, hasTouch: true });
  try {
    const page = await context.newPage();
    await page.goto(`${own.url}/words`);
    await page.waitForSelector('html[data-hydrated="true"]');
    await page.evaluate(() => window.scrollTo(0, 2500));
    await page.waitForTimeout(300);
    const atTop = () => page.evaluate(() => {
      const card = [...document.querySelectorAll('main ul[role="list"] > li')].find((li) => li.getBoundingClientRect().bottom > 0);
      return `${card.querySelector('bdi').textContent} at ${Math.round(card.getBoundingClientRect().top)}`;
    });
    const before = await atTop();
    for (const [how, go] of [
      ['a reload', () => page.reload()],
      ['Back from a phrase page', async () => {
        // Clicked where it is: a click of Playwright's would scroll the card into view first.
        await page.evaluate(() => [...document.querySelectorAll('main ul[role="list"] > li')].find((li) => li.getBoundingClientRect().top > 0).querySelector('a').click());
        await page.waitForURL(/\/words\/[^/?]+$/);
        await page.goBack();
      }],
    ]) {
      await go();
      await page.waitForSelector('html[data-hydrated="true"]');
      await page.waitForTimeout(500);
      assert.equal(await page.evaluate(() => window.scrollY), 2500, `${how}: the place the browser restored`);
      assert.equal(await atTop(), before, `${how}: the card read first`);
    }
  } finally {
    await context.close();
    await own.stop();
  }
});

test('a card removed live while it has the keyboard focus hands the focus to the card now in its place', async () => {
  const phrases = Array.from({ length: 6 }, (_, i) => ({ id: `f${i}`, word: `FOCUS NUMBER ${i}`, name: `Name ${i}` }));
  const own = await startHost({ phrases });
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  try {
    const page = await context.newPage();
    await page.goto(`${own.url}/words`);
    await page.waitForSelector('html[data-hydrated="true"]');
    const cards = page.locator('main ul[role="list"] > li a');
    // Newest first: the second card is FOCUS NUMBER 4; reached by the keyboard.
    await cards.nth(1).focus();
    await page.keyboard.press('Shift+Tab');
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement?.closest('li')?.querySelector('bdi')?.textContent), 'FOCUS NUMBER 4');
    const removed = await own.cli('phrases', 'remove', 'f4');
    assert.equal(removed.code, 0, removed.stderr);
    await page.waitForFunction(() => ![...document.querySelectorAll('main ul[role="list"] a > bdi')].some((b) => b.textContent === 'FOCUS NUMBER 4'), null, { timeout: 5000 });
    assert.equal(await page.evaluate(() => document.activeElement?.closest('li')?.querySelector('bdi')?.textContent), 'FOCUS NUMBER 3', 'the focus on the card that took its place');
    // The keyboard goes on from there.
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement?.closest('li')?.querySelector('bdi')?.textContent), 'FOCUS NUMBER 2');
  } finally {
    await context.close();
    await own.stop();
  }
});

test('one change that removes every phrase loaded and mints new ones shows the new ones, not an empty list', async () => {
  const own = await startHost({ phrases: Array.from({ length: 60 }, (_, i) => ({ id: `o${i}`, word: `OLD ${i}`, name: 'Old' })) });
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  try {
    const page = await context.newPage();
    const problems = watchProblems(page);
    await page.goto(`${own.url}/words`);
    await page.waitForSelector('html[data-hydrated="true"]');
    // In one transaction, as an emulator restarted empty and refilled, or a restore, does.
    execFileSync('python3', [
      '-c',
      'import sqlite3,sys\nc=sqlite3.connect(sys.argv[1])\nc.execute("BEGIN IMMEDIATE")\nc.execute("DELETE FROM phrases")\nfor i in range(5): c.execute("INSERT INTO phrases (id, word, name) VALUES (?, ?, ?)", ("n%d" % i, "NEW %d" % i, "New"))\nc.execute("COMMIT")\nc.close()',
      join(own.dataDir, 'phrases.sqlite3'),
    ]);
    const shown = () => page.evaluate(() => [...document.querySelectorAll('main ul[role="list"] a > bdi')].map((bdi) => bdi.textContent));
    await page.waitForFunction(() => document.querySelectorAll('main ul[role="list"] a > bdi').length === 5, null, { timeout: 5000 }).catch(() => {});
    assert.deepEqual(await shown(), ['NEW 4', 'NEW 3', 'NEW 2', 'NEW 1', 'NEW 0']);
    assert.match(await page.locator('main h2', { hasText: /minted/i }).innerText(), /^5 Last Words minted$/i);
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
    await own.stop();
  }
});
