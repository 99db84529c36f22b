/**
 * The brand marks of the sites the footer and header link to, from the
 * simple-icons package (filled paths on a 24 × 24 grid). Only server-rendered
 * links use them, so they never reach the client bundle.
 */
import { siDiscord, siMedium, siOpensea, siX } from "simple-icons";

export type BrandName = "discord" | "x" | "opensea" | "medium";

export const BRAND_PATHS: Readonly<Record<BrandName, string>> = {
  discord: siDiscord.path,
  x: siX.path,
  opensea: siOpensea.path,
  medium: siMedium.path,
};
