import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { SILENT_MS, STEADY_MS, openLiveFeed } from "./liveSocket";

/** A WebSocket that the test drives: what the host would send, and a close. */
class FakeSocket {
  static made: FakeSocket[] = [];
  onopen: (() => void) | null = null;
  onmessage: ((event: { data: unknown }) => void) | null = null;
  onclose: (() => void) | null = null;
  closed = false;
  constructor(readonly url: string) {
    FakeSocket.made.push(this);
  }
  close() {
    this.closed = true;
  }
  opened() {
    this.onopen?.();
  }
  say(data: string) {
    this.onmessage?.({ data });
  }
  drop() {
    this.closed = true;
    this.onclose?.();
  }
}

const changes = (from: number) => JSON.stringify({ type: "changes", from, version: from + 1, count: 1, changes: [] });
const alive = JSON.stringify({ type: "alive" });
const open = () => FakeSocket.made.filter((socket) => !socket.closed);

describe("the live socket", () => {
  let page: EventTarget & { location: { protocol: string; host: string } };
  let doc: EventTarget & { visibilityState: string };
  let stop: () => void;
  let version: number;
  let heard: boolean[];

  beforeEach(() => {
    vi.useFakeTimers();
    FakeSocket.made = [];
    page = Object.assign(new EventTarget(), { location: { protocol: "http:", host: "example.test" } });
    doc = Object.assign(new EventTarget(), { visibilityState: "visible" });
    vi.stubGlobal("window", page);
    vi.stubGlobal("document", doc);
    vi.stubGlobal("WebSocket", FakeSocket);
    version = 7;
    heard = [];
    stop = openLiveFeed(
      () => version,
      (message) => {
        version = message.version;
      },
      (live) => heard.push(live),
    );
  });

  afterEach(() => {
    stop();
    vi.useRealTimers();
    vi.unstubAllGlobals();
  });

  it("stays open while the host's word comes with each ping, even with no change for minutes", () => {
    for (let i = 0; i < 15; i++) {
      vi.advanceTimersByTime(20_000);
      FakeSocket.made[0]!.say(alive);
    }
    expect(FakeSocket.made).toHaveLength(1);
    expect(open()).toHaveLength(1);
  });

  it("takes a socket that hears nothing for longer than a few pings for dead, and opens another from the version it holds", () => {
    FakeSocket.made[0]!.say(changes(7));
    vi.advanceTimersByTime(SILENT_MS - 1);
    expect(FakeSocket.made).toHaveLength(1);
    vi.advanceTimersByTime(1);
    expect(FakeSocket.made).toHaveLength(2);
    expect(FakeSocket.made[0]!.closed).toBe(true);
    expect(FakeSocket.made[1]!.url).toBe("ws://example.test/api/phrases/live?since=8");
    // The old one's late words and close change nothing.
    FakeSocket.made[0]!.say(changes(8));
    FakeSocket.made[0]!.onclose?.();
    expect(version).toBe(8);
    expect(open()).toHaveLength(1);
  });

  it("back online, a socket opened before is replaced at once, and one waiting out its backoff stops waiting", () => {
    page.dispatchEvent(new Event("online"));
    expect(FakeSocket.made).toHaveLength(2);
    expect(open()).toEqual([FakeSocket.made[1]]);
    // Dropped several times: the wait grows, up to 30 s.
    for (let i = 0; i < 6; i++) {
      open()[0]!.drop();
      vi.advanceTimersByTime(30_000);
    }
    open()[0]!.drop();
    const before = FakeSocket.made.length;
    page.dispatchEvent(new Event("online"));
    expect(FakeSocket.made).toHaveLength(before + 1);
    expect(open()).toHaveLength(1);
  });

  it("a page shown again after its timers were held back looks at once", () => {
    doc.visibilityState = "hidden";
    vi.setSystemTime(Date.now() + SILENT_MS + 1);
    doc.visibilityState = "visible";
    doc.dispatchEvent(new Event("visibilitychange"));
    expect(FakeSocket.made).toHaveLength(2);
    expect(open()).toEqual([FakeSocket.made[1]]);
  });

  it("says when a socket has stayed open and when none is, once each, and nothing once stopped", () => {
    expect(heard).toEqual([]);
    FakeSocket.made[0]!.opened();
    FakeSocket.made[0]!.say(alive);
    expect(heard).toEqual([]);
    vi.advanceTimersByTime(STEADY_MS);
    expect(heard).toEqual([true]);
    // Closed by the host: none is open while the next one waits out its backoff.
    FakeSocket.made[0]!.drop();
    expect(heard).toEqual([true, false]);
    vi.advanceTimersByTime(30_000);
    FakeSocket.made[1]!.drop();
    expect(heard).toEqual([true, false]);
    vi.advanceTimersByTime(30_000);
    // One the host closes as it opens does not count.
    FakeSocket.made[2]!.opened();
    FakeSocket.made[2]!.drop();
    vi.advanceTimersByTime(30_000);
    expect(heard).toEqual([true, false]);
    FakeSocket.made[3]!.opened();
    vi.advanceTimersByTime(STEADY_MS);
    expect(heard).toEqual([true, false, true]);
    // Silent for too long: the replaced socket is no longer the live one, nor is the new one yet.
    vi.advanceTimersByTime(SILENT_MS - STEADY_MS);
    expect(heard).toEqual([true, false, true, false]);
    FakeSocket.made[3]!.opened();
    vi.advanceTimersByTime(STEADY_MS);
    expect(heard).toEqual([true, false, true, false]);
    FakeSocket.made[4]!.opened();
    vi.advanceTimersByTime(STEADY_MS);
    stop();
    expect(heard).toEqual([true, false, true, false, true]);
  });

  it("opens nothing once stopped", () => {
    stop();
    page.dispatchEvent(new Event("online"));
    vi.advanceTimersByTime(5 * SILENT_MS);
    expect(FakeSocket.made).toHaveLength(1);
    expect(open()).toHaveLength(0);
  });
});
