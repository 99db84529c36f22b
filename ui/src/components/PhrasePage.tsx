import type { RenderRequest } from "../types";
import { hashtag } from "../data/copy";
import { graphemeCount, graphemes } from "../text";
import { ButtonLink } from "./ButtonLink";
import { Island } from "./Island";

export interface Props {
  page: Extract<RenderRequest, { route: "phrase" }>;
}

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

/**
 * Characters measured whole: an enclosing mark (a keycap, a circle) drawn beside its
 * base by a face that cannot compose them (up to 1.9 em), and emoji (1.22 em).
 */
const WIDE_GRAPHEMES: readonly (readonly [RegExp, number])[] = [
  [/\p{Me}/u, 2],
  [/\p{Extended_Pictographic}|\p{Regional_Indicator}/u, 1.3],
];

/** The `--fit` steps of `.headline-fit` (styles.css), in em; the last takes any wider word. */
const FIT_STEPS = [6, 7, 8, 9.5, 11, 13, 15, 17.5, 20] as const;
const WIDEST_FIT = 25;

/**
 * The headline's step: the width, in em, of the phrase's widest word, rounded up to a
 * step, so the word is set small enough to fit the column rather than broken in two,
 * as a phone would break a 20-letter word at the full size. `break-words` stays for a
 * word wider than its estimate.
 */
function headlineFit(word: string): number {
  const widest = Math.max(
    ...word.split(/\s+/).map((part) =>
      graphemes(part.toUpperCase()).reduce((em, grapheme) => {
        const wide = WIDE_GRAPHEMES.find(([pattern]) => pattern.test(grapheme));
        if (wide) return em + wide[1];
        const base = grapheme.normalize("NFD").charAt(0);
        return em + (ADVANCES.find(([letters]) => letters.includes(base))?.[1] ?? 1);
      }, 0),
    ),
  );
  return FIT_STEPS.find((step) => widest <= step) ?? WIDEST_FIT;
}

/** One minted phrase, large, with who minted it; Share and the live status are the island. */
export function PhrasePage({ page }: Props) {
  const { site, phrase } = page.props;
  const length = graphemeCount(phrase.word);
  return (
    <section className="@container mx-auto max-w-6xl px-4 py-16 sm:px-6 md:py-24 xl:max-w-7xl">
      <p className="font-display text-sm font-bold uppercase tracking-widest text-accent">{hashtag(site.productName)}</p>
      <h1
        data-fit={headlineFit(phrase.word)}
        className="headline-fit mt-6 font-display font-black uppercase leading-[1.05] tracking-tight break-words"
      >
        <bdi>{phrase.word}</bdi>
      </h1>
      <p className="mt-6 text-lg text-white/70">{`${length} ${length === 1 ? "character" : "characters"}`}</p>
      <p className="mt-2 text-xl text-white break-words">
        {"By "}
        <bdi>{phrase.name}</bdi>
      </p>
      <Island name="phrase" page={page} />
      <ButtonLink href={site.wordsPath} variant="outline" className="mt-12">
        {`All Last ${site.productName}`}
      </ButtonLink>
    </section>
  );
}
