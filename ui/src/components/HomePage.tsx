import type { HomeProps } from "../types";
import { About } from "./home/About";
import { Faq } from "./home/Faq";
import { Intro } from "./home/Intro";
import { MintedDinos } from "./home/MintedDinos";
import { NeedYou } from "./home/NeedYou";
import { Team } from "./home/Team";
import { Why } from "./home/Why";

export type Props = HomeProps;

/** The landing page: its sections in the order the original shows them. */
export function HomePage({ site }: Props) {
  return (
    <>
      <Intro site={site} />
      <About />
      <Why />
      <NeedYou site={site} />
      <MintedDinos site={site} />
      <Team />
      <Faq site={site} />
    </>
  );
}
