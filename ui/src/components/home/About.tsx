import { ABOUT } from "../../data/copy";
import { ArtImage } from "../ArtImage";
import { Section, SectionHeading } from "./Section";

/** The green section: what Dinos is for, ending in the bone band and the stripe band. */
export function About() {
  return (
    <Section id="about" className="overflow-hidden bg-accent text-black">
      {/* In pixels, as the room the heading leaves it: larger text must not take that room. */}
      <ArtImage name="asteroid-1" className="asteroid-a pointer-events-none absolute right-[6%] top-[32px] h-auto w-[56px] sm:w-[80px]" />
      <ArtImage name="asteroid-2" className="asteroid-b pointer-events-none absolute left-[1%] top-[40%] hidden h-auto w-16 xl:block 2xl:left-[6%] 2xl:w-24" />
      <div className="mx-auto max-w-6xl px-4 pb-12 pt-16 sm:px-6 md:pb-16 md:pt-24 xl:max-w-7xl">
        <SectionHeading section="about" className="max-w-4xl pr-[48px] sm:pr-[96px]">
          {ABOUT.heading}
        </SectionHeading>
        <div className="mt-10 grid items-center gap-12 md:mt-14 md:grid-cols-2 md:gap-16">
          <div className="relative mx-auto w-full max-w-md md:max-w-none">
            <ArtImage name="about" alt={ABOUT.imageAlt} className="h-auto w-full" />
            <ArtImage name="badge" className="spin-slow absolute -bottom-8 -right-4 h-auto w-28 sm:-right-8 sm:w-36 lg:w-44" />
          </div>
          <div className="space-y-5 text-lg font-medium leading-relaxed sm:text-xl">
            {ABOUT.paragraphs.map((paragraph) => (
              <p key={paragraph}>{paragraph}</p>
            ))}
          </div>
        </div>
      </div>
      <ArtImage name="bones" className="block h-16 w-full object-cover sm:h-20" />
      <ArtImage name="stripes" className="block h-8 w-full object-cover sm:h-10" />
    </Section>
  );
}
