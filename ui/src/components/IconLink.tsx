import type { AnchorHTMLAttributes } from "react";
import type { BrandName } from "../art/brands";
import { classNames } from "../classNames";
import { BrandMark } from "./BrandMark";
import { NEW_TAB } from "./newTab";

export interface Props extends Omit<AnchorHTMLAttributes<HTMLAnchorElement>, "children" | "target" | "rel"> {
  href: string;
  label: string;
  brand: BrandName;
}

/** A link to another site shown as that site's mark; it opens in a new tab and says so. */
export function IconLink({ href, label, brand, className, ...rest }: Props) {
  return (
    <a
      href={href}
      {...NEW_TAB}
      aria-label={`${label} (opens in a new tab)`}
      title={label}
      className={classNames(
        "inline-flex size-11 items-center justify-center rounded-full text-white transition-colors hover:bg-white/10 hover:text-accent",
        className,
      )}
      {...rest}
    >
      <BrandMark brand={brand} />
    </a>
  );
}
