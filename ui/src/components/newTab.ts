/** Links to other sites open in a new tab, without handing that tab this page. */
export const NEW_TAB = { target: "_blank", rel: "noopener noreferrer" } as const;

/**
 * The id of the hidden note "Opens in a new tab" (in `Layout`) that such links
 * point to with `aria-describedby`: screen readers hear it after the name, and
 * the name stays the visible label.
 */
export const NEW_TAB_NOTE_ID = "new-tab-note";

/** Everything a text link to another site needs. */
export const NEW_TAB_LINK = { ...NEW_TAB, "aria-describedby": NEW_TAB_NOTE_ID } as const;
