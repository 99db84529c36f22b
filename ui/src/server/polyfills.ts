/**
 * What react-dom/server.browser touches while loading, for engines that have
 * only the ECMAScript builtins (QuickJS-ng under deno_core). It builds its
 * streaming renderer at import time: a MessageChannel for scheduling and a
 * TextEncoder for precomputed chunks. renderToString itself is synchronous,
 * so timers may run on microtasks. Each is installed only if missing.
 */

type Callback = (...args: unknown[]) => void;

const scope = globalThis as Record<string, unknown>;

if (typeof scope.queueMicrotask !== "function") {
  scope.queueMicrotask = (callback: () => void) => {
    Promise.resolve().then(callback);
  };
}
const enqueue = scope.queueMicrotask as (callback: () => void) => void;

if (typeof scope.setTimeout !== "function") {
  const cancelled = new Set<number>();
  let nextId = 1;
  scope.setTimeout = (callback: Callback, _delay?: number, ...args: unknown[]) => {
    const id = nextId++;
    enqueue(() => {
      if (cancelled.delete(id)) return;
      callback(...args);
    });
    return id;
  };
  scope.clearTimeout = (id?: number) => {
    if (typeof id === "number") cancelled.add(id);
  };
}

if (typeof scope.MessageChannel !== "function") {
  class Port {
    onmessage: ((event: { data: unknown }) => void) | null = null;
    other: Port | null = null;

    postMessage(data: unknown): void {
      const target = this.other;
      enqueue(() => target?.onmessage?.({ data }));
    }

    close(): void {
      this.other = null;
    }
  }
  scope.MessageChannel = class {
    readonly port1 = new Port();
    readonly port2 = new Port();

    constructor() {
      this.port1.other = this.port2;
      this.port2.other = this.port1;
    }
  };
}

if (typeof scope.TextEncoder !== "function") {
  scope.TextEncoder = class {
    readonly encoding = "utf-8";

    encode(input = ""): Uint8Array {
      return encodeUtf8(String(input));
    }
  };
}

// React reports render errors through console.error before rethrowing them.
if (typeof scope.console !== "object" || scope.console === null) {
  const ignore = () => {};
  scope.console = { log: ignore, info: ignore, warn: ignore, error: ignore, debug: ignore };
}

function encodeUtf8(text: string): Uint8Array {
  const bytes: number[] = [];
  for (const char of text) {
    let cp = char.codePointAt(0) ?? 0;
    // A lone surrogate is not encodable; WHATWG TextEncoder writes U+FFFD.
    if (cp >= 0xd800 && cp <= 0xdfff) cp = 0xfffd;
    if (cp < 0x80) {
      bytes.push(cp);
    } else if (cp < 0x800) {
      bytes.push(0xc0 | (cp >> 6), 0x80 | (cp & 0x3f));
    } else if (cp < 0x10000) {
      bytes.push(0xe0 | (cp >> 12), 0x80 | ((cp >> 6) & 0x3f), 0x80 | (cp & 0x3f));
    } else {
      bytes.push(
        0xf0 | (cp >> 18),
        0x80 | ((cp >> 12) & 0x3f),
        0x80 | ((cp >> 6) & 0x3f),
        0x80 | (cp & 0x3f),
      );
    }
  }
  return new Uint8Array(bytes);
}
