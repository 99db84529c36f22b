import type { RenderRequest } from "../types";
import { MAX_GRAPHEMES } from "../text";
import { Island } from "./Island";

export interface Props {
  page: Extract<RenderRequest, { route: "words" }>;
}

export function WordsPage({ page }: Props) {
  const { productName } = page.props.site;
  return (
    <section className="mx-auto max-w-6xl px-4 py-16 sm:px-6">
      <h1 className="font-display text-4xl font-black tracking-tight sm:text-5xl">
        {`Already-minted Last ${productName}`}
      </h1>
      <p className="mt-6 max-w-2xl text-lg text-white/80">
        {`Not all the best sentences are taken yet. Type yours to see whether it is still free: a phrase can be at most ${MAX_GRAPHEMES} characters. GOOD LUCK!`}
      </p>
      <Island name="words" page={page} />
    </section>
  );
}
