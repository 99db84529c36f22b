import { useEffect, useState } from "react";
import { UNCHANGED, isPhrase, watchAnswer, watchPhrase, type Watched } from "./live";
import { fetchAnswer } from "./api";
import { openLiveFeed } from "./liveSocket";
import type { Phrase } from "./types";

/**
 * Whether the phrase of this page is still minted, from the live feed the
 * list uses: its changes say when it is removed or minted again. When the
 * feed cannot say what changed (a snapshot, a gap in versions), the page asks
 * the host about its own URL.
 */
export function usePhraseWatch(phrase: Phrase, version: number): Watched {
  const [watched, setWatched] = useState<Watched>(UNCHANGED);

  useEffect(() => {
    let stopped = false;
    let seen = version;

    // The page itself, read for the phrase it shows now: after a restart, or from another
    // replica, the socket cannot say whether it was edited meanwhile. Gone, its words may
    // have been minted again, or the phrase that took them removed, meanwhile too.
    const askHost = () => {
      fetch(window.location.href, { cache: "no-store" }).then(
        async (response) => {
          const now = response.ok ? phraseInPage(await response.text()) : null;
          const gone = response.status === 404 || response.status === 410;
          const holder = gone ? await holderOf(phrase.word) : undefined;
          if (stopped) return;
          setWatched((watched) => watchAnswer(watched, phrase, response.status, now, holder) ?? watched);
        },
        () => {},
      );
    };

    const close = openLiveFeed(
      () => seen,
      (message) => {
        if (message.type === "snapshot") {
          seen = message.version;
          askHost();
          return;
        }
        if (message.version <= seen) return;
        if (message.from !== seen) askHost();
        seen = message.version;
        setWatched((now) => watchPhrase(now, phrase, message.changes));
      },
    );
    return () => {
      stopped = true;
      close();
    };
  }, [phrase, version]);

  return watched;
}

/** Who holds `word` now, as the host's check says; `undefined` when it did not say. */
async function holderOf(word: string): Promise<Phrase | null | undefined> {
  try {
    const answer = await fetchAnswer(word, new AbortController().signal);
    if (answer.verdict === "taken") return answer.taker;
    return answer.verdict === "available" ? null : undefined;
  } catch {
    return undefined;
  }
}

/** The phrase a phrase page's props hold, or null when `html` is not such a page. */
function phraseInPage(html: string): Phrase | null {
  const props = new DOMParser().parseFromString(html, "text/html").getElementById("__props")?.textContent;
  try {
    const phrase: unknown = props ? (JSON.parse(props) as Record<string, unknown>).phrase : null;
    return isPhrase(phrase) ? phrase : null;
  } catch {
    return null;
  }
}
