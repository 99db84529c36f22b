import { DINO_HEAD, DINO_TILE } from "../art/glyphs";
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
        "group inline-flex min-h-11 items-center gap-2 font-display text-2xl font-black uppercase tracking-tight text-white hover:text-accent",
        className,
      )}
    >
      <DinoMark />
      <span>{BRAND}</span>
    </a>
  );
}

/** The Dino head on a green tile: the favicon's drawing, inline so it needs no request. */
function DinoMark() {
  const { size, head, spikes, eye, nostril, mouth, teeth } = DINO_HEAD;
  return (
    <svg
      viewBox={`0 0 ${size} ${size}`}
      width={size}
      height={size}
      className="size-9 text-accent transition-transform group-hover:-rotate-6 motion-reduce:transition-none"
      aria-hidden="true"
      focusable="false"
    >
      <rect width={size} height={size} rx={DINO_TILE.radius} fill="currentColor" />
      <g transform={DINO_TILE.headTransform}>
        <path d={spikes} fill="#000" />
        <path d={head} fill="#000" />
        <circle cx={eye.cx} cy={eye.cy} r={eye.r} fill="currentColor" />
        <circle cx={nostril.cx} cy={nostril.cy} r={nostril.r} fill="currentColor" />
        <path d={teeth} fill="currentColor" />
        <path d={mouth} fill="none" stroke="currentColor" strokeWidth={1.6} strokeLinecap="round" />
      </g>
    </svg>
  );
}
