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

/**
 * Watches for stretches in which this process was due to run and did not (a timer fired
 * late without the time having gone into our own work): the machine was frozen or
 * starved, and on a shared runner every process on it stops together, hosts and
 * emulator included. `during(from, to)` is how many ms of that window (Date.now() times)
 * were such stretches; `stop()` ends the watch.
 */
export function watchStalls(tickMs = 20, graceMs = 100) {
  const stalls = [];
  let last = Date.now();
  let cpu = process.cpuUsage();
  const timer = setInterval(() => {
    const now = Date.now();
    const used = process.cpuUsage(cpu);
    const stalled = now - last - tickMs - (used.user + used.system) / 1000;
    if (stalled > graceMs) stalls.push([now - Math.round(stalled), now]);
    last = now;
    cpu = process.cpuUsage();
  }, tickMs);
  timer.unref();
  return {
    during: (from, to) => stalls.reduce((sum, [start, end]) => sum + Math.max(0, Math.min(end, to) - Math.max(start, from)), 0),
    stalls,
    stop: () => clearInterval(timer),
  };
}
