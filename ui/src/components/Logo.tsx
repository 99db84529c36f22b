import { classNames } from "../classNames";
import { BRAND } from "../data/site";

export interface Props {
  className?: string;
}

export function Logo({ className }: Props) {
  return (
    <a
      href="/"
      className={classNames(
        "inline-flex items-center gap-2 font-display text-2xl font-black uppercase tracking-tight text-white hover:text-accent",
        className,
      )}
    >
      <DinoMark />
      <span>{BRAND}</span>
    </a>
  );
}

/** A pixel dinosaur, drawn on a 16-unit grid so it stays crisp at small sizes. */
function DinoMark() {
  return (
    <svg
      viewBox="0 0 16 16"
      className="size-8 text-accent"
      fill="currentColor"
      shapeRendering="crispEdges"
      aria-hidden="true"
      focusable="false"
    >
      <path d="M8 1h6v1h1v4h-4v1h3v1h-3v2h-1v1H9v2H8v2H6v-1h1v-1H6v1H4v-1h1v-1H4v-1H3V9H2V7h1v1h1v1h1V8h1V7h2V1Zm2 1v1h1V2h-1Z" />
    </svg>
  );
}
