import { useCallback, useEffect, useRef, useState } from "react";
import { MAX_PAGE, RefusedFind, TYPING_PAUSE_MS, askAfterPause, fetchPage, isAbort, retryPause } from "./api";
import {
  RECHECK_MOST,
  RESYNC,
  applyMessage,
  comparePosition,
  initialFeed,
  needsFirstPage,
  receiveFirst,
  receiveMore,
  receiveRecheck,
  showQuery,
  type Feed,
} from "./live";
import { openLiveFeed } from "./liveSocket";
import { MAX_WORD_BYTES, utf8Length } from "./text";
import type { WordsProps } from "./types";

export interface PhraseFeed {
  feed: Feed;
  /** Asks for the next page of what the grid shows, unless it is on its way or the end is in. */
  loadMore: () => void;
  /** A page is on its way (the next one, or the first of a find). */
  loading: boolean;
  /** The last page asked for did not come; `loadMore` asks again. */
  failed: boolean;
  /** Every phrase loaded is gone and more are to come: the next page is on its way instead. */
  emptied: boolean;
  /** Shows the phrases containing `query` (as `findText` gives it); "" for the newest-first list. */
  find: (query: string) => void;
  /** No live socket for a while: the list shows what it held when the last one closed. */
  paused: boolean;
}

/**
 * How long the page may be without a live socket before it says so: a deploy or a
 * network blip reconnects within a few seconds, and a note that came and went for those
 * would only alarm.
 */
export const PAUSED_AFTER_MS = 10_000;

/**
 * The list as the page holds it: the page the host rendered, later pages as
 * they are asked for, a find's matches, all kept current over the live
 * WebSocket (jittered reconnects; a gap in versions starts the socket over).
 * With `loadTo`, pages are asked for until that many phrases are loaded, each as large
 * as that needs, rather than as the grid scrolls near its end (a place kept from
 * before: see place.ts).
 */
export function usePhraseFeed(props: WordsProps, loadTo: number | null = null): PhraseFeed {
  const [feed, setFeed] = useState(() => initialFeed(props));
  // The one source of truth for callbacks that outlive a render; `setFeed` only re-renders.
  const current = useRef(feed);
  const commit = useCallback((next: Feed) => {
    if (next === current.current) return;
    current.current = next;
    setFeed(next);
  }, []);
  // The next page on its way, or the one that did not come and how many times in a row.
  const [more, setMore] = useState<{ key: string; failed: boolean; failures: number } | null>(null);
  const moreKey = useRef<string | null>(null);

  // Each time the socket goes, a count goes up; the note is for the last one, once it
  // has lasted. The page starts without one.
  const [live, setLive] = useState({ open: false, drops: 0 });
  const [pausedAt, setPausedAt] = useState(-1);
  useEffect(
    () =>
      openLiveFeed(
        () => current.current.version,
        (message) => {
          const next = applyMessage(current.current, message);
          if (next === RESYNC) return false;
          commit(next);
        },
        (open) => setLive((state) => ({ open, drops: state.drops + (open ? 0 : 1) })),
      ),
    // The socket lives for the page; it reads the feed through `current`.
    [commit],
  );
  useEffect(() => {
    if (live.open) return;
    const timer = setTimeout(() => setPausedAt(live.drops), PAUSED_AFTER_MS);
    return () => clearTimeout(timer);
  }, [live]);

  // The first page of a find (or of the plain list, when the page began with a find),
  // asked again after a while when it fails, until the box moves on.
  const wanted = needsFirstPage(feed) ? feed.want : null;
  const stale = feed.stale;
  const [findFailed, setFindFailed] = useState<{ query: string; failures: number } | null>(null);
  const failures = findFailed !== null && findFailed.query === wanted ? findFailed.failures : 0;
  // The find the effect last ran for: coming back to one that failed is typing, not a retry.
  const previousWanted = useRef<string | null>(null);
  useEffect(() => {
    const retry = failures > 0 && wanted === previousWanted.current;
    previousWanted.current = wanted;
    if (wanted === null) return;
    // Text longer than any phrase holds is in none, and the host would refuse to look.
    const nowhere = () => {
      const { version, count } = current.current;
      commit(receiveFirst(current.current, wanted, { version, count, phrases: [], next: null, prev: null }));
    };
    return askAfterPause(
      (signal) => {
        if (utf8Length(wanted) > MAX_WORD_BYTES) {
          nowhere();
          return;
        }
        fetchPage(wanted, null, signal).then(
          (page) => {
            setFindFailed(null);
            commit(receiveFirst(current.current, wanted, page));
          },
          (reason: unknown) => {
            if (isAbort(reason)) return;
            if (reason instanceof RefusedFind) {
              setFindFailed(null);
              nowhere();
              return;
            }
            console.warn("find failed", reason);
            setFindFailed({ query: wanted, failures: (retry ? failures : 0) + 1 });
          },
        );
      },
      retry ? retryPause(failures) : TYPING_PAUSE_MS,
    );
  }, [wanted, stale, commit, failures]);

  // After a snapshot (another replica, a restarted host) the pages kept below its first
  // are asked for again, so what changed in them while the socket could not say shows.
  // One that does not come leaves them as they were.
  const recheck = feed.recheck;
  useEffect(() => {
    if (recheck === null) return;
    const controller = new AbortController();
    (async () => {
      const pages = [];
      let after: string | null = recheck.after;
      while (after !== null && pages.length * MAX_PAGE < RECHECK_MOST) {
        const page = await fetchPage("", after, controller.signal, MAX_PAGE);
        pages.push(page);
        const last = page.phrases[page.phrases.length - 1];
        after = last === undefined || comparePosition(last, recheck.through) >= 0 ? null : page.next;
      }
      commit(receiveRecheck(current.current, recheck, pages));
    })().catch((reason: unknown) => {
      if (!isAbort(reason)) console.warn("the kept pages could not be asked for again", reason);
    });
    return () => controller.abort();
  }, [recheck, commit]);

  const target = useRef(loadTo);
  const loadMore = useCallback(() => {
    const { list } = current.current;
    if (list.next === null || needsFirstPage(current.current)) return;
    const key = `${list.query}\n${list.next}`;
    if (moreKey.current === key) return;
    moreKey.current = key;
    setMore((state) => ({ key, failed: false, failures: state?.key === key ? state.failures : 0 }));
    const { query, next: after } = list;
    const wanting = (target.current ?? 0) - list.phrases.length;
    fetchPage(query, after, null, wanting > 0 ? wanting : null).then(
      (page) => {
        commit(receiveMore(current.current, query, after, page));
        if (moreKey.current === key) moreKey.current = null;
        setMore((state) => (state?.key === key ? null : state));
      },
      () => {
        if (moreKey.current === key) moreKey.current = null;
        setMore((state) => (state?.key === key ? { key, failed: true, failures: state.failures + 1 } : state));
      },
    );
  }, [commit]);

  const find = useCallback((query: string) => commit(showQuery(current.current, query)), [commit]);

  const listKey = `${feed.list.query}\n${feed.list.next}`;
  // A page that did not come is asked for again by itself, after a pause that grows with
  // each failure and at once when the browser is back online: a visitor whose connection
  // dropped at the end of the list need not find the button to go on scrolling.
  const failed = more !== null && more.key === listKey && more.failed;
  const moreFailures = more?.failures ?? 0;
  useEffect(() => {
    if (!failed) return;
    const timer = setTimeout(loadMore, retryPause(moreFailures));
    window.addEventListener("online", loadMore);
    return () => {
      clearTimeout(timer);
      window.removeEventListener("online", loadMore);
    };
  }, [failed, moreFailures, loadMore]);
  // Every phrase loaded was removed (or the list kept during a find was emptied so): the
  // next page is what shows now, and nothing is on screen to scroll towards it.
  const emptied = feed.list.phrases.length === 0 && feed.list.next !== null;
  useEffect(() => {
    if (emptied) loadMore();
  }, [emptied, listKey, loadMore]);
  const loaded = feed.list.phrases.length;
  useEffect(() => {
    target.current = loadTo;
    if (loadTo !== null && loaded < loadTo) loadMore();
  }, [loadTo, loaded, listKey, loadMore]);
  return {
    feed,
    loadMore,
    loading: wanted !== null || (more !== null && more.key === listKey && !more.failed),
    failed,
    emptied,
    find,
    paused: !live.open && pausedAt === live.drops,
  };
}
