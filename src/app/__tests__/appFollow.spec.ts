/**
 * The App following a docked widget (`../appFollow.ts`): it reads `{target}` through the host
 * every period, draws only a moved revision, ends at a widget that is gone, waits longer after a
 * transient failure and reads nothing while hidden. Jest's fake timers stand for the period.
 */
import { errorResultText, MolspaceError, type LocatedError } from '../../contract/errors';
import { LIMITS } from '../../contract/limits';
import { AppFollower, type CallTool } from '../appFollow';
import { dockedOf, errorOfResult } from '../appResult';

type Result = Awaited<ReturnType<CallTool>>;

const ok = (kind: 'viewer' | 'story', revision: number, extra: Record<string, unknown> = {}): Result =>
  ({ content: [{ type: 'text', text: 'ok' }], structuredContent: { [kind]: { target: 'w1', revision, ...extra } } }) as Result;

const failure = (code: LocatedError['code']): Result =>
  ({
    isError: true,
    content: [{ type: 'text', text: errorResultText(new MolspaceError(code, `${code} happened.`, 'w1', 'Do this.', {}).toJSON()) }]
  }) as Result;

/** Run the pending timer and the promises it starts. */
async function period(): Promise<void> {
  await jest.advanceTimersToNextTimerAsync();
}

describe('AppFollower', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  function follow(answers: Array<Result | Error>, kind: 'viewer' | 'story' = 'viewer', hidden = () => false) {
    const calls: Array<[string, Record<string, unknown>]> = [];
    const changed: Array<Record<string, unknown>> = [];
    const lost: Array<[string, boolean]> = [];
    const call: CallTool = async (name, args) => {
      calls.push([name, args]);
      const next = answers.shift() ?? ok(kind, 0);
      if (next instanceof Error) {
        throw next;
      }
      return next;
    };
    const follower = new AppFollower({
      call,
      widget: { kind, target: 'w1', revision: 0 },
      changed: async s => void changed.push(s),
      lost: (e, ended) => void lost.push([e.code, ended]),
      hidden
    });
    return { follower, calls, changed, lost };
  }

  it("reads the docked widget's own observe tool with only its target, and draws only a moved revision", async () => {
    const { calls, changed } = follow([ok('viewer', 0), ok('viewer', 2), ok('viewer', 2), ok('viewer', 3)]);
    for (let i = 0; i < 4; i++) {
      await period();
    }
    expect(calls).toEqual(Array(4).fill(['viewer_observe', { target: 'w1' }]));
    expect(changed.map(s => (s.viewer as { revision: number }).revision)).toEqual([2, 3]);
  });

  it('reads story_observe for a Story', async () => {
    const { calls, changed } = follow([ok('story', 1, { index: 1 })], 'story');
    await period();
    expect(calls[0]).toEqual(['story_observe', { target: 'w1' }]);
    expect(changed).toHaveLength(1);
  });

  it('a revision the App itself caused (seen) is not drawn again', async () => {
    const { follower, changed } = follow([ok('viewer', 5)]);
    follower.seen(5);
    await period();
    expect(changed).toEqual([]);
  });

  it.each(['NOT_FOUND', 'STALE_TARGET'] as const)('%s ends the following, told once', async code => {
    const { follower, calls, lost } = follow([failure(code), ok('viewer', 9)]);
    await period();
    await period();
    expect(lost).toEqual([[code, true]]);
    expect(follower.following).toBe(false);
    expect(calls).toHaveLength(1);
  });

  it('a transient failure is told, waits longer, and the following goes on', async () => {
    const { follower, calls, changed, lost } = follow([failure('NO_PAGE'), failure('TIMEOUT'), ok('viewer', 4)]);
    await period();
    expect(lost).toEqual([['NO_PAGE', false]]);
    // After one failure the next read waits one period; after two, two periods.
    await period();
    expect(calls).toHaveLength(2);
    jest.advanceTimersByTime(LIMITS.appFollowMs * 2 - 1);
    expect(calls).toHaveLength(2);
    await period();
    expect(calls).toHaveLength(3);
    expect(changed).toHaveLength(1);
    expect(follower.following).toBe(true);
  });

  it("a host that forwards no tool calls ends it quietly; the transport's other errors are located and go on", async () => {
    const quiet = follow([Object.assign(new Error('Method not found'), { code: -32601 })]);
    await period();
    expect(quiet.follower.following).toBe(false);
    expect(quiet.lost).toEqual([]);
    const loud = follow([new Error('socket closed')]);
    await period();
    expect(loud.lost).toEqual([['INTERNAL', false]]);
    expect(loud.follower.following).toBe(true);
    loud.follower.stop();
  });

  it('reads nothing while the App is out of sight', async () => {
    let hidden = true;
    const { calls } = follow([], 'viewer', () => hidden);
    await period();
    await period();
    expect(calls).toEqual([]);
    hidden = false;
    await period();
    expect(calls).toHaveLength(1);
  });

  it('stopped during a read, it draws nothing of that read', async () => {
    let release: (r: Result) => void = () => undefined;
    const changed: unknown[] = [];
    const follower = new AppFollower({
      call: () => new Promise<Result>(r => (release = r)),
      widget: { kind: 'viewer', target: 'w1', revision: 0 },
      changed: async s => void changed.push(s),
      lost: () => undefined,
      hidden: () => false
    });
    await period();
    follower.stop();
    release(ok('viewer', 7));
    await Promise.resolve();
    await Promise.resolve();
    expect(changed).toEqual([]);
    expect(jest.getTimerCount()).toBe(0);
  });
});

describe('appResult', () => {
  it('reads the located error of an error result, and null for anything else', () => {
    expect(errorOfResult(failure('REVISION_CONFLICT'))).toMatchObject({ code: 'REVISION_CONFLICT', where: 'w1', fix: 'Do this.' });
    expect(errorOfResult(ok('viewer', 1))).toBeNull();
    expect(errorOfResult({ isError: true, content: [{ type: 'text', text: 'CONFLICT: no JSON' }] } as Result)).toBeNull();
    expect(errorOfResult({ isError: true, content: [{ type: 'text', text: 'x\n{"code":"NOPE"}' }] } as Result)).toBeNull();
  });

  it('names the docked Story or Viewer of a result, with its revision', () => {
    expect(dockedOf(ok('story', 3))).toEqual({ kind: 'story', target: 'w1', revision: 3 });
    expect(dockedOf(ok('viewer', 0))).toEqual({ kind: 'viewer', target: 'w1', revision: 0 });
    expect(dockedOf({ content: [], structuredContent: { app: { title: 'x' } } } as unknown as Result)).toBeNull();
    expect(dockedOf({ content: [], structuredContent: { viewer: { target: '', revision: 1 } } } as unknown as Result)).toBeNull();
  });
});
