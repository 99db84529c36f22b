// Reads a rendered page the way the tests need it: where a browser would end the props
// script, what the props are, and whether anything from the data became markup.
import assert from 'node:assert/strict';

/** Text as React writes it into HTML text and attribute values. */
export function escapeHtml(text) {
  return text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#x27;');
}

const PROPS_OPEN = '<script type="application/json" id="__props">';
/** Elements no page of ours has, and markup injected from data would bring (our <img>s are
 * allowed, and must show our assets). */
const FOREIGN_ELEMENTS = ['iframe', 'object', 'embed', 'base', 'frame', 'frameset', 'applet', 'math', 'template'];

/**
 * The props of a page, read as a browser would: the script element ends at the first
 * `</script` followed by a space, `/` or `>` (case-insensitive), and a `<!--` inside it
 * would change the tokenizer's state, so none may appear. Returns the raw text and the
 * parsed value.
 */
export function propsOf(html) {
  const start = html.indexOf(PROPS_OPEN);
  assert.ok(start >= 0, 'the page has a __props script');
  const rest = html.slice(start + PROPS_OPEN.length);
  const end = rest.search(/<\/script[\t\n\f\r />]/i);
  assert.ok(end >= 0, 'the __props script ends');
  const raw = rest.slice(0, end);
  assert.ok(!raw.includes('<!--'), 'no <!-- inside the props script');
  assert.equal(rest.slice(end, end + 9), '</script>', 'the props script ends at its own closing tag');
  for (const [character, what] of [['<', '<'], ['>', '>'], ['&', '&'], ['\u2028', 'U+2028'], ['\u2029', 'U+2029']]) {
    assert.ok(!raw.includes(character), `the props JSON escapes every ${what}`);
  }
  let value;
  assert.doesNotThrow(() => (value = JSON.parse(raw)), 'the props script is valid JSON');
  return { raw, value };
}

/**
 * Checks that a page's markup is only ours: the scripts are our module, our props and
 * (on the home page) structured data; no element a page of ours never has; no event
 * handler attribute; no HTML comment but React's empty text separator.
 */
export function assertOnlyOurMarkup(html) {
  const scripts = html.match(/<script\b[^>]*>/gi) ?? [];
  const ours = scripts.filter(
    (tag) =>
      /^<script type="module" src="\/assets\/[\w.-]+\.js" fetchpriority="low">$/.test(tag) ||
      tag === PROPS_OPEN ||
      tag === '<script type="application/ld+json">',
  );
  assert.deepEqual(scripts, ours, 'every <script> is one of ours');
  assert.equal(scripts.filter((tag) => tag === PROPS_OPEN).length, 1, 'one props script');

  const tags = [...html.matchAll(/<([a-zA-Z][a-zA-Z0-9-]*)((?:\s+[^\s=/>]+(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s>]+))?)*)\s*\/?>/g)];
  for (const [, tagName, attributeText] of tags) {
    const name = tagName.toLowerCase();
    assert.ok(!FOREIGN_ELEMENTS.includes(name), `no <${name}> element`);
    const attributes = [...attributeText.matchAll(/\s+([^\s=/>]+)(?:\s*=\s*("[^"]*"|'[^']*'|[^\s>]+))?/g)].map(
      ([, attribute, value = '']) => [attribute.toLowerCase(), value.replace(/^["']|["']$/g, '')],
    );
    for (const [attribute, value] of attributes) {
      assert.ok(!attribute.startsWith('on'), `no event handler attribute, found ${attribute} on <${name}>`);
      if (['href', 'src', 'action', 'formaction'].includes(attribute)) {
        assert.ok(!/^\s*javascript:/i.test(value), `no javascript: URL in ${attribute} of <${name}>`);
      }
      if (name === 'img' && attribute === 'src') assert.match(value, /^\/assets\//, 'images come from our assets');
    }
  }
  assert.ok(!html.replaceAll('<!-- -->', '').includes('<!--'), 'no HTML comment but React\'s separators');
}

/** Asserts no text that could open a tag appears unescaped in `html` (React's empty
 * comments aside, which the text may contain and the page does). */
export function assertNotRaw(html, texts) {
  const separator = '<!-- -->';
  const page = html.replaceAll(separator, '');
  for (const text of texts.map((t) => t.replaceAll(separator, ''))) {
    if (text.includes('<')) assert.ok(!page.includes(text), `${JSON.stringify(text.slice(0, 60))} appears unescaped`);
  }
}
