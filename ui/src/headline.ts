/**
 * Phrases in the display face, set small enough for their column: the phrase page's
 * headline (no word of it broken across lines) and the checker's box (the whole phrase
 * in view as it is typed).
 */
import { graphemes } from "./text";

/**
 * Advances of Archivo Black's capitals and marks, in em, rounded up (measured in
 * Chromium). The served face has only basic Latin; other letters are set in whatever face
 * the visitor's device falls back to, so theirs are the widest measured in a wide one
 * (DejaVu Sans Bold: Щ 1.30, Ǆ 1.53), rounded up. Anything else is 1 em.
 */
const ADVANCES: readonly (readonly [string, number])[] = [
  [" !'\u2019(),-./:;I|", 0.37],
  ["0123456789EFJLPSTZ?#$*+", 0.7],
  ["ABCDGHKNOQRUVXY@", 0.82],
  ["MW%&", 0.98],
  ["ЖШЩЮЉЊЫ№ŒǊ", 1.32],
  ["ǄǱ", 1.6],
];

/** An emoji (a pictograph, or half a flag), wherever it is in a string. */
export const EMOJI = /\p{Extended_Pictographic}|\p{Regional_Indicator}/u;

/**
 * Characters measured whole: an enclosing mark (a keycap, a circle) drawn beside its
 * base by a face that cannot compose them (up to 1.9 em), and emoji (1.22 em).
 */
const WIDE_GRAPHEMES: readonly (readonly [RegExp, number])[] = [
  [/\p{Me}/u, 2],
  [EMOJI, 1.3],
];

/**
 * The `--fit` steps of `.headline-fit` (styles.css), in em: the widest a 20-character
 * word can be estimated at is 40 em.
 */
const WIDEST_FIT = 40;
const FIT_STEPS = [6, 7, 8, 9.5, 11, 13, 15, 17.5, 20, 22.5, 25, 30, 35, WIDEST_FIT] as const;

/**
 * The headline's step: the width, in em, of the phrase's widest word, rounded up to a
 * step, so the word is set small enough to fit the column rather than broken in two,
 * as a phone would break a 20-letter word at the full size. A word wider than its
 * estimate is measured by `refitHeadline` once the page is live; without JavaScript,
 * `break-words` breaks it.
 */
export function headlineFit(word: string): number {
  // Most phrases are printable ASCII: no cluster, no break but at a space, so measured a
  // character at a time. The server's render of a list pays this for every card, and
  // segmenting each into graphemes cost a page of 48 three of its eight milliseconds.
  if (PRINTABLE_ASCII.test(word)) return fitFor(Math.max(...word.split(/\s+/).map(asciiWidthEm)));
  return fitFor(Math.max(...word.split(/\s+/).flatMap(unbroken).map(({ text }) => widthEm(text))));
}

const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

/** `widthEm` of printable ASCII, which is one grapheme a character. */
function asciiWidthEm(text: string): number {
  let em = 0;
  for (const character of text.toUpperCase()) em += advance(character);
  return em;
}

/**
 * A browser breaks a line between emoji and between CJK ideographs as it does at a space
 * (UAX #14's ID class), so each of those is a word of its own to fit: twenty emoji wrap
 * at the full size rather than shrink to one line.
 */
const BREAKS_AROUND = /\p{Extended_Pictographic}|\p{Regional_Indicator}|\p{Ideographic}|\p{Script=Hiragana}|\p{Script=Katakana}|\p{Script=Hangul}/u;

/** The parts of `word` no line break falls in, with where each starts (in UTF-16 units). */
function unbroken(word: string): { text: string; index: number }[] {
  const parts: { text: string; index: number }[] = [];
  let index = 0;
  let run: { text: string; index: number } | null = null;
  for (const grapheme of graphemes(word)) {
    if (BREAKS_AROUND.test(grapheme)) {
      if (run !== null) parts.push(run);
      run = null;
      parts.push({ text: grapheme, index });
    } else if (run === null) {
      run = { text: grapheme, index };
    } else {
      run.text += grapheme;
    }
    index += grapheme.length;
  }
  if (run !== null) parts.push(run);
  return parts;
}

/**
 * The checker box's step (`.check-fit`, styles.css): the width, in em, of the whole
 * line typed, rounded up to a step, so the box shrinks its text as it grows rather
 * than scrolling the start of the phrase out of view (down to the 1rem a phone needs
 * not to zoom into the box).
 */
export function lineFit(text: string): number {
  return fitFor(widthEm(text));
}

/** The estimated width of `text` set in capitals, in em. */
function widthEm(text: string): number {
  return graphemes(text.toUpperCase()).reduce((em, grapheme) => {
    const wide = WIDE_GRAPHEMES.find(([pattern]) => pattern.test(grapheme));
    if (wide) return em + wide[1];
    return em + advance(grapheme.normalize("NFD").charAt(0));
  }, 0);
}

/** The advance of one character (a capital, a mark), in em: 1 when not measured. */
function advance(character: string): number {
  return ADVANCES.find(([letters]) => letters.includes(character))?.[1] ?? 1;
}

/**
 * After the fonts are in, the headline's widest word as the browser set it, for letters
 * the estimate does not know in whatever face the device fell back to: the step goes
 * up when the word is wider than its estimate, never down. Measured with the words kept
 * on one line, so the step suits every width the page is later seen at.
 */
export function refitHeadline(headline: HTMLElement): void {
  headline.classList.add(UNBROKEN);
  const fontSize = parseFloat(getComputedStyle(headline).fontSize);
  let widest = 0;
  const walker = document.createTreeWalker(headline, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    for (const match of (node.textContent ?? "").matchAll(/\S+/g)) {
      for (const part of unbroken(match[0])) {
        const range = document.createRange();
        range.setStart(node, match.index + part.index);
        range.setEnd(node, match.index + part.index + part.text.length);
        widest = Math.max(widest, range.getBoundingClientRect().width / fontSize);
      }
    }
  }
  headline.classList.remove(UNBROKEN);
  const fit = fitFor(widest * MEASURED_MARGIN);
  if (fit > Number(headline.dataset.fit)) headline.dataset.fit = String(fit);
}

const UNBROKEN = "whitespace-nowrap";
/** Room for the rounding of a measured width (2 %), as the estimate's advances round up. */
const MEASURED_MARGIN = 1.02;

function fitFor(em: number): number {
  return FIT_STEPS.find((step) => em <= step) ?? WIDEST_FIT;
}
