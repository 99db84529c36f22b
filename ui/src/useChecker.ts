import { useEffect, useMemo, useRef, useState } from "react";
import { TYPING_PAUSE_MS, askAfterPause, fetchAnswer, isAbort } from "./api";
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
 * from `GET /api/phrases/check`, asked once typing pauses (a request for a word
 * no longer in the box cancelled).
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

  // The word being asked about: waiting for typing to pause, or its request on the way.
  // The list moving does not call it off (its answer is kept for the version it was
  // asked at, and then asked again at once), so answers still come while the list
  // changes faster than they do; another word does.
  const asking = useRef<{ word: string; cancel: () => void } | null>(null);
  const lastWord = useRef<string | null>(null);
  const askedVersion = asked?.version;
  useEffect(() => {
    if (asking.current !== null && asking.current.word === word) return;
    asking.current?.cancel();
    asking.current = null;
    if (word === null) return;
    const typed = word !== lastWord.current;
    lastWord.current = word;
    const entry = { word, cancel: () => {} };
    const settle = (asked: Asked) => {
      if (asking.current === entry) asking.current = null;
      setAnswers((known) => new Map(known).set(word, asked));
    };
    entry.cancel = askAfterPause(
      (signal) =>
        fetchAnswer(word, signal).then(
          (answer) => settle({ answer, version }),
          (reason: unknown) => {
            if (!isAbort(reason)) settle({ answer: { verdict: "unavailable", ...NO_DETAILS }, version });
          },
        ),
      typed ? TYPING_PAUSE_MS : 0,
    );
    asking.current = entry;
  }, [word, version, askedVersion]);
  useEffect(
    () => () => {
      asking.current?.cancel();
      asking.current = null;
    },
    [],
  );

  return check;
}

function seed(check: Check, version: number): ReadonlyMap<string, Asked> {
  if (check.status !== "available" && check.status !== "taken") return new Map();
  const { status: verdict, taker, alternatives, lookalike } = check;
  return new Map([[check.normalized, { answer: { verdict, taker, alternatives, lookalike }, version }]]);
}
