// How text is broken into lines in the page, for tests of orphaned words.

/** How many words the last line of `locator`'s text holds, as laid out now. */
export const wordsOnLastLine = (locator) =>
  locator.evaluate((element) => {
    const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
    const tops = [];
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (const match of node.textContent.matchAll(/[^\s\u00a0]+/g)) {
        const range = document.createRange();
        range.setStart(node, match.index);
        range.setEnd(node, match.index + match[0].length);
        tops.push(Math.round(range.getClientRects()[0].top));
      }
    }
    const last = Math.max(...tops);
    return tops.filter((top) => Math.abs(top - last) < 4).length;
  });
