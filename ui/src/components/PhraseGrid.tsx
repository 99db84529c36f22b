import type { Phrase } from "../types";
import { graphemeCount } from "../text";

export interface Props {
  phrases: readonly Phrase[];
  productName: string;
}

/** Phrases and names are user-submitted: they only ever go in as React text. */
export function PhraseGrid({ phrases, productName }: Props) {
  if (phrases.length === 0) {
    return <p className="text-white/70">{`No Last ${productName} minted yet. Be the first.`}</p>;
  }
  return (
    <ul className="grid grid-cols-1 gap-4 sm:grid-cols-2 md:grid-cols-3 lg:grid-cols-4">
      {phrases.map((phrase) => (
        <li key={phrase.id} className="rounded-xl border border-white/15 bg-white/5 p-4">
          <p className="break-words font-display text-lg font-black">
            <bdi>{phrase.word}</bdi> <span className="font-normal text-white/60">{`(${graphemeCount(phrase.word)})`}</span>
          </p>
          <p className="mt-2 break-words text-sm text-white/70">{`By ${phrase.name}`}</p>
        </li>
      ))}
    </ul>
  );
}
