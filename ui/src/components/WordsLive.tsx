import { useEffect, useMemo, useState, type FormEvent } from "react";
import { evaluateCheck, takenWords } from "../check";
import { productPath } from "../data/site";
import { MAX_GRAPHEMES, truncateToLimit } from "../text";
import type { WordsProps } from "../types";
import { useHydrated } from "../useHydrated";
import { useLivePhrases } from "../useLivePhrases";
import { PhraseGrid } from "./PhraseGrid";
import { WordChecker } from "./WordChecker";

export type Props = WordsProps;

/**
 * The checker and the minted list in one island: whether a phrase is taken
 * depends on the list, which changes under the user's feet.
 */
export function WordsLive({ site, version, phrases, loaded, check }: Props) {
  const live = useLivePhrases({ version, phrases });
  const [typed, setTyped] = useState<string | null>(null);
  const taken = useMemo(() => takenWords(live.phrases), [live.phrases]);
  // Live, the verdict follows every keystroke: the button only served the no-script form.
  const hydrated = useHydrated();

  // Until the user types or the list moves, show the host's verdict: it is
  // what the server rendered, so hydration sees the same markup.
  const current =
    typed === null && live.version === version ? check : evaluateCheck(typed ?? check.input, taken);

  useEffect(() => {
    if (typed === null) return;
    const url = new URL(window.location.href);
    if (typed === "") url.searchParams.delete("check");
    else url.searchParams.set("check", typed);
    window.history.replaceState(window.history.state, "", url);
  }, [typed]);

  // An IME builds a character over several inputs; cutting it mid-way breaks it.
  const onInput = (value: string, composing: boolean) => {
    setTyped(composing ? value : truncateToLimit(value, MAX_GRAPHEMES));
  };
  const onSubmit = (event: FormEvent<HTMLFormElement>) => event.preventDefault();

  return (
    <>
      <WordChecker
        action={productPath(site)}
        placeholder={site.productName}
        check={current}
        onInput={onInput}
        onSubmit={onSubmit}
        submitButton={!hydrated}
      />
      <h2 className="sr-only">{`Minted Last ${site.productName}`}</h2>
      <div className="mt-12">
        {loaded === false && live.version === version ? (
          <p role="status" className="text-white/70">
            {`The list of Last ${site.productName} is temporarily unavailable. It appears here by itself as soon as it loads.`}
          </p>
        ) : (
          <PhraseGrid phrases={live.phrases} productName={site.productName} />
        )}
      </div>
    </>
  );
}
