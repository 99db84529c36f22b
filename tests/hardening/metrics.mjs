// Reads the host's /metrics the way an operator's scraper does.
import { poll } from '../support/poll.mjs';

/** Every sample of the Prometheus text at `url`/metrics, by its name and labels as written. */
export async function scrape(url) {
  const response = await fetch(`${url}/metrics`);
  const text = await response.text();
  const samples = new Map();
  for (const line of text.split('\n')) {
    const match = /^([a-z_]+(?:\{[^}]*\})?) (\S+)$/.exec(line);
    if (match) samples.set(match[1], Number(match[2]));
  }
  return { status: response.status, type: response.headers.get('content-type'), text, samples };
}

/** One sample's value (name with its labels, as written). */
export async function metric(url, name) {
  return (await scrape(url)).samples.get(name);
}

/** Polls `name` until `predicate(value)` holds. */
export function waitFor(url, name, predicate, ms) {
  return poll(() => metric(url, name), predicate, ms, name);
}
