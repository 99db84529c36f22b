import { backoffDelay, liveUrl, parseMessage, type LiveMessage } from "./live";

/**
 * How long a socket may go without a word before it is taken for dead: the host sends
 * one with each ping, every 20 s. A network change (another cell, Wi-Fi to mobile) can
 * leave a connection half open, where nothing arrives and nothing fails, and a quiet
 * list would be shown as live for as long as the operating system keeps it.
 */
export const SILENT_MS = 50_000;

/**
 * How long a socket must stay open to count as live: one the host closes as it opens
 * (sent away while its list is stale, or full) has the page no more live than none.
 */
export const STEADY_MS = 3_000;

/**
 * Keeps a WebSocket to the live feed open until the returned function is
 * called. Each (re)connect resumes after `since()`; each message that parses
 * goes to `onMessage`, which returns false to start the socket over (a gap it
 * cannot close). A socket that closes is opened again after a jittered,
 * growing wait, which a message resets; one that falls silent, or that the
 * network came back under, is replaced at once. `onLive` hears when a socket has stayed
 * open `STEADY_MS` (the host then sends what changes) and when none is open.
 */
export function openLiveFeed(
  since: () => number,
  onMessage: (message: LiveMessage) => boolean | void,
  onLive?: (live: boolean) => void,
): () => void {
  let socket: WebSocket | null = null;
  let retry: ReturnType<typeof setTimeout> | undefined;
  let steady: ReturnType<typeof setTimeout> | undefined;
  let watchdog: ReturnType<typeof setTimeout> | undefined;
  let heard = 0;
  let attempt = 0;
  let stopped = false;
  let live = false;
  const setLive = (now: boolean) => {
    clearTimeout(steady);
    if (live === now) return;
    live = now;
    if (!stopped) onLive?.(now);
  };

  const listen = (own: WebSocket) => {
    heard = Date.now();
    clearTimeout(watchdog);
    watchdog = setTimeout(() => replace(own), SILENT_MS);
  };

  const connect = () => {
    clearTimeout(retry);
    const own = new WebSocket(liveUrl(window.location, since()));
    socket = own;
    listen(own);
    own.onopen = () => {
      clearTimeout(steady);
      steady = setTimeout(() => {
        if (socket === own) setLive(true);
      }, STEADY_MS);
    };
    own.onmessage = (event: MessageEvent<unknown>) => {
      if (socket !== own) return;
      listen(own);
      if (typeof event.data !== "string") return;
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
      clearTimeout(watchdog);
      socket = null;
      setLive(false);
      if (!stopped) retry = setTimeout(connect, backoffDelay(attempt++));
    };
  };

  // A dead connection's close may wait on a handshake that never comes: it is let go,
  // and a new one opened from the version the page holds.
  const replace = (own: WebSocket) => {
    if (socket !== own || stopped) return;
    own.onopen = null;
    own.onmessage = null;
    own.onclose = null;
    own.close();
    setLive(false);
    connect();
  };

  // Back online: a socket opened before is likely on a path that is gone, and one
  // waiting out its backoff need not.
  const online = () => {
    if (stopped) return;
    attempt = 0;
    if (socket !== null) replace(socket);
    else if (retry !== undefined) connect();
  };
  // Timers of a hidden page are held back: one shown again looks at once.
  const shown = () => {
    if (document.visibilityState === "visible" && socket !== null && Date.now() - heard > SILENT_MS) replace(socket);
  };

  // An open socket keeps the page out of the browser's back-forward cache, so Back to it
  // would load it afresh, its later pages and its place lost: it is closed as the page is
  // left, and opened again (from the version it holds) if the page is shown from there.
  const away = () => {
    clearTimeout(retry);
    clearTimeout(watchdog);
    retry = undefined;
    const open = socket;
    socket = null;
    open?.close();
    setLive(false);
  };
  const back = (event: PageTransitionEvent) => {
    if (!event.persisted || stopped || socket !== null) return;
    attempt = 0;
    connect();
  };
  window.addEventListener("pagehide", away);
  window.addEventListener("pageshow", back);
  window.addEventListener("online", online);
  document.addEventListener("visibilitychange", shown);

  connect();
  return () => {
    stopped = true;
    window.removeEventListener("pagehide", away);
    window.removeEventListener("pageshow", back);
    window.removeEventListener("online", online);
    document.removeEventListener("visibilitychange", shown);
    away();
  };
}
