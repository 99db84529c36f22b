import type { Phrase } from "../types";
import { graphemeCount } from "../text";

export interface Props {
  phrases: readonly Phrase[];
  productName: string;
}

// Items carry no attributes and three elements each: a server render pays per
// element and per attribute, and this list is hundreds of items long. Their
// styles hang off the list instead.
const LIST_CLASSES = [
  "grid grid-cols-1 gap-4 sm:grid-cols-2 md:grid-cols-3 lg:grid-cols-4",
  "*:rounded-xl *:border *:border-white/15 *:bg-white/5 *:p-4 *:text-lg *:break-words *:text-white/60",
  "[&_bdi]:font-display [&_bdi]:font-black [&_bdi]:text-white",
  "[&_span]:mt-2 [&_span]:block [&_span]:text-sm [&_span]:text-white/70",
].join(" ");

/** Phrases and names are user-submitted: they only ever go in as React text. */
export function PhraseGrid({ phrases, productName }: Props) {
  if (phrases.length === 0) {
    return <p className="text-white/70">{`No Last ${productName} minted yet. Be the first.`}</p>;
  }
  return (
    <ul className={LIST_CLASSES}>
      {phrases.map((phrase) => (
        <li key={phrase.id}>
          <bdi>{phrase.word}</bdi>
          {` (${graphemeCount(phrase.word)})`}
          <span>{`By ${phrase.name}`}</span>
        </li>
      ))}
    </ul>
  );
}
