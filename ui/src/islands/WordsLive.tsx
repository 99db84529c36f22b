import { useCallback, useEffect, useRef, useState, type FormEvent } from "react";
import { classNames } from "../classNames";
import { checkPath, phrasePath } from "../data/site";
import { findText, groupThousands, normalizeWord } from "../text";
import { readPlace, restorable, type Place } from "../place";
import type { SiteProps, WordsProps } from "../types";
import { useChecker } from "../useChecker";
import { useColumns } from "../useColumns";
import { useFreshArrivals } from "../useFreshArrivals";
import { useHeldArrivals } from "../useHeldArrivals";
import { useHydrated } from "../useHydrated";
import { usePhraseFeed } from "../usePhraseFeed";
import { PhraseGrid } from "../components/PhraseGrid";
import { VirtualPhraseGrid } from "../components/VirtualPhraseGrid";
import { WordChecker } from "../components/WordChecker";

export type Props = WordsProps;

/**
 * The checker and the minted list in one island: the box is also the find
 * box, and whether a phrase is taken depends on the list, which changes
 * under the user's feet.
 */
export function WordsLive(props: Props) {
  const { site, version, loaded, check } = props;
  // Where the visitor was when they left this page, if Back or a reload brought them to
  // it afresh with fewer phrases than they had scrolled through (see place.ts).
  const [place, setPlace] = useState(() => placeToRestore(props));
  const { feed, loadMore, loading, failed, emptied, find, paused } = usePhraseFeed(props, place?.loaded ?? null);
  const [typed, setTyped] = useState<string | null>(null);
  // An IME is building a character: the box's text is not a word yet.
  const [composing, setComposing] = useState(false);
  const [focusIndex, setFocusIndex] = useState<number | null>(null);
  // Live, the verdict follows every keystroke and the grid scrolls on: the
  // button and the page links only served the no-script page.
  const hydrated = useHydrated();
  const finding = hydrated && feed.want !== feed.list.query;
  const live = useChecker(typed ?? check.input, feed, check, composing);
  // Until the user types or the list moves, show the host's verdict: it is
  // what the server rendered, so hydration sees the same markup.
  const current = typed === null && feed.version === version ? check : live;

  // The address says what the grid shows: an emptied box brings back the later page the
  // visitor came to (`?after=`), so its address comes back with it.
  const [served] = useState(() => (typeof window === "undefined" ? null : new URL(window.location.href).searchParams));
  const laterPage = feed.list.query === "" && !feed.list.fromTop;
  useEffect(() => {
    if (typed === null || composing) return;
    const url = new URL(window.location.href);
    if (typed === "") url.searchParams.delete("check");
    else url.searchParams.set("check", typed);
    for (const key of ["after", "before"]) {
      const kept = typed === "" && laterPage ? served?.get(key) : null;
      if (kept) url.searchParams.set(key, kept);
      else url.searchParams.delete(key);
    }
    window.history.replaceState(window.history.state, "", url);
  }, [typed, composing, laterPage, served]);

  // Restoring the place gives way to whatever the visitor does first.
  const placed = useCallback(() => {
    setPlace(null);
    window.history.scrollRestoration = "auto";
  }, []);
  useEffect(() => {
    if (place === null) return;
    const events = ["wheel", "touchstart", "keydown", "mousedown"] as const;
    for (const event of events) window.addEventListener(event, placed, { passive: true });
    return () => {
      for (const event of events) window.removeEventListener(event, placed);
    };
  }, [place, placed]);
  const placeLoaded = place !== null && (feed.list.phrases.length >= place.loaded || feed.list.next === null);

  // The checker keeps the box within the limit; an IME's unfinished character finds nothing yet.
  const onInput = (value: string, composing: boolean) => {
    if (place !== null) placed();
    setTyped(value);
    setComposing(composing);
    if (!composing) find(findText(value));
  };
  const onSubmit = (event: FormEvent<HTMLFormElement>) => event.preventDefault();
  const gridTop = useRef<HTMLDivElement>(null);
  const { shown, above, held, release } = useHeldArrivals(feed.list, gridTop, hydrated, useColumns());
  // How many phrases were loaded when the Load more button took the focus: its coming
  // into view may load more by itself, and those are the ones its user has not heard yet.
  const reached = useRef<number | null>(null);
  const onLoadMoreFocus = (focused: boolean) => {
    reached.current = focused ? shown.phrases.length : null;
  };
  // While the button has the focus the grid loads nothing by itself: that would push the
  // focused button off the screen. Asked when the grid would load, as the focus has
  // moved by then whatever React has rendered. The button loads, and takes the focus on.
  const loadOnByItself = useCallback(() => {
    if (document.activeElement?.id !== LOAD_MORE_ID) loadMore();
  }, [loadMore]);
  const onLoadMore = () => {
    const count = shown.phrases.length;
    const unheard = reached.current ?? count;
    reached.current = count;
    if (unheard < count) {
      setFocusIndex(unheard);
      return;
    }
    setFocusIndex(count);
    loadMore();
  };
  const onFocused = useCallback(() => setFocusIndex(null), []);
  // The held phrases go in at the top, and the visitor and the focus to the newest.
  const showHeld = () => {
    release();
    setFocusIndex(0);
  };

  const { list } = feed;
  const fresh = useFreshArrivals(shown, hydrated);
  const unavailable = loaded === false && feed.version === version;
  return (
    <>
      <WordChecker
        action={site.wordsPath}
        placeholder={site.productName}
        check={current}
        phraseHref={(id) => phrasePath(site, id)}
        checkHref={(word) => checkPath(site, word)}
        onInput={onInput}
        onPick={(word) => onInput(word, false)}
        onSubmit={onSubmit}
        submitButton={!hydrated}
        composing={composing}
      />
      <div className="mt-12 flex flex-wrap items-baseline justify-between gap-x-6 gap-y-1">
        <h2 className="font-display text-sm font-bold uppercase tracking-widest text-white">
          {unavailable ? `Minted Last ${site.productName}` : `${groupThousands(feed.count)} Last ${site.productName} minted`}
        </h2>
        <p className="min-w-0 truncate text-sm text-white/70">
          {/* Isolated, as the phrases are: "مرحبا!" keeps its "!" where it is written. */}
          {list.query === "" ? (
            "Newest first"
          ) : (
            <>
              Containing “<bdi>{list.query}</bdi>”, newest first
            </>
          )}
        </p>
      </div>
      {/* A later page: newer phrases are a link away, above the list, which grows as it scrolls. */}
      {!list.fromTop && props.prev !== null && (
        <p className="mt-4">
          <a rel="prev" href={pageHref(site, props.query, "before", props.prev)} className={LINK_CLASSES}>
            Newer
          </a>
        </p>
      )}
      {/* A find on its way: the list shown is the last one's, dimmed until the new one comes. */}
      <div ref={gridTop} className={classNames("mt-4 transition-opacity motion-reduce:transition-none", finding && "opacity-50")}>
        {unavailable ? (
          <p role="status" className="text-white/70">
            {`The list of Last ${site.productName} is temporarily unavailable. It appears here by itself as soon as it loads.`}
          </p>
        ) : hydrated && list.phrases.length > 0 ? (
          <VirtualPhraseGrid
            list={shown}
            before={held}
            site={site}
            total={list.query === "" && list.fromTop ? feed.count : list.next === null ? list.phrases.length : -1}
            fresh={fresh}
            busy={loading}
            onNearEnd={failed ? noop : loadOnByItself}
            focusIndex={focusIndex}
            onFocused={onFocused}
            served={props.phrases.length}
            place={placeLoaded ? place : null}
            onPlaced={placed}
          />
        ) : emptied ? null : (
          <PhraseGrid
            phrases={list.phrases}
            site={site}
            query={list.query}
            busy={hydrated && loading}
            older={!list.fromTop && props.prev !== null}
            readsLike={current.status === "available" && current.lookalike !== null && findText(current.input) === list.query}
          />
        )}
      </div>
      {hydrated ? (
        <PageEnd
          more={list.next !== null && !unavailable}
          loading={loading}
          failed={failed}
          onLoadMore={onLoadMore}
          onLoadMoreFocus={onLoadMoreFocus}
        />
      ) : (
        <PageLinks site={site} query={props.query} prev={props.prev} next={props.next} />
      )}
      {hydrated && <HeldNote above={above} onShow={showHeld} />}
      {hydrated && <PausedNote paused={paused} />}
    </>
  );
}

function noop() {}

/**
 * Says how many phrases were minted above while the visitor reads down the list, over
 * the page as the paused note is; pressed, it lets in those held and takes the visitor
 * to the newest.
 */
function HeldNote({ above, onShow }: { above: number; onShow: () => void }) {
  return (
    <div role="status" className="pointer-events-none fixed inset-x-0 top-4 z-10 flex justify-center px-4">
      {above > 0 && (
        <button
          type="button"
          onClick={onShow}
          className="pointer-events-auto min-h-12 rounded-full border-2 border-accent bg-black px-5 py-2 font-display text-sm font-black uppercase tracking-wide text-white shadow-lg hover:text-accent focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-accent"
        >
          <span aria-hidden="true">↑ </span>
          {`Show ${groupThousands(above)} new`}
        </button>
      )}
    </div>
  );
}

/**
 * Says that the list stopped following the host, over the page rather than in it, so
 * nothing moves when it comes or goes. The live region is there from hydration on, so
 * screen readers hear the note come.
 */
function PausedNote({ paused }: { paused: boolean }) {
  return (
    <div role="status" className="pointer-events-none fixed inset-x-0 bottom-[max(1rem,env(safe-area-inset-bottom))] z-10 flex justify-center px-4">
      {paused && (
        <p className="rounded-full border border-white/30 bg-black/90 px-4 py-2 text-sm text-white shadow-lg">
          Live updates paused: reconnecting…
        </p>
      )}
    </div>
  );
}

/** The place kept in this history entry, when it is further down this list than the page holds. */
function placeToRestore(props: Props): Place | null {
  // Read as the page hydrates; the server has no history.
  if (typeof window === "undefined" || props.prev !== null) return null;
  const place = readPlace(window.history.state);
  return restorable(place, props.phrases.length) && place.query === normalizeWord(props.query) ? place : null;
}

const LOAD_MORE_ID = "load-more";

const LINK_CLASSES =
  "inline-flex min-h-12 items-center rounded-full border-2 border-white/50 px-6 py-3 font-display text-sm font-black uppercase tracking-wide text-white hover:border-accent hover:text-accent";

/** Without JavaScript, pages link to each other; crawlers follow the same links. */
function PageLinks({ site, query, prev, next }: { site: SiteProps; query: string; prev: string | null; next: string | null }) {
  if (prev === null && next === null) return null;
  return (
    <nav aria-label={`Pages of Last ${site.productName}`} className="mt-8 flex flex-wrap justify-between gap-4">
      {prev !== null && (
        <a rel="prev" href={pageHref(site, query, "before", prev)} className={LINK_CLASSES}>
          Newer
        </a>
      )}
      {next !== null && (
        <a rel="next" href={pageHref(site, query, "after", next)} className={`${LINK_CLASSES} ml-auto`}>
          Older
        </a>
      )}
    </nav>
  );
}

interface PageEndProps {
  more: boolean;
  loading: boolean;
  failed: boolean;
  onLoadMore: () => void;
  onLoadMoreFocus: (focused: boolean) => void;
}

/** The grid loads on as it scrolls; the button does the same for keyboards and screen readers. */
function PageEnd({ more, loading, failed, onLoadMore, onLoadMoreFocus }: PageEndProps) {
  if (!more) return null;
  return (
    <div className="mt-8 flex flex-wrap items-center justify-between gap-4">
      {/* Not disabled while loading: that would drop the focus of whoever pressed it. */}
      <button
        id={LOAD_MORE_ID}
        type="button"
        onClick={onLoadMore}
        onFocus={() => onLoadMoreFocus(true)}
        onBlur={() => onLoadMoreFocus(false)}
        aria-disabled={loading}
        className={`${LINK_CLASSES} ml-auto aria-disabled:opacity-60`}
      >
        {loading ? "Loading…" : failed ? "Could not load: try again" : "Load more"}
      </button>
    </div>
  );
}

function pageHref(site: SiteProps, query: string, key: "after" | "before", cursor: string): string {
  const check = query === "" ? "" : `check=${encodeURIComponent(query)}&`;
  return `${site.wordsPath}?${check}${key}=${encodeURIComponent(cursor)}`;
}
