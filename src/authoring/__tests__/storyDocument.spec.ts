/**
 * Story documents as the authoring tools check them: the malformed fixtures
 * (tests/fixtures/authoring/malformed-stories.json, also run through a real
 * page by ui-tests/tests/authoring.spec.ts), the real Stories, and the shapes.
 */
import { readFileSync } from 'fs';
import { join } from 'path';
import { MolspaceError } from '../../contract';
import { checkStory, storyboardToMvs, storyIssuesError } from '../storyDocument';

const ROOT = join(__dirname, '../../..');

interface Expected {
  snapshotIndex: number | null;
  path: string;
  message: string;
}
interface Case {
  name: string;
  document: Record<string, unknown>;
  issues?: Expected[];
  error?: { code: string; where: string };
}
const fixtures: { cases: Case[] } = JSON.parse(readFileSync(join(ROOT, 'tests/fixtures/authoring/malformed-stories.json'), 'utf8'));

describe('malformed Stories: every issue, located', () => {
  it('has twenty or more cases', () => {
    expect(fixtures.cases.length).toBeGreaterThanOrEqual(20);
  });

  it.each(fixtures.cases.map(c => [c.name, c] as const))('%s', async (_name, c) => {
    if (c.error) {
      await expect(checkStory({ document: c.document })).rejects.toMatchObject(c.error);
      return;
    }
    const checked = await checkStory({ document: c.document });
    expect(checked.story).toBeNull();
    const got = checked.issues.map(i => ({ snapshotIndex: i.snapshotIndex, path: i.path, message: i.message }));
    expect(got).toHaveLength(c.issues!.length);
    c.issues!.forEach((want, k) => {
      expect(got[k]).toMatchObject({ snapshotIndex: want.snapshotIndex, path: want.path });
      expect(got[k].message).toMatch(new RegExp(want.message));
      expect(checked.issues[k].fix.length).toBeGreaterThan(10);
    });
  });
});

describe('real Stories', () => {
  it.each(['1cbs.mvsj', 'kinase-story.mvsj'])('%s validates', async name => {
    const checked = await checkStory({ mvsj: readFileSync(join(ROOT, 'tests/data', name), 'utf8') });
    expect(checked.issues).toEqual([]);
    expect(checked.story!.snapshots.length).toBeGreaterThan(0);
  });

  it('1h9t.mvsx validates', async () => {
    const checked = await checkStory({ mvsx: new Uint8Array(readFileSync(join(ROOT, 'tests/data/1h9t.mvsx'))) });
    expect(checked.issues).toEqual([]);
    expect(checked.format).toBe('mvsx');
  });
});

describe('storyboards', () => {
  const root = { kind: 'root', children: [{ kind: 'canvas', params: { background_color: 'white' } }] };

  it("become multi-state MVS with the step metadata, a default linger and Mol*'s version", async () => {
    const { mvs, issues } = storyboardToMvs({
      title: 'T',
      steps: [
        { key: 'a', title: 'A', description: 'x', root },
        { key: 'b', title: 'B', description: 'y', root, linger_duration_ms: 100, transition_duration_ms: 50 }
      ]
    });
    expect(issues).toEqual([]);
    const snaps = (mvs as { snapshots: { metadata: Record<string, unknown> }[] }).snapshots;
    expect(snaps.map(s => s.metadata)).toEqual([
      { key: 'a', title: 'A', description: 'x', linger_duration_ms: 4000 },
      { key: 'b', title: 'B', description: 'y', linger_duration_ms: 100, transition_duration_ms: 50 }
    ]);
    expect((mvs as { kind: string; metadata: { version: string; title: string } }).metadata).toMatchObject({
      version: '1',
      title: 'T'
    });
    const checked = await checkStory({ document: { title: 'T', steps: [{ key: 'a', title: 'A', description: 'x', root }] } });
    expect(checked.issues).toEqual([]);
    expect(checked.story!.title).toBe('T');
  });

  it('with issues make one VALIDATION_FAILED listing them all', async () => {
    const checked = await checkStory({
      document: {
        steps: [
          { key: 'a', root: { kind: 'nope' } },
          { key: 'a', root }
        ]
      }
    });
    const err = storyIssuesError(checked.issues, checked.storyboard);
    expect(err.where).toBe('/document/steps/0/root');
    expect(err).toBeInstanceOf(MolspaceError);
    expect(err.code).toBe('VALIDATION_FAILED');
    expect(err.message).toMatch(/^2 issue\(s\) in the Story: step 0 \("a"\) at root: /);
    expect(err.details.issueCount).toBe(2);
  });
});
