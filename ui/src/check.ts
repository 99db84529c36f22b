import { isRecord } from "./guards";
import type { Check, CheckStatus, Phrase } from "./types";
import { contentError, graphemeCount, normalizeWord } from "./text";

/** The words of the phrases the page holds, in the form inputs are compared in. */
export function takenWords(...lists: readonly (readonly Phrase[])[]): ReadonlySet<string> {
  const words = new Set<string>();
  for (const phrases of lists) for (const phrase of phrases) words.add(phrase.word);
  return words;
}

/** What the host said about a word: `GET /api/phrases/check`, or the no-script page's verdict. */
export type HostVerdict = "available" | "taken" | "invalid" | "unavailable";

/**
 * The verdict at once where the page can give it: the host's content rules
 * (the same, in the same order), a phrase the page holds, or what `known`
 * says (an answer from the host, or a find that loaded every match).
 * Otherwise "pending": the page cannot tell without asking.
 */
export function evaluateCheck(
  input: string,
  taken: ReadonlySet<string>,
  known: (normalized: string) => HostVerdict | undefined = () => undefined,
): Check {
  const normalized = normalizeWord(input);
  const length = graphemeCount(normalized);
  return { input, normalized, length, status: statusOf(normalized, taken, known) };
}

/** `GET /api/phrases/check`'s answer as a verdict on its word, or null when the body is not one. */
export function parseCheckAnswer(value: unknown): { word: string; verdict: HostVerdict } | null {
  if (!isRecord(value) || typeof value.word !== "string" || typeof value.available !== "boolean") return null;
  return { word: value.word, verdict: value.available ? "available" : "taken" };
}

function statusOf(
  normalized: string,
  taken: ReadonlySet<string>,
  known: (normalized: string) => HostVerdict | undefined,
): CheckStatus {
  const error = contentError(normalized);
  if (error !== null) return error;
  if (taken.has(normalized)) return "taken";
  return known(normalized) ?? "pending";
}
