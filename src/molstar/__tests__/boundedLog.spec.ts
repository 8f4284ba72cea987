/**
 * @jest-environment jsdom
 *
 * Mol*'s plugin log bounded (`../boundedLog.ts`), on a real `PluginContext` after `init()`
 * (no canvas: the log needs none): without the bound every entry stays.
 */
import { PluginContext } from 'molstar/lib/mol-plugin/context';
import { DefaultPluginSpec } from 'molstar/lib/mol-plugin/spec';

import { LOG_ENTRIES_KEPT, boundLog } from '../boundedLog';

async function plugin(): Promise<PluginContext> {
  const p = new PluginContext(DefaultPluginSpec());
  await p.init();
  return p;
}

describe("Mol*'s plugin log", () => {
  it('keeps every entry unbounded (what the bound is for)', async () => {
    const p = await plugin();
    const before = p.log.entries.size;
    for (let i = 0; i < 300; i++) {
      p.log.message(`step ${i}`);
    }
    expect(p.log.entries.size).toBe(before + 300);
    p.dispose();
  });

  it('bounded, keeps the newest entries in order', async () => {
    const p = await plugin();
    const stop = boundLog(p);
    for (let i = 0; i < 3 * LOG_ENTRIES_KEPT; i++) {
      p.log.message(`step ${i}`);
    }
    expect(p.log.entries.size).toBe(LOG_ENTRIES_KEPT);
    expect(p.log.entries.first()?.message).toBe(`step ${2 * LOG_ENTRIES_KEPT}`);
    expect(p.log.entries.last()?.message).toBe(`step ${3 * LOG_ENTRIES_KEPT - 1}`);
    p.log.error('an error');
    expect(p.log.entries.last()?.type).toBe('error');
    stop();
    p.log.message('after');
    expect(p.log.entries.size).toBe(LOG_ENTRIES_KEPT + 1);
    p.dispose();
  });
});
