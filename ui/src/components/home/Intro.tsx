import { BACKDROPS, type Backdrop } from "../../art/sizes";
import { INTRO } from "../../data/copy";
import { headlineFit } from "../../headline";
import type { SiteProps } from "../../types";
import { ArtImage } from "../ArtImage";
import { NEW_TAB_LINK } from "../newTab";
import { JoinButtons } from "./JoinButtons";

export interface Props {
  site: SiteProps;
}

export function Intro({ site }: Props) {
  return (
    <section id="intro" aria-labelledby="intro-heading" className="relative isolate overflow-hidden">
      {/* The phone drawing is the largest paint on phones, so it is fetched first; the others are lazy, and lazy images that are hidden are never fetched. */}
      {BACKDROPS.map((variant) => (
        <ArtImage
          key={variant}
          name={`backdrop-${variant}`}
          className={`absolute inset-0 -z-10 size-full object-cover ${BACKDROP_VISIBILITY[variant]}`}
          priority={variant === "mobile"}
        />
      ))}
      <div className="mx-auto grid max-w-6xl items-center gap-8 px-4 pb-10 pt-12 sm:px-6 md:grid-cols-[1.1fr_1fr] md:pb-16 md:pt-20 xl:max-w-7xl">
        <div>
          <p className="font-display text-sm font-bold uppercase tracking-widest text-accent">{INTRO.eyebrow}</p>
          {/* A size container of the heading's own, the buttons below out of it: with them
              inside one, a colour transition ran on a button as the page loaded in two CI
              runs of four (never when run alone), most likely Chromium's styling of a
              container's contents after layout. */}
          <div className="@container mt-4">
            <h1
              id="intro-heading"
              data-fit={headlineFit(INTRO.heading)}
              className="display-fit font-display font-black uppercase leading-[1.02] tracking-tight text-balance [--floor:36px] [--size:2.25rem] sm:[--floor:48px] sm:[--size:3rem] lg:[--floor:60px] lg:[--size:3.75rem] xl:[--floor:72px] xl:[--size:4.5rem]"
            >
              {INTRO.heading}
            </h1>
          </div>
          {/* The sky blurred behind the words, and a halo of the night around each letter: a star
              beside one would read as an accent, and the hill's line as a strike. */}
          <p className="mt-6 max-w-xl text-lg text-white/85 backdrop-blur-[3px] [text-shadow:0_0_2px_#000,0_0_6px_#000] sm:text-xl">
            {INTRO.mission}
          </p>
          <JoinButtons site={site} />
        </div>
        {/* The meteorites fall through the picture's sky, behind it, so they never cross the text. */}
        <div className="relative mx-auto w-full max-w-md md:max-w-none">
          <ArtImage name="meteorite" className="meteor-a pointer-events-none absolute right-[4%] top-0 -z-10 h-auto w-16 sm:w-24" />
          <ArtImage name="meteorite" className="meteor-b pointer-events-none absolute right-[38%] top-0 -z-10 h-auto w-12 sm:w-16" />
          <a
            href={site.links.chat}
            {...NEW_TAB_LINK}
            className="block rounded-3xl transition-transform hover:-rotate-1 hover:scale-[1.02] motion-reduce:transition-none"
          >
            <ArtImage name="hero" alt={INTRO.heroAlt} priority className="h-auto w-full" />
          </a>
        </div>
      </div>
    </section>
  );
}

/**
 * Each drawing shows on its own range of widths: phone, tablet (one column), tablet
 * held sideways (two), desktop, wide desktop.
 */
const BACKDROP_VISIBILITY: Readonly<Record<Backdrop, string>> = {
  mobile: "block sm:hidden",
  tablet: "hidden sm:block md:hidden",
  landscape: "hidden md:block lg:hidden",
  desktop: "hidden lg:block 2xl:hidden",
  wide: "hidden 2xl:block",
};
