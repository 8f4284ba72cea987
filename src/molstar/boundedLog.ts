/**
 * Mol*'s plugin keeps every log entry it is sent (`PluginContext.log.entries`, an Immutable
 * `List` its log panel would show) for as long as it lives, and a Viewer that runs for hours
 * logs about once per state update: in the 10,000-call soak that list was one of the things in
 * the page heap that grew without a bound (docs/benchmarks.md). molspace shows no log panel, so
 * only the newest {@link LOG_ENTRIES_KEPT} are kept.
 */
import type { PluginContext } from 'molstar/lib/mol-plugin/context';

/** How many of Mol*'s log entries a plugin keeps. */
export const LOG_ENTRIES_KEPT = 50;

/**
 * Keep only the newest `kept` entries of `plugin`'s log. Call after `plugin.init()`: Mol*'s own
 * subscription, made in `init`, appends each entry before this one trims.
 *
 * @returns a function that stops trimming.
 */
export function boundLog(plugin: Pick<PluginContext, 'events' | 'log'>, kept: number = LOG_ENTRIES_KEPT): () => void {
  const sub = plugin.events.log.subscribe(() => {
    if (plugin.log.entries.size > kept) {
      plugin.log.entries = plugin.log.entries.takeLast(kept);
    }
  });
  return () => sub.unsubscribe();
}
