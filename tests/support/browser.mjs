// Debian's Chromium driven by playwright-core; never a downloaded browser.
import { chromium } from 'playwright-core';

export const CHROMIUM_ARGS = [
  '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
  '--disable-dev-shm-usage',
];

/**
 * Chromium as the tests drive it; `backForwardCache` keeps the cache of pages left by
 * Back and Forward that browsers have and Playwright turns off by default.
 */
export function launch({ backForwardCache = false } = {}) {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: CHROMIUM_ARGS,
    ignoreDefaultArgs: backForwardCache ? ['--disable-back-forward-cache'] : [],
  });
}

/**
 * Collects everything a page reports that a visitor's console would show as a problem:
 * errors, warnings (React's hydration warnings among them), CSP violations, page errors.
 */
export function watchProblems(page) {
  const problems = [];
  page.on('console', (message) => {
    if (['error', 'warning'].includes(message.type())) problems.push(`${message.type()}: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
  page.on('requestfailed', (request) => {
    const failure = request.failure()?.errorText ?? '';
    // A socket closed by the test's own navigation is not a problem of the page, nor a
    // module preloaded that a browser with JavaScript turned off refuses (as "csp").
    const refusedScript = failure === 'csp' && request.resourceType() === 'script';
    if (!failure.includes('ERR_ABORTED') && !refusedScript) problems.push(`requestfailed: ${request.url()} ${failure}`);
  });
  return problems;
}

/**
 * A fresh context at `viewport` with `url` open, its islands hydrated and its fonts
 * loaded: the page as a visitor first sees it, and the problems it reports from the
 * start (see `watchProblems`). Close the returned context when done.
 */
export async function openHydrated(browser, url, viewport) {
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  const problems = watchProblems(page);
  await page.goto(url);
  await page.waitForSelector('html[data-hydrated="true"]', { timeout: 10_000 });
  await page.evaluate(() => document.fonts.ready);
  return { context, page, problems };
}
