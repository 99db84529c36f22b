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
