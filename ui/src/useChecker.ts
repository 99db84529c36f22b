import { useEffect, useMemo, useState } from "react";
import { fetchVerdict, isAbort } from "./api";
import { evaluateCheck, takenWords, type HostVerdict } from "./check";
import { needsFirstPage, type Feed } from "./live";
import type { Check } from "./types";

interface Answer {
  verdict: HostVerdict;
  /** The list version the feed stood at when the answer was asked for. */
  version: number;
}

/**
 * The checker's verdict on `input`, at once where the page can tell (content
 * rules, a phrase it holds, a find that loaded every match) and otherwise
 * from `GET /api/phrases/check`, one request per keystroke, the previous cancelled.
 * An answer is kept for the word it was asked for and shown for no other.
 */
export function useChecker(input: string, feed: Feed, initial: Check): Check {
  const [answers, setAnswers] = useState<ReadonlyMap<string, Answer>>(() => seed(initial, feed.version));
  const { list, plain } = feed;
  const taken = useMemo(() => takenWords(list.phrases, plain?.phrases ?? []), [list.phrases, plain?.phrases]);
  const everyMatch = list.fromTop && list.next === null && !needsFirstPage(feed) ? list.query : null;

  const check = evaluateCheck(input, taken, (normalized) =>
    normalized === everyMatch ? "available" : answers.get(normalized)?.verdict,
  );
  // Asked again once the list has moved: a stale answer shows (for its own word) meanwhile.
  const asked = answers.get(check.normalized);
  const ask =
    (check.status === "pending" || (asked !== undefined && asked.version !== feed.version && check.status === asked.verdict)) &&
    check.normalized !== everyMatch;
  const word = ask ? check.normalized : null;
  const version = feed.version;

  useEffect(() => {
    if (word === null) return;
    const controller = new AbortController();
    fetchVerdict(word, controller.signal).then(
      (verdict) => setAnswers((known) => new Map(known).set(word, { verdict, version })),
      (reason: unknown) => {
        if (!isAbort(reason)) setAnswers((known) => new Map(known).set(word, { verdict: "unavailable", version }));
      },
    );
    return () => controller.abort();
  }, [word, version]);

  return check;
}

function seed(check: Check, version: number): ReadonlyMap<string, Answer> {
  if (check.status !== "available" && check.status !== "taken") return new Map();
  return new Map([[check.normalized, { verdict: check.status, version }]]);
}
