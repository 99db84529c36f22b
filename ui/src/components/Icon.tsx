import type { SVGProps } from "react";

export type IconName = "chat" | "social" | "marketplace" | "blog" | "menu" | "close";

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
      {PATHS[name].map((d) => (
        <path key={d} d={d} />
      ))}
    </svg>
  );
}

const PATHS: Record<IconName, readonly string[]> = {
  chat: [
    "M21 12a8 8 0 0 1-11.6 7.1L4 20l1-4.6A8 8 0 1 1 21 12Z",
    "M9 12h.01M12 12h.01M15 12h.01",
  ],
  social: ["M16 12a4 4 0 1 1-8 0 4 4 0 0 1 8 0Z", "M16 8v5a3 3 0 0 0 6 0v-1a10 10 0 1 0-4 8"],
  marketplace: [
    "M3 9l1.5-5h15L21 9",
    "M3 9a3 3 0 0 0 6 0 3 3 0 0 0 6 0 3 3 0 0 0 6 0",
    "M5 11v9h14v-9",
    "M10 20v-5h4v5",
  ],
  blog: ["M4 20h4L19 9l-4-4L4 16v4Z", "M13 7l4 4"],
  menu: ["M4 7h16M4 12h16M4 17h16"],
  close: ["M6 6l12 12M18 6L6 18"],
};
