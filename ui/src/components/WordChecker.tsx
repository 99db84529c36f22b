import type { ChangeEvent, CompositionEvent, FormEvent } from "react";
import type { Check, CheckStatus } from "../types";
import { MAX_GRAPHEMES } from "../text";

export interface Props {
  /** Where the form goes without JavaScript. */
  action: string;
  placeholder: string;
  check: Check;
  onInput?: (value: string, composing: boolean) => void;
  onSubmit?: (event: FormEvent<HTMLFormElement>) => void;
  /** The "Check" button, for the page without JavaScript; Enter submits without it. */
  submitButton?: boolean;
}

const INPUT_ID = "check-input";
const COUNTER_ID = "check-counter";

/** A plain GET form that the live island also drives keystroke by keystroke. */
export function WordChecker({ action, placeholder, check, onInput, onSubmit, submitButton = true }: Props) {
  const change = (event: ChangeEvent<HTMLInputElement>) => {
    const composing = (event.nativeEvent as InputEvent).isComposing === true;
    onInput?.(event.target.value, composing);
  };
  const compositionEnd = (event: CompositionEvent<HTMLInputElement>) => {
    onInput?.(event.currentTarget.value, false);
  };
  const message = STATUS[check.status];
  return (
    <form method="get" action={action} onSubmit={onSubmit} className="mt-10 max-w-xl">
      <label htmlFor={INPUT_ID} className="font-display text-sm font-bold uppercase tracking-widest text-accent">
        {"Type & Check"}
      </label>
      <div className="mt-3 flex items-center gap-3 rounded-xl border border-white/30 bg-black px-4 focus-within:border-accent focus-within:ring-2 focus-within:ring-accent">
        <input
          id={INPUT_ID}
          name="check"
          type="text"
          value={check.input}
          placeholder={placeholder}
          onChange={change}
          onCompositionEnd={compositionEnd}
          autoComplete="off"
          autoCapitalize="characters"
          spellCheck={false}
          aria-describedby={COUNTER_ID}
          className="min-w-0 flex-1 bg-transparent py-4 font-display text-2xl font-black uppercase text-white placeholder:text-white/50 focus:outline-none"
        />
        {/* Before the counter, so the counter stays put when the button goes. */}
        {submitButton && (
          <button
            type="submit"
            className="shrink-0 rounded-full border border-white/30 px-3 py-1 text-xs uppercase text-white/80 hover:border-accent hover:text-accent"
          >
            Check
          </button>
        )}
        <span id={COUNTER_ID} className="shrink-0 font-mono text-sm text-white/70">
          <span className="sr-only">Characters used: </span>
          {`${check.length}/${MAX_GRAPHEMES}`}
        </span>
      </div>
      <p aria-live="polite" className={`mt-3 min-h-6 font-bold ${message.className}`}>
        {message.text(check.length)}
      </p>
    </form>
  );
}

const STATUS: Record<CheckStatus, { text: (length: number) => string; className: string }> = {
  empty: { text: () => "Type something", className: "text-white/70" },
  available: { text: () => "It is available!", className: "text-white" },
  taken: { text: () => "Already taken", className: "text-danger" },
  too_long: {
    text: (length) => `At most ${MAX_GRAPHEMES} characters — yours has ${length}.`,
    className: "text-danger",
  },
  invalid: {
    text: () => "It has a character a phrase cannot use (invisible, control or unassigned)",
    className: "text-danger",
  },
  unavailable: { text: () => "Cannot check right now: the list is still loading", className: "text-white/70" },
  pending: { text: () => "Checking…", className: "text-white/70" },
};
