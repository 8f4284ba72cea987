import { ActivityLog, ARGS_SUMMARY_CHARS, summarizeArgs } from '../activityLog';
import type { DispatchRecord } from '../../dispatcher/dispatcher';

function record(over: Partial<DispatchRecord> = {}): DispatchRecord {
  return {
    tool: 'story_control',
    source: 'agent',
    client: 'claude-code',
    target: 'w1',
    args: { target: 'w1', action: 'next' },
    ok: true,
    revision: 4,
    errorCode: null,
    summary: 'next: step 2 of 3',
    startedAt: Date.UTC(2026, 10, 30, 12, 0, 0),
    durationMs: 12.6,
    answeredBy: 'page',
    ...over
  };
}

describe('ActivityLog', () => {
  it('keeps entries newest first with who, outcome and a plain argument summary', () => {
    const log = new ActivityLog();
    log.add(record());
    log.add(record({ source: 'kernel', client: null, ok: false, errorCode: 'REVISION_CONFLICT', revision: 4 }));
    const [newest, oldest] = log.entries();
    expect(newest).toMatchObject({ seq: 2, who: 'kernel', outcome: 'REVISION_CONFLICT', ok: false });
    expect(oldest).toMatchObject({
      seq: 1,
      who: 'agent (claude-code)',
      tool: 'story_control',
      target: 'w1',
      args: 'action="next"',
      outcome: 'ok (revision 4)',
      at: '2026-11-30T12:00:00.000Z',
      durationMs: 13
    });
  });

  it('orders entries by start time: a read the gateway reports later lands where it began', () => {
    const log = new ActivityLog();
    const t = Date.UTC(2026, 10, 30, 12, 0, 0);
    log.add(record({ startedAt: t, summary: 'first' }));
    log.add(record({ startedAt: t + 200, summary: 'third' }));
    log.add(record({ startedAt: t + 100, summary: 'second (mirror)', answeredBy: 'mirror' }));
    expect(log.entries().map(e => e.summary)).toEqual(['third', 'second (mirror)', 'first']);
    expect(log.entries()[1].answeredBy).toBe('mirror');
  });

  it('is bounded, dropping the oldest', () => {
    const log = new ActivityLog(3);
    for (let i = 0; i < 5; i++) {
      log.add(record({ summary: `call ${i}` }));
    }
    expect(log.size).toBe(3);
    expect(log.entries().map(e => e.summary)).toEqual(['call 4', 'call 3', 'call 2']);
  });

  it('filters by source and by widget', () => {
    const log = new ActivityLog();
    log.add(record({ source: 'ui', client: null }));
    log.add(record({ target: 'w2', args: { target: 'w2' } }));
    log.add(record({ source: 'kernel', client: null }));
    expect(log.entries({ source: 'ui', target: null }).map(e => e.who)).toEqual(['ui']);
    expect(log.entries({ source: null, target: 'w2' })).toHaveLength(1);
    expect(log.entries({ source: 'kernel', target: 'w2' })).toHaveLength(0);
  });

  it('summarizes hostile or long arguments as bounded text', () => {
    expect(summarizeArgs({ key: '<img src=x onerror=alert(1)>' })).toBe('key="<img src=x onerror=alert(1)>"');
    const long = summarizeArgs({ key: 'x'.repeat(500) });
    expect(long.length).toBe(ARGS_SUMMARY_CHARS);
    expect(long.endsWith('…')).toBe(true);
    expect(summarizeArgs(null)).toBe('');
    expect(summarizeArgs([1, 2])).toBe('');
  });

  it('emits each entry as it is added', () => {
    const log = new ActivityLog();
    const seen: number[] = [];
    log.changed.connect((_, e) => seen.push(e.seq));
    log.add(record());
    log.add(record());
    expect(seen).toEqual([1, 2]);
  });
});
