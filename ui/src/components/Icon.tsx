import type { SVGProps } from "react";
import { GLYPHS, type GlyphName } from "../art/glyphs";

export type IconName = GlyphName;

export interface Props extends Omit<SVGProps<SVGSVGElement>, "children"> {
  name: IconName;
}

/** Decorative: the link or button around it carries the accessible name. */
export function Icon({ name, className = "size-6", ...rest }: Props) {
  return (
    <svg
      viewBox="0 0 24 24"
      fill="none"
      stroke="currentColor"
      strokeWidth={2}
      strokeLinecap="round"
      strokeLinejoin="round"
      aria-hidden="true"
      focusable="false"
      className={className}
      {...rest}
    >
      {GLYPHS[name].map((d) => (
        <path key={d} d={d} />
      ))}
    </svg>
  );
}
