import type { RenderRequest } from "../types";
import { hashtag } from "../data/copy";
import { headlineFit } from "../headline";
import { MAX_GRAPHEMES } from "../text";
import { ArtImage } from "./ArtImage";
import { Island } from "./Island";

export interface Props {
  page: Extract<RenderRequest, { route: "words" }>;
}

/** Laid out like a landing-page section: the same width as the header, the same headings and rhythm. */
export function WordsPage({ page }: Props) {
  const { productName } = page.props.site;
  return (
    <section className="mx-auto max-w-6xl px-4 py-16 sm:px-6 md:py-24 xl:max-w-7xl">
      <div className="grid items-center gap-8 lg:grid-cols-[3fr_2fr] lg:gap-12">
        <div className="@container">
          <p className="font-display text-sm font-bold uppercase tracking-widest text-accent">{hashtag(productName)}</p>
          <h1
            data-fit={headlineFit(`Already-minted Last ${productName}`)}
            className="display-fit mt-4 font-display font-black uppercase leading-[1.02] tracking-tight text-balance [--floor:36px] [--size:2.25rem] sm:[--floor:48px] sm:[--size:3rem] lg:[--floor:60px] lg:[--size:3.75rem]"
          >
            {`Already-minted Last ${productName}`}
          </h1>
          <p className="mt-6 max-w-2xl text-lg text-pretty text-white/80 sm:text-xl">
            {`Not all the best sentences are taken yet. Type yours to see whether it is still free: a phrase can be at most ${MAX_GRAPHEMES} characters. GOOD\u00a0LUCK!`}
          </p>
        </div>
        <ArtImage name="need-you" className="mx-auto h-auto w-full max-w-44 lg:max-w-xs" />
      </div>
      <Island name="words" page={page} />
    </section>
  );
}
