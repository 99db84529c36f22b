import type { CSSProperties, Ref } from "react";
import type { Phrase, SiteProps } from "../types";
import { phrasePath } from "../data/site";
import { headlineFit } from "../headline";
import { cardKey } from "../useFreshArrivals";
import { graphemeCount } from "../text";

export interface Props {
  phrases: readonly Phrase[];
  site: Pick<SiteProps, "productName" | "wordsPath">;
  /** The find text the phrases match; "" for the newest-first list. */
  query: string;
  /** Where `phrases` start in the whole list, when known: screen readers hear "item 49 of 12,345". */
  first?: number | undefined;
  /** How many items the whole list has, or -1 when unknown. */
  setSize?: number | undefined;
  /** Space held for the rows above and below the ones rendered. */
  style?: CSSProperties | undefined;
  /** Items per row, the row `phrases` start on, and a ref for each row's first item (its height is the row's). */
  rows?: { columns: number; first: number; measure: Ref<HTMLLIElement> } | undefined;
  busy?: boolean | undefined;
  listRef?: Ref<HTMLUListElement> | undefined;
  /** Newer phrases match, on the pages before: an empty page here is not a find of none. */
  older?: boolean | undefined;
  /**
   * The find reads like a minted phrase (the checker says which): none contains it as
   * typed, which, said plainly under "But it reads like “HELLO”", read as a contradiction.
   */
  readsLike?: boolean | undefined;
  /** The phrases (`cardKey`) that came in live lately, marked as new. */
  fresh?: ReadonlySet<string> | undefined;
}

// Items carry few attributes and five elements each (the link makes the card the phrase's page): a server render pays per
// element and per attribute. Their styles hang off the list instead.
export const LIST_CLASSES = [
  "card-fit grid grid-cols-1 gap-4 sm:grid-cols-2 md:grid-cols-3 lg:grid-cols-4",
  "*:rounded-xl *:border *:border-white/15 *:bg-white/5 *:text-lg *:break-words *:text-white/60",
  "[&_a]:block [&_a]:h-full [&_a]:rounded-xl [&_a]:p-4 [&_a:hover]:bg-white/10 [&_a:focus-visible]:outline-2 [&_a:focus-visible]:outline-accent",
  "[&_a>bdi]:font-display [&_a>bdi]:font-black [&_a>bdi]:text-white",
  "[&_span]:mt-2 [&_span]:block [&_span]:text-sm [&_span]:text-white/70",
].join(" ");

/**
 * The fit step of a phrase whose widest word would not fit the narrowest card at the full
 * size (some 230 px, 12.9 em of 18 px: four columns on a desktop), else nothing.
 */
function cardFit(word: string): number | undefined {
  // No character is wider than 2 em a UTF-16 unit: a phrase of short words needs no
  // measuring, and the server's render of a list pays for every card.
  if (word.split(/\s+/).every((run) => run.length * 2 < CARD_FIT_FROM)) return undefined;
  const fit = headlineFit(word);
  return fit >= CARD_FIT_FROM ? fit : undefined;
}

const CARD_FIT_FROM = 13;

/** Phrases and names are user-submitted: they only ever go in as React text. */
export function PhraseGrid({ phrases, site, query, first, setSize, style, rows, busy, listRef, older, readsLike, fresh }: Props) {
  if (phrases.length === 0) {
    return (
      <p className="text-white/70 break-words">
        {query === "" ? (
          `No Last ${site.productName} minted yet. Be the first.`
        ) : (
          <>
            {`No ${older ? "older " : ""}minted Last ${site.productName} contain “`}
            <bdi>{query}</bdi>
            {readsLike ? "” as typed." : "”."}
          </>
        )}
      </p>
    );
  }
  return (
    <ul role="list" ref={listRef} className={LIST_CLASSES} style={style} aria-busy={busy || undefined}>
      {phrases.map((phrase, i) => {
        const position = first === undefined ? undefined : first + i;
        const rowStart = rows !== undefined && i % rows.columns === 0;
        const key = cardKey(phrase);
        return (
          <li
            // A phrase whose time changed (written by hand) comes anew in its new place:
            // moved, its element stayed while React moved every card before it, and the
            // browser, keeping the reader's place by the one element left, followed it.
            key={key}
            aria-posinset={position === undefined ? undefined : position + 1}
            aria-setsize={position === undefined ? undefined : setSize}
            // Every item names its row: one that stops starting a row (a removal above it)
            // is still watched for size a while, and a grid row's items share its height.
            data-index={rows ? rows.first + Math.floor(i / rows.columns) : undefined}
            ref={rowStart ? rows?.measure : undefined}
            tabIndex={rows === undefined ? undefined : -1}
            data-fresh={fresh?.has(key) || undefined}
          >
            <a href={phrasePath(site, phrase.id)}>
              <bdi data-fit={cardFit(phrase.word)}>{phrase.word}</bdi>
              {` (${graphemeCount(phrase.word)})`}
              <span>
                By <bdi>{phrase.name}</bdi>
              </span>
            </a>
          </li>
        );
      })}
    </ul>
  );
}
