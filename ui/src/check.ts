import type { Check, CheckStatus, Phrase } from "./types";
import { contentError, graphemeCount, normalizeWord } from "./text";

/** The words already minted, in the form inputs are compared in. */
export function takenWords(phrases: readonly Phrase[]): ReadonlySet<string> {
  return new Set(phrases.map((phrase) => phrase.word));
}

/** Same rules, in the same order, as the host's check for the no-JS form. */
export function evaluateCheck(input: string, taken: ReadonlySet<string>): Check {
  const normalized = normalizeWord(input);
  const length = graphemeCount(normalized);
  return { input, normalized, length, status: statusOf(normalized, taken) };
}

function statusOf(normalized: string, taken: ReadonlySet<string>): CheckStatus {
  const error = contentError(normalized);
  if (error !== null) return error;
  if (taken.has(normalized)) return "taken";
  return "available";
}
