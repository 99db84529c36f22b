import type { ReactNode } from "react";
import { classNames } from "../../classNames";
import { headlineFit } from "../../headline";

export interface Props {
  /** The anchor the navigation links to, e.g. `about` for `#about`. */
  id: string;
  className?: string;
  children: ReactNode;
}

/**
 * A landing-page section. It takes focus (not by Tab) so an anchor link can
 * move a keyboard or screen-reader user to it, and is named by its heading.
 */
export function Section({ id, className, children }: Props) {
  return (
    <section id={id} tabIndex={-1} aria-labelledby={headingId(id)} className={classNames("relative focus:outline-none", className)}>
      {children}
    </section>
  );
}

export interface HeadingProps {
  /** The id of the section it names. */
  section: string;
  /** Of the box it is set in, whose width its words must fit. */
  className?: string;
  /** In the accent colour rather than white. */
  accent?: boolean;
  /** 3.75rem rather than 3rem from the sm breakpoint on. */
  large?: boolean;
  children: string;
}

export function SectionHeading({ section, className, accent = false, large = false, children }: HeadingProps) {
  return (
    <div className={classNames("@container w-full", className)}>
      <h2
        id={headingId(section)}
        data-fit={headlineFit(children)}
        className={classNames(
          "display-fit font-display font-black uppercase leading-[1.05] tracking-tight text-balance [--floor:30px] [--size:1.875rem]",
          large ? "sm:[--floor:60px] sm:[--size:3.75rem]" : "sm:[--floor:48px] sm:[--size:3rem]",
          accent && "text-accent",
        )}
      >
        {children}
      </h2>
    </div>
  );
}

function headingId(section: string): string {
  return `${section}-heading`;
}
