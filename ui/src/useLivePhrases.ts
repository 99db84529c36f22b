import { useEffect, useState } from "react";
import { RESYNC, apply, backoffDelay, liveUrl, parseMessage, type LiveState } from "./live";

/**
 * Keeps the phrase list current over the live WebSocket, starting from the
 * state the page was rendered with. Reconnects with jittered backoff; a gap
 * in versions closes the socket so the next one asks from where it stands.
 */
export function useLivePhrases(initial: LiveState): LiveState {
  const [state, setState] = useState(initial);

  useEffect(() => {
    let current = initial;
    let socket: WebSocket | null = null;
    let retry: ReturnType<typeof setTimeout> | undefined;
    let attempt = 0;
    let stopped = false;

    const connect = () => {
      const own = new WebSocket(liveUrl(window.location, current.version));
      socket = own;
      own.onmessage = (event: MessageEvent<unknown>) => {
        if (socket !== own || typeof event.data !== "string") return;
        const message = parseMessage(event.data);
        if (message === null) return;
        const next = apply(current, message);
        if (next === RESYNC) {
          own.close();
          return;
        }
        attempt = 0;
        if (next !== current) {
          current = next;
          setState(next);
        }
      };
      own.onclose = () => {
        if (socket !== own) return;
        socket = null;
        if (!stopped) retry = setTimeout(connect, backoffDelay(attempt++));
      };
    };

    connect();
    return () => {
      stopped = true;
      clearTimeout(retry);
      socket?.close();
      socket = null;
    };
    // The socket lives for the page; `initial` is only where it starts.
  }, []);

  return state;
}
