/** The host's JSON API as the words island calls it; every call can be cancelled. */
import { NO_DETAILS, parseCheckAnswer, type HostAnswer } from "./check";
import { parsePage } from "./live";
import type { PhrasePage } from "./types";

/**
 * How long a request may go unanswered before it counts as failed (and is asked again
 * after a while): a stalled connection would otherwise hold its word on "Checking…".
 */
const REQUEST_TIMEOUT_MS = 10_000;

/**
 * Runs `request` with a signal that aborts when `signal` does (an AbortError) or once
 * `REQUEST_TIMEOUT_MS` have passed with the request, its body included, unfinished (a
 * TimeoutError, which `isAbort` does not count as a cancellation).
 */
async function within<T>(signal: AbortSignal | null, request: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new DOMException("the host did not answer in time", "TimeoutError")), REQUEST_TIMEOUT_MS);
  const cancel = () => controller.abort();
  if (signal?.aborted) cancel();
  signal?.addEventListener("abort", cancel);
  try {
    return await request(controller.signal);
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener("abort", cancel);
  }
}

/**
 * `GET /api/phrases`: the first page of `query`'s list, or the one after `after`; of
 * `limit` phrases (up to `MAX_PAGE`) rather than the host's page size when given.
 */
export function fetchPage(query: string, after: string | null, signal: AbortSignal | null = null, limit: number | null = null): Promise<PhrasePage> {
  return within(signal, async (signal) => {
    const response = await fetch(phrasesUrl(query, after, limit), { signal, headers: { accept: "application/json" } });
    if (response.status === 400 && after === null) throw new RefusedFind(query);
    if (!response.ok) throw new Error(`GET /api/phrases: ${response.status}`);
    const page = parsePage(await response.json());
    if (page === null) throw new Error("GET /api/phrases: not a page");
    return page;
  });
}

/**
 * The host will not look for `query` (text longer than any phrase holds): no phrase
 * contains it, so asking again would only ever bring the same answer.
 */
export class RefusedFind extends Error {
  constructor(readonly query: string) {
    super(`GET /api/phrases: the host refused to look for ${JSON.stringify(query)}`);
  }
}

/** `GET /api/phrases/check`: the host's verdict on `word`, with its details. */
export function fetchAnswer(word: string, signal: AbortSignal): Promise<HostAnswer> {
  return within(signal, async (signal) => {
    const response = await fetch(`/api/phrases/check?word=${encodeURIComponent(word)}`, { signal });
    if (response.status === 400) return { verdict: "invalid", ...NO_DETAILS };
    if (!response.ok) return { verdict: "unavailable", ...NO_DETAILS };
    return parseCheckAnswer(await response.json())?.answer ?? { verdict: "unavailable", ...NO_DETAILS };
  });
}

/**
 * How long typing must pause before the box's text is asked of the host: a word typed
 * letter by letter is one find and one check, not two requests a letter, which a crowd
 * behind one address (a phone network's shared one) would spend its rate limit on.
 * Longer than the 200 ms or so between a phone typist's letters.
 */
export const TYPING_PAUSE_MS = 250;

/**
 * How long a request that failed (the host refused or did not answer) waits before it is
 * made again, doubling with each failure in a row up to `RETRY_MAX_MS`.
 */
const RETRY_MS = 2000;
const RETRY_MAX_MS = 30_000;

/** The wait before asking again after `failures` failures in a row. */
export function retryPause(failures: number): number {
  return Math.min(RETRY_MAX_MS, RETRY_MS * 2 ** Math.max(0, failures - 1));
}

/** Calls `ask` once `pause` has passed; the function returned calls it off, or cancels its request. */
export function askAfterPause(ask: (signal: AbortSignal) => void, pause: number): () => void {
  const controller = new AbortController();
  const timer = setTimeout(() => ask(controller.signal), pause);
  return () => {
    clearTimeout(timer);
    controller.abort();
  };
}

/** The most phrases the host gives in one page (its `MAX_LIMIT`). */
export const MAX_PAGE = 200;

export function phrasesUrl(query: string, after: string | null, limit: number | null = null): string {
  const params = [
    query === "" ? null : `q=${encodeURIComponent(query)}`,
    after === null ? null : `after=${encodeURIComponent(after)}`,
    limit === null ? null : `limit=${Math.min(MAX_PAGE, Math.max(1, Math.floor(limit)))}`,
  ];
  const search = params.filter((param) => param !== null).join("&");
  return search === "" ? "/api/phrases" : `/api/phrases?${search}`;
}

/** Whether `error` is the cancellation of a request the page no longer wants (not its time running out). */
export function isAbort(error: unknown): boolean {
  return error instanceof DOMException && error.name === "AbortError";
}
