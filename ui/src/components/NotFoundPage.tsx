import type { NotFoundProps } from "../types";
import { ButtonLink } from "./ButtonLink";

export type Props = NotFoundProps;

/** The 404 page, and the 410 of a phrase removed since it was shared. */
export function NotFoundPage({ site, removed = false }: Props) {
  return (
    <section className="mx-auto max-w-6xl px-4 py-24 sm:px-6 xl:max-w-7xl">
      <h1 className="font-display text-4xl font-black tracking-tight sm:text-6xl">
        {removed ? `This Last ${site.productName} has been removed` : "Page not found"}
      </h1>
      <p className="mt-6 text-lg text-white/80">
        {removed ? "It was minted, and has since been taken off the list." : "Nothing lives here. It may have gone extinct."}
      </p>
      <div className="mt-10 flex flex-wrap gap-4">
        {/* Most links that end here were a phrase's, shared or typed by hand. */}
        <ButtonLink href={site.wordsPath}>{`All Last ${site.productName}`}</ButtonLink>
        <ButtonLink href="/" variant="outline">
          Back to the home page
        </ButtonLink>
      </div>
    </section>
  );
}
