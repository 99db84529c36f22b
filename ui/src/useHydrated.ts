import { useSyncExternalStore } from "react";

const noSubscription = () => () => {};

/**
 * False on the server and while hydrating (so the markup matches what the
 * server sent), true from the render after: for what only the no-script page
 * needs, such as a form's submit button.
 */
export function useHydrated(): boolean {
  return useSyncExternalStore(
    noSubscription,
    () => true,
    () => false,
  );
}
