import { useEffect, useMemo, useState } from "react";
import { askAfterPause, fetchAnswer, isAbort } from "./api";
import { NO_DETAILS, evaluateCheck, takenWords, withDetails, type HostAnswer } from "./check";
import { needsFirstPage, type Feed } from "./live";
import type { Check } from "./types";

interface Asked {
  answer: HostAnswer;
  /** The list version the feed stood at when the answer was asked for. */
  version: number;
}

/**
 * The checker's verdict on `input`, at once where the page can tell (content
 * rules, a phrase it holds, a find that loaded every match) and otherwise
 * from `GET /api/phrases/check`, asked once typing pauses, the previous request cancelled.
 * A verdict of taken or available is also asked of the host, which alone
 * holds every phrase: it names the taker and free alternatives, or the minted
 * phrase a free word reads like. An answer is kept for the word it was asked
 * for and shown for no other.
 */
export function useChecker(input: string, feed: Feed, initial: Check): Check {
  const [answers, setAnswers] = useState<ReadonlyMap<string, Asked>>(() => seed(initial, feed.version));
  const { list, plain } = feed;
  const taken = useMemo(() => takenWords(list.phrases, plain?.phrases ?? []), [list.phrases, plain?.phrases]);
  const everyMatch = list.fromTop && list.next === null && !needsFirstPage(feed) ? list.query : null;

  const verdict = evaluateCheck(input, taken, (normalized) =>
    normalized === everyMatch ? "available" : answers.get(normalized)?.answer.verdict,
  );
  const asked = answers.get(verdict.normalized);
  const check = withDetails(verdict, asked?.answer);
  // Asked again once the list has moved: a stale answer shows (for its own word) meanwhile.
  const settled = check.status === "taken" || check.status === "available";
  const ask = check.status === "pending" || (settled && (asked === undefined || asked.version !== feed.version));
  const word = ask ? check.normalized : null;
  const version = feed.version;

  useEffect(() => {
    if (word === null) return;
    return askAfterPause((signal) =>
      fetchAnswer(word, signal).then(
        (answer) => setAnswers((known) => new Map(known).set(word, { answer, version })),
        (reason: unknown) => {
          if (!isAbort(reason)) setAnswers((known) => new Map(known).set(word, { answer: { verdict: "unavailable", ...NO_DETAILS }, version }));
        },
      ),
    );
  }, [word, version]);

  return check;
}

function seed(check: Check, version: number): ReadonlyMap<string, Asked> {
  if (check.status !== "available" && check.status !== "taken") return new Map();
  const { status: verdict, taker, alternatives, lookalike } = check;
  return new Map([[check.normalized, { answer: { verdict, taker, alternatives, lookalike }, version }]]);
}
