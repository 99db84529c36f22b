import { BRAND, productCallToAction, productPath } from "../data/site";
import type { HomeProps } from "../types";
import { ButtonLink } from "./ButtonLink";

export type Props = HomeProps;

export function HomePage({ site }: Props) {
  return (
    <section id="intro" className="mx-auto max-w-6xl px-4 py-20 sm:px-6 sm:py-28">
      <p className="font-display text-sm font-bold uppercase tracking-widest text-accent">{BRAND}</p>
      <h1 className="mt-4 max-w-3xl font-display text-4xl font-black leading-tight tracking-tight sm:text-6xl">
        The dinosaurs are back, and this time they want to stop the extinction
      </h1>
      <p className="mt-8 max-w-2xl text-lg text-white/80">
        {`${BRAND} is a collection of dinosaur NFTs minted for donations. The money raised goes to non-profits working on the climate crisis, because the last mass extinction should stay the last one. Leave your Last ${site.productName} before the asteroid does.`}
      </p>
      <ButtonLink href={productPath(site)} className="mt-10">
        {productCallToAction(site)}
      </ButtonLink>
    </section>
  );
}
