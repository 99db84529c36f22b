import { useEffect, useMemo, useRef, useState } from "react";
import { TYPING_PAUSE_MS, askAfterPause, fetchAnswer, isAbort, retryPause } from "./api";
import { NO_DETAILS, evaluateCheck, takenWords, withDetails, type HostAnswer } from "./check";
import { needsFirstPage, type Feed } from "./live";
import { unknownHere } from "./text";
import type { Check } from "./types";

interface Asked {
  answer: HostAnswer;
  /** The list version the feed stood at when the answer was asked for. */
  version: number;
  /** Answers of "unavailable" in a row (a refusal, no answer, the host's list loading): asked again after a while. */
  failures: number;
}

/**
 * How long a word's answer may lag the list while it changes: the word is asked again at
 * most this often, so a page left open during a minting rush asks once a second, not
 * once a mint (its last answer shows meanwhile).
 */
const LIST_PAUSE_MS = 1000;

/**
 * The checker's verdict on `input`, at once where the page can tell (content
 * rules, a phrase it holds, a find that loaded every match) and otherwise
 * from `GET /api/phrases/check`, asked once typing pauses (a request for a word
 * no longer in the box cancelled).
 * A verdict of taken or available is also asked of the host, which alone
 * holds every phrase: it names the taker and free alternatives, or the minted
 * phrase a free word reads like. An answer is kept for the word it was asked
 * for and shown for no other. While an IME is still building a character
 * (`composing`), nothing is asked: the half-built text is no one's word.
 */
export function useChecker(input: string, feed: Feed, initial: Check, composing = false): Check {
  const [answers, setAnswers] = useState<ReadonlyMap<string, Asked>>(() => seed(initial, feed.version));
  const { list, plain } = feed;
  const taken = useMemo(() => takenWords(list.phrases, plain?.phrases ?? []), [list.phrases, plain?.phrases]);
  const everyMatch = list.fromTop && list.next === null && !needsFirstPage(feed) ? list.query : null;

  // A find that shows no match of a word this browser cannot read says nothing: the host
  // refuses to look for a word it calls invalid, too.
  const verdict = evaluateCheck(input, taken, (normalized) =>
    normalized === everyMatch && !unknownHere(normalized) ? "available" : answers.get(normalized)?.answer.verdict,
  );
  const asked = answers.get(verdict.normalized);
  const check = withDetails(verdict, asked?.answer);
  // Asked again once the list has moved: a stale answer shows (for its own word) meanwhile.
  const settled = check.status === "taken" || check.status === "available";
  // A failed ask is asked again whatever the page could tell meanwhile: only the host names
  // a taker, alternatives or a look-alike.
  const failed = (asked?.failures ?? 0) > 0;
  const ask = check.status === "pending" || failed || (settled && (asked === undefined || asked.version !== feed.version));
  const word = ask && !composing ? check.normalized : null;
  const version = feed.version;

  // The word being asked about: waiting for typing to pause, or its request on the way.
  // The list moving does not call it off (its answer is kept for the version it was
  // asked at, and the word asked again after `LIST_PAUSE_MS`), so answers still come
  // while the list changes faster than they do; another word does.
  const asking = useRef<{ word: string; cancel: () => void } | null>(null);
  // The word the effect last ran for (null: nothing to ask, or an IME composing), and the
  // list's version now, read when a wait ends.
  const previousWord = useRef<string | null>(null);
  const currentVersion = useRef(version);
  useEffect(() => {
    currentVersion.current = version;
  }, [version]);
  useEffect(() => {
    const typed = word !== previousWord.current;
    previousWord.current = word;
    if (asking.current !== null && asking.current.word === word) return;
    asking.current?.cancel();
    asking.current = null;
    if (word === null) return;
    const failures = typed ? 0 : (asked?.failures ?? 0);
    const pause = typed ? TYPING_PAUSE_MS : failures > 0 ? retryPause(failures) : LIST_PAUSE_MS;
    const entry = { word, cancel: () => {} };
    entry.cancel = askAfterPause((signal) => {
      const sentAt = currentVersion.current;
      const settle = (answer: HostAnswer) => {
        if (asking.current === entry) asking.current = null;
        const inARow = answer.verdict === "unavailable" ? failures + 1 : 0;
        setAnswers((known) => new Map(known).set(word, { answer, version: sentAt, failures: inARow }));
      };
      fetchAnswer(word, signal).then(settle, (reason: unknown) => {
        if (!isAbort(reason)) settle({ verdict: "unavailable", ...NO_DETAILS });
      });
    }, pause);
    asking.current = entry;
  }, [word, version, asked]);
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
  return new Map([[check.normalized, { answer: { verdict, taker, alternatives, lookalike }, version, failures: 0 }]]);
}
