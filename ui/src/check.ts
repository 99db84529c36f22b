import type { Check, CheckStatus, Phrase } from "./types";
import { MAX_GRAPHEMES, graphemeCount, normalizeWord } from "./text";

/** The words already minted, in the form inputs are compared in. */
export function takenWords(phrases: readonly Phrase[]): ReadonlySet<string> {
  return new Set(phrases.map((phrase) => phrase.word));
}

/** Same rules, in the same order, as the host's check for the no-JS form. */
export function evaluateCheck(input: string, taken: ReadonlySet<string>): Check {
  const normalized = normalizeWord(input);
  const length = graphemeCount(normalized);
  return { input, normalized, length, status: statusOf(normalized, length, taken) };
}

function statusOf(normalized: string, length: number, taken: ReadonlySet<string>): CheckStatus {
  if (length === 0) return "empty";
  if (length > MAX_GRAPHEMES) return "too_long";
  if (taken.has(normalized)) return "taken";
  return "available";
}
