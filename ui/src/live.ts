/**
 * The live phrase protocol, kept free of sockets and timers so it can be
 * tested as plain data: `parseMessage` checks what the server sent, `apply`
 * folds it into the list, `backoffDelay` spaces out reconnects.
 */
import { isRecord } from "./guards";
import type { Phrase } from "./types";

export interface LiveState {
  version: number;
  /** Sorted by `id` in code-point order, the order the server uses. */
  phrases: readonly Phrase[];
}

export type Change = { op: "upsert"; phrase: Phrase } | { op: "remove"; id: string };

export type LiveMessage =
  | { type: "snapshot"; version: number; phrases: Phrase[] }
  | { type: "changes"; from: number; version: number; changes: Change[] };

/** Returned by `apply` when changes were missed and the socket must start over. */
export const RESYNC = "resync";

export function apply(state: LiveState, message: LiveMessage): LiveState | typeof RESYNC {
  if (message.type === "snapshot") {
    return { version: message.version, phrases: sortById(dedupeById(message.phrases)) };
  }
  if (message.version <= state.version) return state;
  if (message.from !== state.version) return RESYNC;
  let phrases = state.phrases;
  for (const change of message.changes) {
    phrases = change.op === "upsert" ? upsert(phrases, change.phrase) : remove(phrases, change.id);
  }
  return { version: message.version, phrases };
}

/** The message, or null when `text` is not one this client understands. */
export function parseMessage(text: string): LiveMessage | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (!isRecord(value)) return null;
  if (value.type === "snapshot") {
    if (!isVersion(value.version) || !Array.isArray(value.phrases)) return null;
    if (!value.phrases.every(isPhrase)) return null;
    return { type: "snapshot", version: value.version, phrases: value.phrases };
  }
  if (value.type === "changes") {
    if (!isVersion(value.from) || !isVersion(value.version) || !Array.isArray(value.changes)) return null;
    if (!value.changes.every(isChange)) return null;
    return { type: "changes", from: value.from, version: value.version, changes: value.changes };
  }
  return null;
}

export const BACKOFF_START_MS = 500;
export const BACKOFF_CAP_MS = 30_000;

/**
 * Full jitter: a uniform wait up to the capped exponential step, so clients
 * dropped together by a restart do not come back together.
 */
export function backoffDelay(attempt: number, random: () => number = Math.random): number {
  const ceiling = Math.min(BACKOFF_CAP_MS, BACKOFF_START_MS * 2 ** Math.max(0, attempt));
  return Math.floor(random() * ceiling);
}

export function liveUrl(location: { protocol: string; host: string }, since: number): string {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  return `${scheme}://${location.host}/api/phrases/live?since=${since}`;
}

/** Orders strings by Unicode code point, which UTF-16 `<` does not above U+FFFF. */
export function compareCodePoints(a: string, b: string): number {
  const left = a[Symbol.iterator]();
  const right = b[Symbol.iterator]();
  for (;;) {
    const x = left.next();
    const y = right.next();
    if (x.done || y.done) return x.done ? (y.done ? 0 : -1) : 1;
    const difference = (x.value.codePointAt(0) ?? 0) - (y.value.codePointAt(0) ?? 0);
    if (difference !== 0) return difference;
  }
}

function sortById(phrases: Phrase[]): Phrase[] {
  return phrases.sort((a, b) => compareCodePoints(a.id, b.id));
}

function dedupeById(phrases: readonly Phrase[]): Phrase[] {
  const byId = new Map<string, Phrase>();
  for (const phrase of phrases) byId.set(phrase.id, phrase);
  return [...byId.values()];
}

/** Index of `id` if present, else where it would be inserted. */
function search(phrases: readonly Phrase[], id: string): { index: number; found: boolean } {
  let low = 0;
  let high = phrases.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    const order = compareCodePoints(phrases[middle]!.id, id);
    if (order === 0) return { index: middle, found: true };
    if (order < 0) low = middle + 1;
    else high = middle;
  }
  return { index: low, found: false };
}

function upsert(phrases: readonly Phrase[], phrase: Phrase): readonly Phrase[] {
  const { index, found } = search(phrases, phrase.id);
  return [...phrases.slice(0, index), phrase, ...phrases.slice(found ? index + 1 : index)];
}

function remove(phrases: readonly Phrase[], id: string): readonly Phrase[] {
  const { index, found } = search(phrases, id);
  return found ? [...phrases.slice(0, index), ...phrases.slice(index + 1)] : phrases;
}

function isVersion(value: unknown): value is number {
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 0;
}

function isPhrase(value: unknown): value is Phrase {
  return (
    isRecord(value) &&
    typeof value.id === "string" &&
    typeof value.word === "string" &&
    typeof value.name === "string"
  );
}

function isChange(value: unknown): value is Change {
  if (!isRecord(value)) return false;
  if (value.op === "upsert") return isPhrase(value.phrase);
  if (value.op === "remove") return typeof value.id === "string";
  return false;
}
