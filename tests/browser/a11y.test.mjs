// Accessibility: axe-core's rules (WCAG 2.x A/AA and its best practices) find nothing on
// any page (a phrase's too), at a phone's and a desktop's size, once the islands have hydrated; and
// on the phone with the menu open, the one state that puts different content on screen.
import { test, before, after } from '../support/test.mjs';
import assert from 'node:assert/strict';
import { AxeBuilder } from '@axe-core/playwright';
import { startHost } from '../support/host.mjs';
import { launch, openHydrated } from '../support/browser.mjs';
import { samplePhrases } from '../support/sample-phrases.mjs';

const viewports = {
  mobile: { width: 390, height: 844 },
  desktop: { width: 1440, height: 900 },
};

let host;
let browser;

before(async () => {
  host = await startHost({ phrases: samplePhrases });
  browser = await launch();
});

after(async () => {
  await browser?.close();
  await host?.stop();
});

for (const path of ['/', '/words', `/words/${encodeURIComponent(samplePhrases[0].id)}`]) {
  for (const [size, viewport] of Object.entries(viewports)) {
    test(`axe finds no violation on ${path} at ${size} size (${viewport.width}×${viewport.height})`, async (t) => {
      await checkPage(t, path, viewport);
    });
  }
}

test('axe finds no violation on / with the mobile menu open', async (t) => {
  await checkPage(t, '/', viewports.mobile, async (page) => {
    const opener = page.getByRole('button', { name: 'Open menu' });
    const panelId = await opener.getAttribute('aria-controls');
    assert.ok(panelId, 'the menu button names its panel with aria-controls');
    await opener.click();
    await page.locator(`[id="${panelId}"]`).waitFor({ state: 'visible' });
    // The panel animates in over 200 ms; judge its colours once it has arrived.
    await page.waitForTimeout(400);
  });
});

test('axe finds no violation on /words with phrases held above the list, nor once they are in and marked as new', async (t) => {
  const own = await startHost({ phrases: Array.from({ length: 60 }, (_, i) => ({ id: `n${i}`, word: `PHRASE ${i}`, name: `Name ${i}` })) });
  t.after(() => own.stop());
  const { context, page } = await openHydrated(browser, `${own.url}/words`, viewports.desktop);
  try {
    await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
    await page.waitForTimeout(300);
    assert.equal((await own.cli('phrases', 'add', 'HELD ABOVE', '--name', 'Live')).code, 0);
    const note = page.getByRole('button', { name: 'Show 1 new' });
    await note.waitFor({ timeout: 5000 });
    const analyze = async (state) => {
      const { violations } = await new AxeBuilder({ page }).analyze();
      assert.equal(violations.length, 0, `axe with ${state}:\n${describe(violations)}`);
    };
    await analyze('the note shown');
    await note.click();
    await page.locator('main ul[role="list"] > li[data-fresh]').waitFor({ timeout: 5000 });
    await page.waitForTimeout(400);
    await analyze('a card marked as new');
  } finally {
    await context.close();
  }
});

test('on a phone every control a thumb aims at is at least 44 px square; links within a sentence are text', async () => {
  for (const path of ['/', '/words', `/words/${encodeURIComponent(samplePhrases[0].id)}`]) {
    const { context, page } = await openHydrated(browser, `${host.url}${path}`, viewports.mobile);
    try {
      // Buttons and links that stand alone (not inside running text), as rendered.
      const small = await page.evaluate(() =>
        [...document.querySelectorAll('a[href], button')]
          // The skip link is a pixel until focused.
          .filter((el) => el.checkVisibility() && !el.closest('p') && !el.classList.contains('sr-only'))
          .map((el) => ({ name: el.getAttribute('aria-label') ?? el.textContent.trim().slice(0, 30), ...el.getBoundingClientRect().toJSON() }))
          .filter(({ width, height }) => width < 44 || height < 44)
          .map(({ name, width, height }) => `${name} ${Math.round(width)}×${Math.round(height)}`),
      );
      assert.deepEqual(small, [], path);
    } finally {
      await context.close();
    }
  }
});

/**
 * Opens `path` hydrated at `viewport`, runs `prepare`, then every axe rule on the page.
 * What axe could not decide (contrast over an image, say) is reported, not failed.
 */
async function checkPage(t, path, viewport, prepare = async () => {}) {
  const { context, page } = await openHydrated(browser, `${host.url}${path}`, viewport);
  try {
    await prepare(page);
    const { violations, incomplete } = await new AxeBuilder({ page }).analyze();
    for (const rule of incomplete) {
      t.diagnostic(`needs review: ${rule.id} on ${rule.nodes.map((node) => node.target.join(' ')).join(', ')}`);
    }
    assert.equal(violations.length, 0, `axe on ${path} at ${viewport.width}×${viewport.height}:\n${describe(violations)}`);
  } finally {
    await context.close();
  }
}

function describe(violations) {
  return violations
    .map((violation) => {
      const nodes = violation.nodes
        .map((node) => `    ${node.target.join(' ')}\n      ${node.failureSummary?.replace(/\n/g, '\n      ')}`)
        .join('\n');
      return `  ${violation.id} (${violation.impact}): ${violation.help}\n    ${violation.helpUrl}\n${nodes}`;
    })
    .join('\n');
}

test('in forced colours (Windows High Contrast), every stop of the keyboard shows where the focus is', async () => {
  for (const path of ['/', '/words']) {
    const context = await browser.newContext({ viewport: viewports.desktop, forcedColors: 'active' });
    const page = await context.newPage();
    await page.goto(`${host.url}${path}`);
    await page.waitForSelector('html[data-hydrated="true"]', { timeout: 10_000 });
    // Forced colours drop shadows and rings: an outline is what is left to show the focus.
    const unmarked = [];
    for (let stop = 0; stop < 25; stop++) {
      await page.keyboard.press('Tab');
      const focused = await page.evaluate(() => {
        const element = document.activeElement;
        const style = getComputedStyle(element);
        return { name: element.getAttribute('aria-label') ?? element.textContent.trim().slice(0, 30), tag: element.tagName, outline: style.outlineStyle, width: parseFloat(style.outlineWidth) };
      });
      if (focused.tag === 'BODY') break;
      if (focused.outline === 'none' || !(focused.width > 0)) unmarked.push(`${path}: ${focused.tag} ${focused.name}`);
    }
    assert.deepEqual(unmarked, []);
    await context.close();
  }
});
