import { backoffDelay, liveUrl, parseMessage, type LiveMessage } from "./live";

/**
 * Keeps a WebSocket to the live feed open until the returned function is
 * called. Each (re)connect resumes after `since()`; each message that parses
 * goes to `onMessage`, which returns false to start the socket over (a gap it
 * cannot close). A socket that closes is opened again after a jittered,
 * growing wait, which a message resets.
 */
export function openLiveFeed(since: () => number, onMessage: (message: LiveMessage) => boolean | void): () => void {
  let socket: WebSocket | null = null;
  let retry: ReturnType<typeof setTimeout> | undefined;
  let attempt = 0;
  let stopped = false;

  const connect = () => {
    const own = new WebSocket(liveUrl(window.location, since()));
    socket = own;
    own.onmessage = (event: MessageEvent<unknown>) => {
      if (socket !== own || typeof event.data !== "string") return;
      const message = parseMessage(event.data);
      if (message === null) return;
      if (onMessage(message) === false) {
        own.close();
        return;
      }
      attempt = 0;
    };
    own.onclose = () => {
      if (socket !== own) return;
      socket = null;
      if (!stopped) retry = setTimeout(connect, backoffDelay(attempt++));
    };
  };

  // An open socket keeps the page out of the browser's back-forward cache, so Back to it
  // would load it afresh, its later pages and its place lost: it is closed as the page is
  // left, and opened again (from the version it holds) if the page is shown from there.
  const away = () => {
    clearTimeout(retry);
    const open = socket;
    socket = null;
    open?.close();
  };
  const back = (event: PageTransitionEvent) => {
    if (!event.persisted || stopped || socket !== null) return;
    attempt = 0;
    connect();
  };
  window.addEventListener("pagehide", away);
  window.addEventListener("pageshow", back);

  connect();
  return () => {
    stopped = true;
    window.removeEventListener("pagehide", away);
    window.removeEventListener("pageshow", back);
    away();
  };
}
