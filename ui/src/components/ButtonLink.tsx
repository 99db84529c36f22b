import type { AnchorHTMLAttributes } from "react";
import { classNames } from "../classNames";

export type Variant = "primary" | "outline";

export interface Props extends AnchorHTMLAttributes<HTMLAnchorElement> {
  href: string;
  variant?: Variant;
}

export function ButtonLink({ variant = "primary", className, children, ...rest }: Props) {
  return (
    <a className={classNames(BASE, VARIANTS[variant], className)} {...rest}>
      {children}
    </a>
  );
}

const BASE =
  "inline-flex items-center justify-center rounded-full px-6 py-3 font-display text-sm font-black uppercase tracking-wide transition-colors";

const VARIANTS: Record<Variant, string> = {
  primary: "bg-accent text-black hover:bg-accent-strong",
  outline: "border border-white/40 text-white hover:border-accent hover:text-accent",
};
