import type { AnchorHTMLAttributes } from "react";
import { classNames } from "../classNames";
import { NEW_TAB_LINK } from "./newTab";

export type Variant = "primary" | "outline" | "dark";

export interface Props extends Omit<AnchorHTMLAttributes<HTMLAnchorElement>, "target" | "rel"> {
  href: string;
  variant?: Variant;
  /** A link to another site: opens in a new tab and tells screen readers so. */
  newTab?: boolean;
}

export function ButtonLink({ variant = "primary", newTab = false, className, children, ...rest }: Props) {
  return (
    <a className={classNames(BASE, VARIANTS[variant], className)} {...(newTab ? NEW_TAB_LINK : {})} {...rest}>
      {children}
    </a>
  );
}

const BASE =
  "inline-flex min-h-12 items-center justify-center gap-2 rounded-full px-6 py-3 text-center font-display text-sm font-black uppercase tracking-wide transition-colors";

const VARIANTS: Record<Variant, string> = {
  primary: "bg-accent text-black hover:bg-accent-strong",
  outline: "border-2 border-white/50 text-white hover:border-accent hover:text-accent",
  /** For green sections, where a green button would vanish. */
  dark: "bg-black text-white hover:bg-black/80 hover:text-accent-strong",
};
