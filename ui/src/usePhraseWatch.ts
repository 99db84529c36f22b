import { useEffect, useState } from "react";
import { UNCHANGED, watchPhrase, type Watched } from "./live";
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

    const askHost = () => {
      fetch(window.location.href, { method: "HEAD", cache: "no-store" }).then(
        (response) => {
          if (stopped) return;
          if (response.status === 404 || response.status === 410) setWatched((now) => ({ ...now, removed: true }));
          else if (response.ok) setWatched(UNCHANGED);
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
