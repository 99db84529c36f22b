/** Joins class lists, skipping empty ones, so markup carries no stray spaces. */
export function classNames(...lists: (string | false | null | undefined)[]): string {
  return lists.filter(Boolean).join(" ");
}
