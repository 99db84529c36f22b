// Margins for timed assertions, from what this machine needs in the same run: a fixed
// margin that holds here fails on a slower CI runner and proves little on a faster one.

/** The median time `run` takes over `times` runs, in ms. */
export async function medianMs(run, times = 5) {
  const took = [];
  for (let i = 0; i < times; i++) {
    const started = performance.now();
    await run();
    took.push(performance.now() - started);
  }
  return took.sort((a, b) => a - b)[Math.floor(times / 2)];
}

/** `factor` times the baseline, but never below `floorMs` (timers and ticks have a grain). */
export const margin = (baselineMs, factor, floorMs) => Math.round(Math.max(floorMs, factor * baselineMs));
