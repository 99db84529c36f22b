import { useEffect, useEffectEvent, useRef, useState, type ChangeEvent, type CompositionEvent, type FormEvent, type MouseEvent } from "react";
import type { Check, CheckStatus, Phrase } from "../types";
import { classNames } from "../classNames";
import { lineFit } from "../headline";
import {
  MAX_GRAPHEMES,
  MAX_MARKS,
  MAX_WORD_BYTES,
  fitEdit,
  graphemeCount,
  graphemes,
  invalidReason,
  normalizeWord,
  upperCasesInPlace,
  type InvalidReason,
} from "../text";
import { takeTypedEarly } from "../typedEarly";

export interface Props {
  /** Where the form goes without JavaScript. */
  action: string;
  placeholder: string;
  check: Check;
  /** Where a minted phrase's own page is. */
  phraseHref: (id: string) => string;
  /** The phrases page checking `word`; it works without JavaScript. */
  checkHref: (word: string) => string;
  /** The box's text after each edit: within the limit, unless an IME is still building a character. */
  onInput?: (value: string, composing: boolean) => void;
  /** Checks an alternative in place instead of following its link. */
  onPick?: (word: string) => void;
  onSubmit?: (event: FormEvent<HTMLFormElement>) => void;
  /** The "Check" button, for the page without JavaScript; Enter submits without it. */
  submitButton?: boolean;
  /** An IME is building a character: the text is not asked about, so not said to be checked. */
  composing?: boolean;
}

export const INPUT_ID = "check-input";
const COUNTER_ID = "check-counter";

/** A plain GET form that the live island also drives keystroke by keystroke. */
export function WordChecker({ action, placeholder, check, phraseHref, checkHref, onInput, onPick, onSubmit, submitButton = true, composing = false }: Props) {
  const input = useRef<HTMLInputElement>(null);
  const pick = (word: string) => (event: MouseEvent<HTMLAnchorElement>) => {
    // A click meant for a new tab or window keeps its link.
    if (onPick === undefined || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    onPick(word);
    input.current?.focus();
  };
  // What the box held when an IME began building a character, which is cut only once built.
  const beforeComposing = useRef<string | null>(null);
  // What the last edit left in the box when it did not all fit, and how much was left out:
  // said until the box holds something else.
  const [cut, setCut] = useState<{ value: string; dropped: number; first: string } | null>(null);
  const cutTo = (previous: string, next: string, caret: number) => {
    const fitted = fitEdit(previous, next, caret, MAX_GRAPHEMES);
    // The first left out, where the edit's cut began: it may be a letter written longer (ß).
    const first = graphemes(next.slice(fitted.caret, fitted.caret + next.length - fitted.value.length))[0] ?? "";
    setCut(fitted.dropped > 0 ? { value: fitted.value, dropped: fitted.dropped, first } : null);
    return fitted;
  };
  const fit = (box: HTMLInputElement, previous: string) => {
    const next = box.value;
    const fitted = cutTo(previous, next, box.selectionEnd ?? next.length);
    // Written to the box here, so React finds it holding the new value and leaves the caret be.
    if (fitted.value !== next) {
      box.value = fitted.value;
      box.setSelectionRange(fitted.caret, fitted.caret);
    }
    return fitted.value;
  };
  // What the visitor typed before the page went live is checked once it is, not lost, and
  // cut as an edit would be, saying so.
  const takeEarly = useEffectEvent(() => {
    const early = takeTypedEarly(INPUT_ID);
    if (early !== undefined) onInput?.(cutTo("", early, early.length).value, false);
  });
  useEffect(() => {
    // Without JavaScript the browser keeps the box to a phrase's longest (a long paste
    // sent as it is would make a link too long to serve); live, the box cuts each edit
    // itself and says how much it left out, which the cap would have hidden.
    input.current?.removeAttribute("maxlength");
    // Once, after hydration: the first render had to match the server's markup.
    // eslint-disable-next-line react-hooks/set-state-in-effect
    takeEarly();
  }, []);
  const change = (event: ChangeEvent<HTMLInputElement>) => {
    if ((event.nativeEvent as InputEvent).isComposing === true) {
      beforeComposing.current ??= check.input;
      onInput?.(event.target.value, true);
      return;
    }
    onInput?.(fit(event.target, beforeComposing.current ?? check.input), false);
    beforeComposing.current = null;
  };
  const compositionEnd = (event: CompositionEvent<HTMLInputElement>) => {
    onInput?.(fit(event.currentTarget, beforeComposing.current ?? check.input), false);
    beforeComposing.current = null;
  };
  const message = STATUS[check.status];
  return (
    <form method="get" action={action} onSubmit={onSubmit} className="mt-10 max-w-xl">
      {/* On a phone the box is the phrase's alone (a 20-character one fits at 320 px): the
          button, there without JavaScript, and the counter go up beside the label, out of
          the flow, so nothing moves when the button goes. The label leaves them its end,
          in rem as they are sized, so it wraps before it reaches them in large text. */}
      <label
        htmlFor={INPUT_ID}
        className={classNames(
          "block font-display text-sm font-bold uppercase tracking-widest text-accent sm:pe-0",
          submitButton ? "pe-[8.5rem]" : "pe-12",
        )}
      >
        {"Type & Check"}
      </label>
      <div className="relative mt-3 flex items-center gap-3 rounded-xl border border-white/30 bg-black px-4 focus-within:border-accent focus-within:ring-2 focus-within:ring-accent">
        {/* The box's size container: the phrase shrinks to it as it grows (check-fit). */}
        <div className="@container min-w-0 flex-1">
          <input
            ref={input}
            id={INPUT_ID}
            name="check"
            type="text"
            value={check.input}
            placeholder={placeholder}
            onChange={change}
            onCompositionEnd={compositionEnd}
            maxLength={MAX_WORD_BYTES}
            autoComplete="off"
            autoCapitalize="characters"
            spellCheck={false}
            // Arabic or Hebrew typed reads right to left, its "!" where the list shows it.
            dir="auto"
            aria-describedby={COUNTER_ID}
            data-fit={lineFit(check.input === "" ? placeholder : check.input)}
            className={classNames(
              "check-fit w-full bg-transparent py-4 font-display leading-8 font-black text-white placeholder:text-white/50 placeholder:uppercase focus:outline-hidden",
              upperCasesInPlace(check.input) && "uppercase",
            )}
          />
        </div>
        {/* Before the counter, so the counter stays put when the button goes. */}
        {submitButton && (
          <button
            type="submit"
            className="absolute bottom-full right-14 mb-2 shrink-0 rounded-full border border-white/30 px-3 py-1 text-xs uppercase text-white/80 hover:border-accent hover:text-accent sm:static sm:mb-0"
          >
            Check
          </button>
        )}
        <span id={COUNTER_ID} className="absolute bottom-full right-0 mb-3 shrink-0 font-mono text-sm text-white/70 sm:static sm:mb-0">
          <span className="sr-only">Characters used: </span>
          {`${check.length}/${MAX_GRAPHEMES}`}
        </span>
      </div>
      <p aria-live="polite" className={`mt-3 min-h-6 font-bold ${message.className}`}>
        {/* An IME still building characters: the half-built text is no one's word yet. */}
        {composing ? "" : message.text(check)}
      </p>
      {/* Always there, so what the host adds is announced when it comes. */}
      <div aria-live="polite" className="text-white/80" hidden={composing}>
        {cut !== null && cut.value === check.input && <p className="mt-1">{leftOut(cut.dropped, cut.first)}</p>}
        {check.status === "taken" && check.taker !== null && <Taker taker={check.taker} href={phraseHref(check.taker.id)} />}
        {check.status === "taken" && check.alternatives.length > 0 && (
          <div className="mt-3">
            <p id={ALTERNATIVES_ID}>Free right now:</p>
            <ul aria-labelledby={ALTERNATIVES_ID} className="mt-2 flex flex-wrap gap-2">
              {check.alternatives.map((word) => (
                <li key={word}>
                  <a href={checkHref(word)} onClick={pick(word)} className={ALTERNATIVE_CLASSES}>
                    <bdi>{word}</bdi>
                  </a>
                </li>
              ))}
            </ul>
          </div>
        )}
        {check.status === "available" && check.lookalike !== null && (
          <Lookalike lookalike={check.lookalike} href={phraseHref(check.lookalike.id)} />
        )}
      </div>
    </form>
  );
}

/**
 * What is said of an edit that did not all fit in the box; `first`, the first character
 * left out, is named when it is written longer (ß as SS), which the counter could not show.
 */
export function leftOut(dropped: number, first = ""): string {
  const said = `Only ${MAX_GRAPHEMES} characters fit — ${dropped} more ${dropped === 1 ? "was" : "were"} left out`;
  const written = normalizeWord(first);
  const length = graphemeCount(written);
  return length > 1 ? `${said} (“${first}” is written “${written}”: ${length} characters).` : `${said}.`;
}

const ALTERNATIVES_ID = "check-alternatives";
const LINK_CLASSES = "font-bold text-accent underline underline-offset-4 hover:text-white";
// wrap-anywhere: a flex item's text otherwise keeps its whole width, and 20 of the
// widest letters fill a 320 px phone's column to the pixel.
const ALTERNATIVE_CLASSES =
  "inline-flex min-h-11 max-w-full items-center rounded-full border border-white/40 px-4 font-display text-sm font-black uppercase text-white wrap-anywhere hover:border-accent hover:text-accent";

/** Under "Already taken": who minted it, and its page. Names and words are the minters' own: isolated, never markup. */
function Taker({ taker, href }: { taker: Phrase; href: string }) {
  return (
    <p className="mt-1 break-words">
      {"Minted by "}
      <bdi className="font-bold text-white">{taker.name}</bdi>
      {" — "}
      <a href={href} className={LINK_CLASSES}>
        {"see “"}
        <bdi>{taker.word}</bdi>
        {"”"}
      </a>
    </p>
  );
}

/** Under "It is available!": the minted phrase this one would be mistaken for. */
function Lookalike({ lookalike, href }: { lookalike: Phrase; href: string }) {
  return (
    <p className="mt-1 break-words">
      {"But it reads like "}
      <a href={href} className={LINK_CLASSES}>
        {"“"}
        <bdi>{lookalike.word}</bdi>
        {"”"}
      </a>
      {", minted by "}
      <bdi className="font-bold text-white">{lookalike.name}</bdi>
    </p>
  );
}

const INVALID: Record<InvalidReason, string> = {
  character: "It has a character a phrase cannot use (invisible, control or unassigned)",
  marks: `A character has more than ${MAX_MARKS} accents or marks on it`,
  bytes: `Too long to store: at most ${MAX_WORD_BYTES} bytes, and some emoji take more than 30 each`,
};

const STATUS: Record<CheckStatus, { text: (check: Check) => string; className: string }> = {
  empty: { text: () => "Type something", className: "text-white/70" },
  available: { text: () => "It is available!", className: "text-white" },
  taken: { text: () => "Already taken", className: "text-danger" },
  too_long: {
    text: (check) => `At most ${MAX_GRAPHEMES} characters — yours has ${check.length}.`,
    className: "text-danger",
  },
  invalid: {
    text: (check) => INVALID[invalidReason(check.normalized)],
    className: "text-danger",
  },
  unavailable: { text: () => "Cannot check right now: try again in a moment", className: "text-white/70" },
  pending: { text: () => "Checking…", className: "text-white/70" },
};
