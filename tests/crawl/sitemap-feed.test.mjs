// The sitemap index and the Atom feed at 100,000 phrases, read by a real XML parser:
// every phrase page listed once with a lastmod, children of at most 50,000 URLs, the
// newest 50 in the feed with hostile names kept as text; an addition shows in both.
import { test, before, after } from '../support/test.mjs';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { allPhrases, startHost } from '../support/host.mjs';
import { poll } from '../support/poll.mjs';
import { escapeHtml } from '../hardening/page.mjs';

const TOTAL = 100_000;
const HOSTILE = ['<b>Bold</b> & "Co"', "It's ]]> <![CDATA[x]]>", 'שלום abc', 'Ñ'.repeat(40)];

let host;
let phrases;
// Kept for the restart at the end.
const dataDir = mkdtempSync(join(tmpdir(), 'lastwords-crawl-'));
// The test reads all 100,000 phrases through the API from one address, as fast as it
// can: the rate limit (proxy.test.mjs) would slow it down, as it does a crawler.
const args = ['--rate-limit-per-s', '0'];
const parser = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '', isArray: (name) => ['url', 'sitemap', 'entry', 'link'].includes(name) });

before(async () => {
  const folder = mkdtempSync(join(tmpdir(), 'lastwords-crawl-'));
  const file = join(folder, 'phrases.json');
  const entries = Array.from({ length: TOTAL }, (_, i) => ({ word: `<I>${i}</I> & "Q"`, name: HOSTILE[i % HOSTILE.length] }));
  writeFileSync(file, JSON.stringify(entries));
  host = await startHost({
    dataDir,
    args,
    prepare: async (cli) => {
      for (const args of [['phrases', 'init'], ['phrases', 'import', file]]) {
        const run = await cli(...args);
        assert.equal(run.code, 0, run.stderr);
      }
    },
  });
  rmSync(folder, { recursive: true, force: true });
  phrases = await allPhrases(host.url);
  assert.equal(phrases.length, TOTAL);
});

after(async () => {
  await host?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

async function xml(path, type = 'application/xml; charset=utf-8', base = host.url) {
  const response = await fetch(`${base}${path}`);
  assert.equal(response.status, 200, path);
  assert.equal(response.headers.get('content-type'), type, path);
  const text = await response.text();
  const valid = XMLValidator.validate(text);
  assert.equal(valid, true, `${path}: ${JSON.stringify(valid)}`);
  return parser.parse(text);
}

const pageUrl = (id) => `${host.url}/words/${encodeURIComponent(id)}`;
const isTime = (text) => /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/.test(text) && !Number.isNaN(Date.parse(text));

test('the sitemap is an index of children of at most 50,000 URLs that list every phrase page once', async () => {
  const robots = await (await fetch(`${host.url}/robots.txt`)).text();
  assert.match(robots, new RegExp(`Sitemap: ${host.url}/sitemap.xml`));
  const index = await xml('/sitemap.xml');
  const children = index.sitemapindex.sitemap;
  assert.equal(children[0].loc, `${host.url}/sitemaps/pages.xml`);
  assert.ok(children.length >= 3, `${children.length - 1} children for 100,000 phrases`);
  for (const child of children.slice(1)) assert.match(child.loc, /\/sitemaps\/phrases-\d+-\d+\.xml$/);
  assert.ok(children.every((child) => isTime(child.lastmod)), 'every child has a lastmod');

  const pages = await xml('/sitemaps/pages.xml');
  assert.deepEqual(pages.urlset.url.map((url) => url.loc), [`${host.url}/`, `${host.url}/words`]);

  const listed = [];
  for (const child of children.slice(1)) {
    const urls = (await xml(new URL(child.loc).pathname)).urlset.url;
    assert.ok(urls.length <= 50_000, `${child.loc}: ${urls.length} URLs`);
    assert.ok(urls.every((url) => isTime(url.lastmod)), 'every URL has a lastmod');
    listed.push(...urls.map((url) => url.loc));
  }
  assert.equal(listed.length, TOTAL);
  assert.equal(new Set(listed).size, TOTAL, 'each page once');
  // Oldest first, each child the phrases of a span of time, so an addition changes the
  // newest child only.
  assert.deepEqual(listed, phrases.map((phrase) => pageUrl(phrase.id)).reverse());

  // A child that is not there is the site's 404 page, as any other missing page is: a
  // span no phrase was created in, one no shelf could be, and the old numbered names.
  for (const name of ['phrases-0-0.xml', 'phrases-8-14.xml', 'phrases-0-18446744073709551616.xml', 'phrases-1.xml', 'pages', 'other.xml']) {
    const missing = await fetch(`${host.url}/sitemaps/${name}`);
    assert.equal(missing.status, 404, name);
    assert.equal(missing.headers.get('content-type'), 'text/html; charset=utf-8', name);
    assert.match(await missing.text(), /<h1[^>]*>/, name);
  }
});

test('the Atom feed holds the newest 50, each linking to its page, everything escaped', async () => {
  const words = await (await fetch(`${host.url}/words`)).text();
  assert.match(words, new RegExp(`<link rel="alternate" type="application/atom\\+xml" title="[^"]+" href="${host.url}/feed.atom">`));
  const { feed } = await xml('/feed.atom', 'application/atom+xml; charset=utf-8');
  assert.equal(feed.xmlns, 'http://www.w3.org/2005/Atom');
  assert.ok(isTime(feed.updated));
  assert.equal(feed.entry.length, 50);
  feed.entry.forEach((entry, i) => {
    const phrase = phrases[i];
    assert.equal(entry.id, pageUrl(phrase.id));
    assert.equal(entry.link[0].href, pageUrl(phrase.id));
    assert.equal(entry.title, phrase.word);
    assert.equal(entry.author.name, phrase.name);
    assert.ok(isTime(entry.updated));
  });
  assert.ok(feed.entry.some((entry) => entry.author.name === HOSTILE[0]), 'markup in a name is text');
});

test('an addition is in the feed and in the newest child at once', async () => {
  const run = await host.cli('phrases', 'add', '<NEW> & "FRESH"', '--name', '<script>x</script>');
  assert.equal(run.code, 0, run.stderr);
  let feed;
  const newest = async () => {
    ({ feed } = await xml('/feed.atom', 'application/atom+xml; charset=utf-8'));
    return feed.entry[0].title;
  };
  await poll(newest, (title) => title === '<NEW> & "FRESH"', 10_000, 'the addition at the top of the feed');
  assert.equal(feed.entry[0].author.name, '<script>x</script>');
  assert.equal(feed.entry.length, 50);
  const last = (await xml('/sitemap.xml')).sitemapindex.sitemap.at(-1);
  assert.equal((await xml(new URL(last.loc).pathname)).urlset.url.at(-1).loc, feed.entry[0].id);
  const page = await fetch(feed.entry[0].id);
  assert.equal(page.status, 200);
  assert.ok((await page.text()).includes(`<bdi>${escapeHtml('<NEW> & "FRESH"')}</bdi>`), 'the entry links to the phrase\'s own page');
});

async function currentVersion() {
  return (await (await fetch(`${host.url}/api/phrases?limit=1`)).json()).version;
}

async function made() {
  const metrics = await (await fetch(`${host.url}/metrics`)).text();
  return Number(metrics.match(/^lastwords_listings_made_total (\d+)$/m)[1]);
}

async function etag(path) {
  const response = await fetch(`${host.url}${path}`);
  assert.equal(response.status, 200, path);
  await response.arrayBuffer();
  return response.headers.get('etag');
}

/** Each child of a sitemap index by path, with its lastmod. */
const childDates = (index) => Object.fromEntries(index.sitemapindex.sitemap.map((child) => [new URL(child.loc).pathname, child.lastmod]));

// A crawler that comes back asks with the ETags it kept: a change answers 304 for every
// child but the one it falls in, and the host does not make those children again.
test('a change makes again only the child it falls in', async () => {
  const childPaths = async () => (await xml('/sitemap.xml')).sitemapindex.sitemap.slice(1).map((child) => new URL(child.loc).pathname);
  const listedIn = async (path) => (await xml(path)).urlset.url.map((url) => url.loc);
  const children = await childPaths();
  const kept = await Promise.all(children.map(etag));
  // Waits until the host holds the list after the change just made (its version moved
  // past `version`) and its listings follower has reached that list too: only then is a
  // document made for it kept, so an index asked for twice is made once.
  const settle = async (version) => {
    await poll(currentVersion, (now) => now > version, 10_000, 'the change on the host');
    await poll(async () => {
      const from = await made();
      await xml('/sitemap.xml');
      await xml('/sitemap.xml');
      return (await made()) - from;
    }, (madeForTwo) => madeForTwo === 1, 10_000, 'the listings kept for the new list (an index asked twice, made once)');
  };
  const asAgain = async () => Promise.all(children.map(async (path, i) => {
    const response = await fetch(`${host.url}${path}`, { headers: { 'if-none-match': kept[i] ?? '' } });
    await response.arrayBuffer();
    return response.status;
  }));

  const beforeAdding = await currentVersion();
  const added = await host.cli('phrases', 'add', 'ONE MORE', '--name', 'crawler');
  assert.equal(added.code, 0, added.stderr);
  await settle(beforeAdding);
  let before = await made();
  // The newest child, or one new after it when the addition's time is past its span.
  const newest = (await childPaths()).at(-1);
  assert.deepEqual(await asAgain(), children.map((path) => (path === newest ? 200 : 304)), 'an addition changes only the newest child');
  assert.equal(await made(), before + Number(children.includes(newest)), 'only the newest child was made again');
  const [addition] = (await (await fetch(`${host.url}/api/phrases?limit=1`)).json()).phrases;
  assert.equal(addition.word, 'ONE MORE');
  assert.equal((await listedIn(newest)).at(-1), pageUrl(addition.id));

  // A phrase of the second child: the phrases around it stay in their children.
  kept.splice(0, kept.length, ...(await Promise.all(children.map(etag))));
  const second = children[1];
  const held = Object.fromEntries(await Promise.all(children.map(async (path) => [path, await listedIn(path)])));
  const gone = held[second][Math.floor(held[second].length / 2)];
  const beforeRemoving = await currentVersion();
  const datesBefore = childDates(await xml('/sitemap.xml'));
  const removedAt = Math.floor(Date.now() / 1000) * 1000;
  const removed = await host.cli('phrases', 'remove', decodeURIComponent(gone.split('/').at(-1)));
  assert.equal(removed.code, 0, removed.stderr);
  await settle(beforeRemoving);
  before = await made();
  const removal = children.map((path) => (path === second ? 200 : 304));
  assert.deepEqual(await asAgain(), removal, 'a removal changes only its own child');
  assert.deepEqual(await asAgain(), removal);
  assert.equal(await made(), before + 1, 'the other children were kept; the second made once');
  assert.deepEqual(await listedIn(second), held[second].filter((url) => url !== gone));
  for (const path of children.filter((path) => path !== second)) {
    assert.deepEqual(await listedIn(path), held[path], path);
  }
  // The removal left no phrase to date it: the child it left, and the site's pages that
  // count it, are dated when it happened, so a crawler reading the index fetches them.
  const datesAfter = childDates(await xml('/sitemap.xml'));
  for (const path of ['/sitemaps/pages.xml', second]) {
    assert.ok(Date.parse(datesAfter[path]) >= removedAt, `${path}: ${datesAfter[path]}, removed at ${new Date(removedAt).toISOString()}`);
  }
  for (const path of children.filter((path) => path !== second)) {
    assert.equal(datesAfter[path], datesBefore[path], `${path} keeps its date`);
  }

  // Every phrase once, across the children the index names.
  const index = await xml('/sitemap.xml');
  const listed = [];
  for (const child of index.sitemapindex.sitemap.slice(1)) {
    listed.push(...(await xml(new URL(child.loc).pathname)).urlset.url.map((url) => url.loc));
  }
  assert.equal(listed.length, TOTAL + 2 - 1);
  assert.equal(new Set(listed).size, listed.length, 'each page once');
});

// Behind a load balancer a crawler reads the index from one replica and each child from
// any other: a child's name and its phrases are the list's alone, not the history of the
// host that serves it. Here the first host has seen an addition and a removal (above)
// that the second, started after them, never saw.
test('a host started later on the same store names the same children, each with the same phrases', async () => {
  const second = await startHost({ dataDir, args });
  try {
    const children = async (base) => {
      const index = await xml('/sitemap.xml', undefined, base);
      const paths = index.sitemapindex.sitemap.map((child) => new URL(child.loc).pathname);
      const listed = await Promise.all(paths.map(async (path) =>
        (await xml(path, undefined, base)).urlset.url.map((url) => new URL(url.loc).pathname)));
      return Object.fromEntries(paths.map((path, i) => [path, listed[i]]));
    };
    const [first, later] = [await children(host.url), await children(second.url)];
    assert.deepEqual(Object.keys(later), Object.keys(first), 'the same children');
    for (const [path, listed] of Object.entries(first)) {
      assert.ok(later[path].length === listed.length && later[path].every((page, i) => page === listed[i]), `${path}: ${listed.length} pages on the first host, ${later[path].length} on the second`);
    }
  } finally {
    await second.stop();
  }
});

test('phrases imported by the hundred while the host runs are dated when they came, not when the host started', async () => {
  // Past the host's start by more than the second a date counts.
  const started = Date.now();
  await new Promise((resolve) => setTimeout(resolve, 1100));
  const folder = mkdtempSync(join(tmpdir(), 'lastwords-crawl-'));
  const file = join(folder, 'more.json');
  // More than one change the live feed lists: it arrives as a new list, not a delta.
  writeFileSync(file, JSON.stringify(Array.from({ length: 600 }, (_, i) => ({ word: `LATE ${i}`, name: 'importer' }))));
  const imported = await host.cli('phrases', 'import', file);
  rmSync(folder, { recursive: true, force: true });
  assert.equal(imported.code, 0, imported.stderr);
  let feed;
  await poll(async () => {
    ({ feed } = await xml('/feed.atom', 'application/atom+xml; charset=utf-8'));
    return feed.entry[0].title;
  }, (title) => title === 'LATE 599', 10_000, 'the import at the top of the feed');
  for (const entry of feed.entry) {
    assert.ok(Date.parse(entry.updated) >= Math.floor(started / 1000) * 1000 + 1000, `${entry.title}: ${entry.updated}`);
  }
  assert.ok(Date.parse(feed.updated) >= Date.parse(feed.entry[0].updated));
  const index = await xml('/sitemap.xml');
  const last = index.sitemapindex.sitemap.at(-1);
  // The newest children: the import's last phrases may straddle two spans of time.
  const urls = [];
  for (const child of index.sitemapindex.sitemap.slice(-2)) urls.push(...(await xml(new URL(child.loc).pathname)).urlset.url);
  const late = urls.filter((url) => feed.entry.some((entry) => entry.id === url.loc));
  assert.equal(late.length, 50);
  assert.ok(late.every((url) => Date.parse(url.lastmod) > started), 'their lastmod too');
  assert.ok(Date.parse(last.lastmod) > started, "and their child's");
});

test('a restart leaves every date as it was: a crawler is not told that every page changed', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'lastwords-crawl-'));
  const file = join(dataDir, 'few.json');
  writeFileSync(file, JSON.stringify(Array.from({ length: 300 }, (_, i) => ({ word: `KEPT ${i}`, name: 'dated' }))));
  const dates = async (base) => {
    const sitemap = (await xml('/sitemap.xml', undefined, base)).urlset.url;
    const { feed } = await xml('/feed.atom', 'application/atom+xml; charset=utf-8', base);
    return {
      lastmod: Object.fromEntries(sitemap.map((url) => [new URL(url.loc).pathname, url.lastmod])),
      updated: Object.fromEntries(feed.entry.map((entry) => [new URL(entry.id).pathname, entry.updated])),
      feed: feed.updated,
    };
  };
  let running;
  try {
    running = await startHost({
      dataDir,
      prepare: async (cli) => {
        for (const args of [['phrases', 'init'], ['phrases', 'import', file]]) {
          const run = await cli(...args);
          assert.equal(run.code, 0, run.stderr);
        }
      },
    });
    const before = await dates(running.url);
    assert.equal(Object.keys(before.lastmod).filter((path) => path.startsWith('/words/')).length, 300);
    await running.stop();
    // Past the second a date counts, so that a date made at start would differ.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    running = await startHost({ dataDir });
    assert.deepEqual(await dates(running.url), before);
  } finally {
    await running?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('past 50,000 phrases too, a restart leaves the sitemap index, its children and the feed as they were', async () => {
  const documents = async () => {
    const index = await xml('/sitemap.xml');
    const paths = ['/sitemap.xml', '/feed.atom', ...index.sitemapindex.sitemap.map((child) => new URL(child.loc).pathname)];
    return Object.fromEntries(await Promise.all(paths.map(async (path) => [path, await (await fetch(`${host.url}${path}`)).text()])));
  };
  const before = await documents();
  assert.ok(Object.keys(before).length >= 5, Object.keys(before).join(" "));
  await host.stop();
  await new Promise((resolve) => setTimeout(resolve, 1100));
  host = await startHost({ dataDir, args });
  const again = await documents();
  const here = (text) => text.replaceAll(/127\.0\.0\.1:\d+/g, new URL(host.url).host);
  for (const [path, text] of Object.entries(before)) {
    if (path !== '/sitemap.xml') assert.equal(again[path], here(text), path);
  }
  // The index's dates of a removal (above) were the host's own: after a restart those
  // children go back to their newest phrase's time, never forward, so a crawler is not
  // sent to fetch what it has.
  const [datesBefore, datesAgain] = [before, again].map((docs) => childDates(parser.parse(docs['/sitemap.xml'])));
  assert.deepEqual(Object.keys(datesAgain), Object.keys(datesBefore));
  for (const [path, date] of Object.entries(datesBefore)) {
    assert.ok(Date.parse(datesAgain[path]) <= Date.parse(date), `${path}: ${datesAgain[path]} after the restart, ${date} before`);
  }
  // The last child, where the additions went and nothing left, keeps its date.
  const last = Object.keys(datesBefore).at(-1);
  assert.equal(datesAgain[last], datesBefore[last], last);
});
