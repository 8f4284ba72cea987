/**
 * Read tools answer within the 8 KiB read budget and page the rest; long
 * text is cut with a marker that counts what was cut (src/contract/budget.ts).
 */
import { LIMITS, type SnapshotMeta } from '..';
import { WidgetRegistry } from '../../dispatcher/registry';
import { MemoryStory } from '../../__tests__/memoryStory';
import { cutText, jsonBytes, withinBudget } from '../budget';
import { parseStory } from '../../molstar/storySource';
import { expectFailure } from '../../__tests__/expectFailure';
import { pageDispatcher } from '../../tools';

class LongTitledStory extends MemoryStory {
  state() {
    return { ...super.state(), title: 'T'.repeat(5000) };
  }
}

const longMetas = (n: number): SnapshotMeta[] =>
  Array.from({ length: n }, (_, index) => ({
    index,
    key: `k${index}`,
    title: `Step ${index}`,
    description: 'd'.repeat(LIMITS.descriptionChars),
    linger_duration_ms: 1000,
    transition_duration_ms: null
  }));

describe('cutText and withinBudget', () => {
  it('cuts to the limit with a marker that counts the cut characters', () => {
    const cut = cutText('a'.repeat(1000), 100);
    expect(cut.length).toBeLessThanOrEqual(100);
    const n = Number(/\[cut (\d+) characters\]$/.exec(cut)?.[1]);
    expect(cut.indexOf(' … ') + n).toBe(1000);
    expect(cutText('short', 100)).toBe('short');
  });

  it('never leaves half of a character outside the BMP (a lone surrogate is not valid UTF-8)', () => {
    // Every cut point: the kept part ends before or after a whole 🧬 (two UTF-16 units), never inside.
    for (let max = 30; max < 60; max++) {
      const cut = cutText('🧬'.repeat(100), max);
      expect(cut.length).toBeLessThanOrEqual(max);
      // A lone surrogate comes back from UTF-8 as U+FFFD.
      expect(Buffer.from(cut, 'utf8').toString('utf8')).toBe(cut);
    }
  });

  it('takes the longest prefix that fits, and at least one item', () => {
    const items = Array.from({ length: 10 }, () => 'x'.repeat(100));
    expect(withinBudget(items, page => page, 350)).toHaveLength(3);
    expect(withinBudget(['y'.repeat(1000)], page => page, 10)).toHaveLength(1);
    expect(withinBudget([], page => page, 10)).toHaveLength(0);
  });
});

describe('read tools within the budget', () => {
  it('observe pages 60 long-titled widgets within 8 KiB a call and lists each once', async () => {
    const registry = new WidgetRegistry();
    for (let i = 0; i < 60; i++) {
      registry.register(new LongTitledStory(`m${i}`, longMetas(2)));
    }
    const dispatcher = pageDispatcher(registry);
    const seen: string[] = [];
    let cursor: string | undefined;
    let calls = 0;
    do {
      const r = await dispatcher.execute('observe', cursor === undefined ? {} : { cursor }, { source: 'agent' });
      const out = r.structuredContent as { widgets: { id: string; title: string }[]; nextCursor: string | null };
      expect(jsonBytes(out)).toBeLessThanOrEqual(LIMITS.observeOutputBytes);
      expect(out.widgets.length).toBeGreaterThan(0);
      for (const w of out.widgets) {
        expect(w.title).toMatch(/\[cut \d+ characters\]$/);
        seen.push(w.id);
      }
      cursor = out.nextCursor ?? undefined;
      calls += 1;
    } while (cursor !== undefined && calls < 100);
    expect(seen).toEqual(Array.from({ length: 60 }, (_, i) => `m${i}`));
    expect(calls).toBeGreaterThan(1);
  });

  it('story_observe pages snapshots with long descriptions within 8 KiB a call', async () => {
    const registry = new WidgetRegistry();
    registry.register(new MemoryStory('s', longMetas(30)));
    const dispatcher = pageDispatcher(registry);
    const keys: string[] = [];
    let offset: number | null = 0;
    while (offset !== null) {
      const r = await dispatcher.execute('story_observe', { offset, limit: 50 }, { source: 'agent' });
      const out = r.structuredContent as { snapshots: SnapshotMeta[]; nextOffset: number | null };
      expect(jsonBytes(out)).toBeLessThanOrEqual(LIMITS.observeOutputBytes);
      keys.push(...out.snapshots.map(s => s.key));
      offset = out.nextOffset;
    }
    expect(keys).toEqual(Array.from({ length: 30 }, (_, i) => `k${i}`));
  });

  it('a Story with many issues lists 50 of them, says how many there are, and cuts long messages', async () => {
    const snapshots = Array.from({ length: 120 }, (_, i) => ({
      root: { kind: 'root', children: [] },
      metadata: { key: 'same', title: 't', linger_duration_ms: -1, description: '' },
      i
    }));
    const e = await expectFailure(parseStory({ mvsj: JSON.stringify({ kind: 'multiple', metadata: { version: '1' }, snapshots }) }));
    expect(e.code).toBe('VALIDATION_FAILED');
    const details = e.details as { issues: unknown[]; count: number; cut: number };
    expect(details.issues).toHaveLength(50);
    expect(details.count).toBeGreaterThan(120);
    expect(details.cut).toBe(details.count - 50);
    expect(e.message).toContain(`${details.count} issue(s)`);
  });
});
