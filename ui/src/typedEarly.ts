/**
 * Text typed into an island's boxes before the page went live. Hydration renders each box
 * with the value the server sent, so what a visitor typed on a slow connection would be
 * lost: it is read before hydrating and handed to the island that owns the box once live.
 */
const early = new Map<string, string>();

/** Keeps what each box with an id under `root` holds that the server did not send. */
export function keepTypedEarly(root: ParentNode): void {
  for (const box of root.querySelectorAll<HTMLInputElement>("input[id]")) {
    if (box.value !== box.defaultValue) early.set(box.id, box.value);
  }
}

/** What was typed into box `id` before the page went live, once. */
export function takeTypedEarly(id: string): string | undefined {
  const value = early.get(id);
  early.delete(id);
  return value;
}
