// Every page (a phrase's too) at a phone's, a tablet's, a desktop's and a wide screen's size: a full-page
// screenshot of each is kept in tests/artifacts/screenshots/ for a person to look at,
// and nothing may stick out sideways (no horizontal scrolling at any size).
import { test, before, after } from '../support/test.mjs';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { startHost } from '../support/host.mjs';
import { launch, openHydrated } from '../support/browser.mjs';
import { samplePhrases } from '../support/sample-phrases.mjs';

const screenshotDir = fileURLToPath(new URL('../artifacts/screenshots/', import.meta.url));
const pages = [
  { name: 'home', path: '/' },
  { name: 'words', path: '/words' },
  // The unbroken 20-character phrase: the longest line a phrase's heading can hold.
  { name: 'phrase', path: '/words/p06' },
];
const viewports = [
  { width: 390, height: 844 },
  { width: 768, height: 1024 },
  { width: 1440, height: 900 },
  { width: 1920, height: 1080 },
];

let host;
let browser;

before(async () => {
  mkdirSync(screenshotDir, { recursive: true });
  host = await startHost({ phrases: samplePhrases });
  browser = await launch();
});

after(async () => {
  await browser?.close();
  await host?.stop();
});

for (const { name, path } of pages) {
  for (const viewport of viewports) {
    const size = `${viewport.width}x${viewport.height}`;
    test(`${path} at ${size}: no horizontal overflow; screenshot ${name}-${size}.png`, async () => {
      const { context, page } = await openHydrated(browser, `${host.url}${path}`, viewport);
      try {
        await loadLazyImages(page);
        // Stopped animations put the meteorites where they start, so shots compare.
        await page.screenshot({ path: `${screenshotDir}${name}-${size}.png`, fullPage: true, animations: 'disabled' });
        const { scrollWidth, innerWidth } = await page.evaluate(() => ({
          scrollWidth: document.scrollingElement.scrollWidth,
          innerWidth: window.innerWidth,
        }));
        if (scrollWidth > innerWidth) {
          const culprits = await page.evaluate(pastRightEdge);
          assert.fail(
            `${path} at ${size} scrolls sideways: scrollWidth ${scrollWidth} > innerWidth ${innerWidth}; ` +
              `past the right edge: ${culprits.join(', ') || '(no element found)'}`,
          );
        }
      } finally {
        await context.close();
      }
    });
  }
}

// A 20-letter word broke as "EXTINCTIONISFOREVE / R!" in a card of four columns: a word
// wider than its card is set smaller, at every layout, with or without JavaScript.
test('the list\'s cards break no word of a phrase across lines, at any width', async () => {
  for (const javaScriptEnabled of [true, false]) {
    for (const width of [320, 390, 700, 800, 1024, 1100, 1440, 1920]) {
      const context = await browser.newContext({ viewport: { width, height: 900 }, javaScriptEnabled });
      try {
        const page = await context.newPage();
        await page.goto(`${host.url}/words`);
        await page.evaluate(() => document.fonts.ready);
        const broken = await page.evaluate(() =>
          [...document.querySelectorAll('ul[role="list"] a > bdi')].flatMap((bdi) => {
            const text = bdi.firstChild;
            return [...text.textContent.matchAll(/[A-Z0-9!?.,'&-]+/g)].filter((word) => {
              const range = document.createRange();
              range.setStart(text, word.index);
              range.setEnd(text, word.index + word[0].length);
              return new Set([...range.getClientRects()].map((box) => Math.round(box.top))).size > 1;
            }).map((word) => word[0]);
          }),
        );
        assert.deepEqual(broken, [], `${width} px, JavaScript ${javaScriptEnabled ? 'on' : 'off'}`);
      } finally {
        await context.close();
      }
    }
  }
});

// A phone set to large text (Chrome's text scaling, iOS Dynamic Type) grows every rem:
// at twice the size on the narrowest phone the page still fits, and the menu is in reach.
// At 390 px the checker's label kept to one line and ran under its counter.
for (const { name, path } of pages) {
  for (const width of [320, 390]) {
    test(`${path} at ${width} px with text at 200 %: no horizontal overflow, the menu button on screen, no words over others`, async () => {
      const viewport = { width, height: 640 };
      const { context, page } = await openHydrated(browser, `${host.url}${path}`, viewport);
      try {
        await page.evaluate(() => {
          document.documentElement.style.fontSize = '200%';
        });
        await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 50))));
        await page.screenshot({ path: `${screenshotDir}${name}-${width}-text-200.png`, fullPage: true, animations: 'disabled' });
        const { scrollWidth, innerWidth, menu } = await page.evaluate(() => {
          const button = document.querySelector('header button');
          const box = button?.getBoundingClientRect();
          return {
            scrollWidth: document.scrollingElement.scrollWidth,
            innerWidth: window.innerWidth,
            menu: box && { left: box.left, right: box.right },
          };
        });
        assert.ok(menu, 'the header has its menu button');
        assert.ok(menu.left >= 0 && menu.right <= innerWidth, `the menu button at ${menu.left}–${menu.right} of ${innerWidth}`);
        if (scrollWidth > innerWidth) {
          const culprits = await page.evaluate(pastRightEdge);
          assert.fail(`${path} scrolls sideways: ${scrollWidth} > ${innerWidth}; past the right edge: ${culprits.join(', ')}`);
        }
        // Shown ones only: the skip link waits off screen until it is focused.
        const cutLeft = await page.evaluate(() =>
          [...document.body.querySelectorAll('a, h1, h2, p')]
            .filter((element) => {
              const box = element.getBoundingClientRect();
              return box.left < -0.5 && box.width > 1 && box.right > 0;
            })
            .map((element) => `${element.tagName} ${element.className} ${element.textContent.slice(0, 30)}`),
        );
        assert.deepEqual(cutLeft, [], 'nothing starts left of the screen');
        assert.deepEqual(await page.evaluate(overlappingText), [], 'no words drawn over others');
        // The display headings grow only as far as their column lets: a word is broken at
        // its hyphen, never within (THE CREA/TOR, DINOSA/URS). At 320 px the padding,
        // doubled too, leaves some columns narrower than a long word at the default size.
        if (width >= 390) assert.deepEqual(await page.evaluate(wordsBrokenWithin, 'main h1, main h2, main h3'), [], 'no heading breaks a word within');
      } finally {
        await context.close();
      }
    });
  }
}

// Without JavaScript the checker has a button too, beside its counter above the box.
for (const width of [390, 414]) {
  test(`/words without JavaScript at ${width} px, text at 200 %: no words over others`, async () => {
    const context = await browser.newContext({ viewport: { width, height: 640 }, javaScriptEnabled: false });
    try {
      const page = await context.newPage();
      await page.goto(`${host.url}/words`);
      await page.evaluate(() => {
        document.documentElement.style.fontSize = '200%';
      });
      assert.deepEqual(await page.evaluate(overlappingText), []);
    } finally {
      await context.close();
    }
  });
}

/**
 * Pairs of shown pieces of text whose lines cross each other's: each element's own text
 * (not its children's), by the boxes of its lines. Runs in the page.
 */
function overlappingText() {
  const pieces = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (!node.textContent.trim()) continue;
    // A closed <details>' answer is laid out but not drawn.
    if (!node.parentElement.checkVisibility({ opacityProperty: true, visibilityProperty: true })) continue;
    const range = document.createRange();
    range.selectNodeContents(node);
    // As shown: cut to every box above it that clips what overflows it (a closed answer
    // of the FAQ is laid out in a box of no height).
    let boxes = [...range.getClientRects()].map(({ left, top, right, bottom }) => ({ left, top, right, bottom }));
    for (let above = node.parentElement; above; above = above.parentElement) {
      if (getComputedStyle(above).overflow === 'visible') continue;
      const clip = above.getBoundingClientRect();
      boxes = boxes.map((box) => ({
        left: Math.max(box.left, clip.left),
        top: Math.max(box.top, clip.top),
        right: Math.min(box.right, clip.right),
        bottom: Math.min(box.bottom, clip.bottom),
      }));
    }
    boxes = boxes.filter((box) => box.right - box.left > 1 && box.bottom - box.top > 1);
    if (!boxes.length) continue;
    // Visually hidden text (sr-only) is clipped to a pixel.
    if (node.parentElement.closest('.sr-only')) continue;
    pieces.push({ text: node.textContent.trim().slice(0, 30), boxes });
  }
  const crossing = (a, b) => a.left < b.right - 1 && b.left < a.right - 1 && a.top < b.bottom - 1 && b.top < a.bottom - 1;
  const found = [];
  for (let i = 0; i < pieces.length; i++) {
    for (let j = i + 1; j < pieces.length; j++) {
      if (pieces[i].boxes.some((a) => pieces[j].boxes.some((b) => crossing(a, b)))) found.push(`"${pieces[i].text}" × "${pieces[j].text}"`);
    }
  }
  return found;
}

// A full-page shot does not scroll, so `loading="lazy"` art below the first screen would
// show as empty boxes: scroll the page through once, then wait for every shown image.
async function loadLazyImages(page) {
  await page.evaluate(async () => {
    const frame = () => new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 30)));
    for (let y = 0; y < document.scrollingElement.scrollHeight; y += window.innerHeight / 2) {
      window.scrollTo(0, y);
      await frame();
    }
    window.scrollTo(0, 0);
    await frame();
  });
  await page.waitForFunction(
    () => [...document.images].every((image) => image.complete || image.getClientRects().length === 0),
    null,
    { timeout: 10_000 },
  );
}

// Runs in the page: the innermost elements whose right edge passes the viewport's,
// named by tag, id and classes, so a failure points at the culprits.
function pastRightEdge() {
  const limit = document.documentElement.clientWidth + 0.5;
  const past = [...document.body.querySelectorAll('*')].filter((element) => element.getBoundingClientRect().right > limit);
  const innermost = past.filter((element) => !past.some((other) => other !== element && element.contains(other)));
  return innermost.slice(0, 8).map((element) => {
    const id = element.id ? `#${element.id}` : '';
    const classes = typeof element.className === 'string' && element.className ? `.${element.className.trim().split(/\s+/).join('.')}` : '';
    return `${element.tagName.toLowerCase()}${id}${classes} (right ${Math.round(element.getBoundingClientRect().right)})`;
  });
}

/** The words (between spaces and after hyphens) of the elements `selector` finds that are laid out on two lines. */
function wordsBrokenWithin(selector) {
  const broken = [];
  for (const element of document.querySelectorAll(selector)) {
    if (element.getBoundingClientRect().width === 0) continue;
    const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (const match of node.textContent.matchAll(/[^\s\u00a0-]+-?/g)) {
        const range = document.createRange();
        range.setStart(node, match.index);
        range.setEnd(node, match.index + match[0].replace(/-$/, '').length);
        const tops = new Set([...range.getClientRects()].filter((rect) => rect.width > 0).map((rect) => Math.round(rect.top)));
        if (tops.size > 1) broken.push(`${element.tagName} ${match[0]}`);
      }
    }
  }
  return broken;
}
