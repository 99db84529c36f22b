import type { ImgHTMLAttributes } from "react";
import { artSize, type ArtName } from "../art/catalog";
import { artSrc } from "../art/files";

export interface Props extends Omit<ImgHTMLAttributes<HTMLImageElement>, "src" | "width" | "height" | "alt" | "loading"> {
  name: ArtName;
  /** What the picture shows or does; leave it out for decoration, which screen readers then skip. */
  alt?: string;
  /** Above the fold: fetched at once and first, not when scrolled near. */
  priority?: boolean;
}

/**
 * One of our pictures, with its intrinsic size set so the page never shifts
 * while it loads.
 */
export function ArtImage({ name, alt, priority = false, ...rest }: Props) {
  const { width, height } = artSize(name);
  return (
    <img
      src={artSrc(name)}
      width={width}
      height={height}
      alt={alt ?? ""}
      aria-hidden={alt === undefined ? true : undefined}
      loading={priority ? "eager" : "lazy"}
      fetchPriority={priority ? "high" : undefined}
      decoding="async"
      {...rest}
    />
  );
}
