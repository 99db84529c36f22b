import { isRecord } from "./guards";
import { isPhrase } from "./live";
import type { Check, CheckDetails, CheckStatus, Phrase } from "./types";
import { contentError, graphemeCount, normalizeWord } from "./text";

/** The words of the phrases the page holds, in the form inputs are compared in. */
export function takenWords(...lists: readonly (readonly Phrase[])[]): ReadonlySet<string> {
  const words = new Set<string>();
  for (const phrases of lists) for (const phrase of phrases) words.add(phrase.word);
  return words;
}

/** What the host said about a word: `GET /api/phrases/check`, or the no-script page's verdict. */
export type HostVerdict = "available" | "taken" | "invalid" | "unavailable";

/** The host's verdict on a word with what only the host can tell: its taker, free alternatives, a look-alike. */
export interface HostAnswer extends CheckDetails {
  verdict: HostVerdict;
}

/** A verdict the page reached alone carries no details until the host's answer comes. */
export const NO_DETAILS: CheckDetails = { taker: null, alternatives: [], lookalike: null };

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
  return { input, normalized, length, status: statusOf(normalized, taken, known), ...NO_DETAILS };
}

/**
 * `check` with the details of the host's `answer` on its word, when the host
 * reached the same verdict: the look-alike of a free word, the taker and
 * alternatives of a taken one. The host alone holds every phrase, so only it can tell.
 */
export function withDetails(check: Check, answer: HostAnswer | undefined): Check {
  if (answer === undefined || answer.verdict !== check.status) return check;
  const { taker, alternatives, lookalike } = answer;
  return { ...check, taker, alternatives, lookalike };
}

/** `GET /api/phrases/check`'s answer on its word, or null when the body is not one. */
export function parseCheckAnswer(value: unknown): { word: string; answer: HostAnswer } | null {
  if (!isRecord(value) || typeof value.word !== "string" || typeof value.available !== "boolean") return null;
  const taker = optionalPhrase(value.taker);
  const lookalike = optionalPhrase(value.lookalike);
  const alternatives = value.alternatives ?? [];
  if (taker === undefined || lookalike === undefined || !isStringArray(alternatives)) return null;
  return { word: value.word, answer: { verdict: value.available ? "available" : "taken", taker, alternatives, lookalike } };
}

/** A phrase, null for none (or a host that says nothing), undefined for what is neither. */
function optionalPhrase(value: unknown): Phrase | null | undefined {
  if (value === null || value === undefined) return null;
  return isPhrase(value) ? value : undefined;
}

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === "string");
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
