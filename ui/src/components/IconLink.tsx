import type { AnchorHTMLAttributes } from "react";
import { classNames } from "../classNames";
import { Icon, type IconName } from "./Icon";
import { NEW_TAB } from "./newTab";

export interface Props extends Omit<AnchorHTMLAttributes<HTMLAnchorElement>, "children" | "target" | "rel"> {
  href: string;
  label: string;
  icon: IconName;
}

/** An icon-only link to another site; it opens in a new tab and says so. */
export function IconLink({ href, label, icon, className, ...rest }: Props) {
  return (
    <a
      href={href}
      {...NEW_TAB}
      aria-label={`${label} (opens in a new tab)`}
      title={label}
      className={classNames(
        "inline-flex size-10 items-center justify-center rounded-full text-white transition-colors hover:bg-white/10 hover:text-accent",
        className,
      )}
      {...rest}
    >
      <Icon name={icon} />
    </a>
  );
}
