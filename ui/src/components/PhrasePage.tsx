import type { RenderRequest } from "../types";
import { hashtag } from "../data/copy";
import { EMOJI, headlineFit } from "../headline";
import { graphemeCount } from "../text";
import { ButtonLink } from "./ButtonLink";
import { Island } from "./Island";

export interface Props {
  page: Extract<RenderRequest, { route: "phrase" }>;
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
        // An emoji stands taller than a capital (some 1.2 em in colour faces): lines of
        // them at the capitals' spacing would touch.
        className={`headline-fit mt-6 font-display font-black uppercase tracking-tight break-words ${EMOJI.test(phrase.word) ? "leading-[1.2]" : "leading-[1.05]"}`}
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
