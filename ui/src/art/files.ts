import { ART_NAMES, type ArtName } from "./catalog";

/**
 * The content-hashed file of each picture. `build.mjs` writes the art first and
 * hands its file names to both bundles as `__ART_FILES__` (an esbuild define),
 * so pages link `/assets/dino-1-<hash>.svg` with no lookup at run time. Tests and
 * type checks run without a build and see the plain names instead.
 */
declare const __ART_FILES__: Readonly<Record<string, string>> | undefined;

const FILES: Readonly<Record<string, string>> =
  typeof __ART_FILES__ === "undefined" ? Object.fromEntries(ART_NAMES.map((name) => [name, `${name}.svg`])) : __ART_FILES__;

/** The URL of a picture, below `/assets/`. */
export function artSrc(name: ArtName): string {
  const file = FILES[name];
  if (file === undefined) throw new Error(`no art file for "${name}": was the art built?`);
  return `/assets/${file}`;
}
