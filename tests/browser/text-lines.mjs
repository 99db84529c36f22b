// How text is broken into lines in the page, for tests of orphaned and broken words.

/**
 * Each word of `locator`'s text (a run of characters between spaces; each emoji and each
 * CJK character a word of its own, as a line may break between them) with the tops of
 * the lines it is laid out on now: one top, unless the word is broken across lines.
 */
const wordLines = (locator) =>
  locator.evaluate((element) => {
    const breaksAround = /\p{Extended_Pictographic}|\p{Regional_Indicator}|\p{Ideographic}|\p{Script=Hiragana}|\p{Script=Katakana}|\p{Script=Hangul}/u;
    const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' });
    const parts = (word) => {
      const out = [];
      let run = null;
      for (const { segment, index } of segmenter.segment(word)) {
        if (breaksAround.test(segment)) {
          if (run) out.push(run);
          run = null;
          out.push({ text: segment, index });
        } else if (run) run.text += segment;
        else run = { text: segment, index };
      }
      if (run) out.push(run);
      return out;
    };
    const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
    const words = [];
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (const match of node.textContent.matchAll(/[^\s\u00a0]+/g)) {
        for (const part of parts(match[0])) {
          const range = document.createRange();
          range.setStart(node, match.index + part.index);
          range.setEnd(node, match.index + part.index + part.text.length);
          const tops = [...new Set([...range.getClientRects()].map((rect) => Math.round(rect.top)))];
          words.push({ word: part.text, tops });
        }
      }
    }
    return words;
  });

/** How many words the last line of `locator`'s text holds, as laid out now. */
export async function wordsOnLastLine(locator) {
  const tops = (await wordLines(locator)).map(({ tops }) => tops[0]);
  const last = Math.max(...tops);
  return tops.filter((top) => Math.abs(top - last) < 4).length;
}

/** The words of `locator`'s text that are broken across lines, as laid out now. */
export async function brokenWords(locator) {
  return (await wordLines(locator)).filter(({ tops }) => tops.length > 1).map(({ word }) => word);
}

/**
 * Where the emoji of `locator`'s text overlap the line below theirs, as laid out now: the
 * boxes of a line's emoji (each as tall as the face draws it) reach into the next line's.
 */
export function touchingEmojiLines(locator) {
  return locator.evaluate((element) => {
    const emoji = /\p{Extended_Pictographic}|\p{Regional_Indicator}/u;
    const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' });
    const lines = new Map();
    const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (const { segment, index } of segmenter.segment(node.textContent)) {
        if (!emoji.test(segment)) continue;
        const range = document.createRange();
        range.setStart(node, index);
        range.setEnd(node, index + segment.length);
        for (const rect of range.getClientRects()) {
          const key = Math.round(rect.top + rect.height / 2);
          const line = lines.get(key) ?? { top: rect.top, bottom: rect.bottom };
          lines.set(key, { top: Math.min(line.top, rect.top), bottom: Math.max(line.bottom, rect.bottom) });
        }
      }
    }
    const sorted = [...lines.values()].sort((a, b) => a.top - b.top);
    return sorted.slice(1).flatMap((line, i) => (sorted[i].bottom > line.top + 1 ? [`${Math.round(sorted[i].bottom - line.top)} px`] : []));
  });
}
