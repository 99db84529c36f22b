import type { SVGProps } from "react";
import { BRAND_PATHS, type BrandName } from "../art/brands";

export interface Props extends Omit<SVGProps<SVGSVGElement>, "children"> {
  brand: BrandName;
}

/** A brand's mark in the text colour. Decorative: the link around it carries the name. */
export function BrandMark({ brand, className = "size-5", ...rest }: Props) {
  return (
    <svg viewBox="0 0 24 24" fill="currentColor" aria-hidden="true" focusable="false" className={className} {...rest}>
      <path d={BRAND_PATHS[brand]} />
    </svg>
  );
}
