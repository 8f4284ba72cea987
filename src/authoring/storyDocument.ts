/**
 * A Story document as the authoring tools take it (docs/architecture.md,
 * "Story authoring"): the compact storyboard `{title, steps: [{key, title,
 * description, root}]}` or standard multi-state MVS. Checking reuses
 * `parseStory` (`src/molstar/storySource.ts`: Mol*'s MVS validation plus
 * molspace's checks) and adds the storyboard's own shape checks; every issue
 * is returned at once, located.
 */
import { MVSData } from 'molstar/lib/extensions/mvs/mvs-data';

import { MolspaceError } from '../contract/errors';
import { LIMITS } from '../contract/limits';
import {
  defaultResourcePolicy,
  refusedResources,
  RESOURCE_HOSTS_SETTING,
  type RefusedResource,
  type ResourcePolicy
} from '../resources/resourcePolicy';
import { parseStory, type ParsedStory, type StoryIssue } from '../molstar/storySource';

/** The fields of one storyboard step; the metadata ones map to MVS snapshot `metadata`. */
const STEP_METADATA = ['key', 'title', 'description', 'description_format', 'linger_duration_ms', 'transition_duration_ms'];
const STEP_FIELDS = new Set([...STEP_METADATA, 'root', 'animation']);
const STORYBOARD_FIELDS = new Set(['title', 'description', 'description_format', 'steps']);
/** Linger of a storyboard step that gives none, ms. */
export const DEFAULT_LINGER_MS = 4000;

/** The outcome of checking a document: the parsed Story, or every issue. */
export interface CheckedStory {
  format: 'mvsj' | 'mvsx';
  story: ParsedStory | null;
  issues: StoryIssue[];
  /** The MVS JSON that was checked (storyboards converted). */
  mvs: Record<string, unknown>;
  /** Whether the document was a storyboard (issue paths then name step fields). */
  storyboard: boolean;
  /** How many issues there are (`issues` may list fewer: parseStory bounds its list). */
  issueCount: number;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function issue(snapshotIndex: number | null, key: string | null, path: string, message: string, fix: string): StoryIssue {
  return { snapshotIndex, key, path, message, fix };
}

/** True when `doc` is a storyboard (has `steps`) rather than MVS. */
export function isStoryboard(doc: Record<string, unknown>): boolean {
  return 'steps' in doc && !('snapshots' in doc) && !('root' in doc);
}

/**
 * Convert a storyboard to multi-state MVS, listing the problems of its shape
 * (unknown fields, steps that are not objects). Metadata of each step is copied
 * as is, so `parseStory` checks it; a missing linger is {@link DEFAULT_LINGER_MS}.
 */
export function storyboardToMvs(doc: Record<string, unknown>): { mvs: Record<string, unknown>; issues: StoryIssue[] } {
  const issues: StoryIssue[] = [];
  for (const field of Object.keys(doc)) {
    if (!STORYBOARD_FIELDS.has(field)) {
      issues.push(issue(null, null, field, `Unknown storyboard field "${field}".`, `Use only ${[...STORYBOARD_FIELDS].join(', ')}.`));
    }
  }
  if (doc.title !== undefined && typeof doc.title !== 'string') {
    issues.push(issue(null, null, 'title', 'The storyboard title must be a string.', 'Give "title" as text.'));
  }
  const steps = Array.isArray(doc.steps) ? doc.steps : [];
  if (!Array.isArray(doc.steps)) {
    issues.push(issue(null, null, 'steps', '"steps" must be an array of steps.', 'Give "steps": [{key, title, description, root}, ...].'));
  }
  const snapshots = steps.map((step, i) => {
    if (!isObject(step)) {
      issues.push(issue(i, null, '', 'A step must be an object {key, title, description, root}.', 'Replace the step with an object.'));
      return { root: { kind: 'root' }, metadata: { key: `step-${i}`, linger_duration_ms: DEFAULT_LINGER_MS } };
    }
    const key = typeof step.key === 'string' ? step.key : null;
    for (const field of Object.keys(step)) {
      if (!STEP_FIELDS.has(field)) {
        issues.push(issue(i, key, field, `Unknown step field "${field}".`, `Use only ${[...STEP_FIELDS].join(', ')}.`));
      }
    }
    if (step.key === undefined) {
      issues.push(issue(i, null, 'key', 'The step has no "key".', 'Give every step a unique "key", e.g. "overview".'));
    }
    const metadata: Record<string, unknown> = { linger_duration_ms: DEFAULT_LINGER_MS };
    for (const f of STEP_METADATA) {
      if (step[f] !== undefined) {
        metadata[f] = step[f];
      }
    }
    const snap: Record<string, unknown> = { root: step.root, metadata };
    if (step.animation !== undefined) {
      snap.animation = step.animation;
    }
    return snap;
  });
  const mvs = MVSData.createMultistate(snapshots as never, {
    title: typeof doc.title === 'string' ? doc.title : undefined,
    description: typeof doc.description === 'string' ? doc.description : undefined
  }) as unknown as Record<string, unknown>;
  return { mvs, issues };
}

/** Storyboard issues name step fields (`key`), not MVS snapshot metadata paths (`metadata/key`). */
function toStepPath(path: string): string {
  return path.startsWith('metadata/') ? path.slice('metadata/'.length) : path;
}

/**
 * Check a document (storyboard or MVS) and, for `.mvsx`, its archive. A
 * document with `archive` (entry name → bytes) is checked as the `.mvsx` it
 * makes; the checked archive is `story.mvsx`.
 *
 * @returns every issue, each located (snapshot index, key, path, message, fix);
 *   `story` when there are none.
 * @throws MolspaceError `UNSUPPORTED_FORMAT` (not MVS), `TOO_LARGE` (size, snapshot count).
 */
export async function checkStory(
  src: { document: Record<string, unknown>; archive?: Record<string, Uint8Array> } | { mvsx: Uint8Array } | { mvsj: string },
  policy: ResourcePolicy = defaultResourcePolicy()
): Promise<CheckedStory> {
  let pre: StoryIssue[] = [];
  let storyboard = false;
  let input: { mvsj?: string; mvsx?: Uint8Array };
  let mvs: Record<string, unknown> = {};
  if ('document' in src) {
    storyboard = isStoryboard(src.document);
    if (storyboard) {
      const converted = storyboardToMvs(src.document);
      pre = converted.issues;
      mvs = converted.mvs;
    } else {
      mvs = src.document;
    }
    if (src.archive) {
      // Checked as the archive it will be written as (zipped by Mol*'s writer, read by Mol*'s reader).
      const { zipStory } = await import('./storyArchive');
      input = { mvsx: await zipStory(mvs, src.archive) };
    } else {
      input = { mvsj: JSON.stringify(mvs) };
    }
  } else {
    input = src;
  }
  const format = input.mvsx ? 'mvsx' : 'mvsj';
  let story: ParsedStory | null = null;
  let issues: StoryIssue[] = [];
  let count = 0;
  let refused: RefusedResource[] = [];
  try {
    story = await parseStory(input, policy);
  } catch (e) {
    if (e instanceof MolspaceError && e.code === 'FORBIDDEN' && Array.isArray(e.details.refused)) {
      refused = e.details.refused as RefusedResource[];
    } else if (e instanceof MolspaceError && e.code === 'VALIDATION_FAILED') {
      issues = (e.details as { issues: StoryIssue[] }).issues;
      count = typeof e.details.count === 'number' ? e.details.count : issues.length;
      // parseStory checks hosts only once the Story is valid: list the refusals with the rest.
      if ('document' in src && Array.isArray(mvs.snapshots)) {
        refused = refusedResources(mvs.snapshots as never, policy);
      }
    } else {
      throw e;
    }
  }
  const hostIssues: StoryIssue[] = refused.map(r => ({
    snapshotIndex: r.snapshotIndex,
    key: r.key,
    path: r.path,
    message: `May not fetch ${r.url.length > 200 ? r.url.slice(0, 200) + '…' : r.url}: ${r.reason}.`,
    fix: `Use an https URL on an allowed host (${RESOURCE_HOSTS_SETTING}), a data: URL, or an .mvsx archive.`
  }));
  // A URL storySource already refuses (file:, absolute path) is listed once.
  const added = hostIssues.filter(h => !issues.some(i => i.snapshotIndex === h.snapshotIndex && i.path === h.path));
  issues = [...issues, ...added];
  count = Math.max(count, issues.length - added.length) + added.length;
  if (refused.length > 0) {
    story = null;
  }
  if (storyboard) {
    issues = issues.map(i => ({ ...i, path: toStepPath(i.path) }));
  }
  const all = [...pre, ...issues];
  return {
    format,
    story: all.length === 0 ? story : null,
    issues: all,
    mvs: story ? (story.data as never) : mvs,
    storyboard,
    issueCount: pre.length + count
  };
}

/**
 * The one error of a Story with issues: `VALIDATION_FAILED` listing them all
 * (bounded), `where` pointing into the `document` argument at the first one.
 */
export function storyIssuesError(issues: StoryIssue[], storyboard: boolean, issueCount?: number): MolspaceError {
  const first = issues[0];
  const inStep = first.snapshotIndex === null ? '' : `/${storyboard ? 'steps' : 'snapshots'}/${first.snapshotIndex}`;
  const where = `/document${inStep}${first.path ? '/' + first.path : ''}`;
  const at = first.snapshotIndex === null ? '' : `step ${first.snapshotIndex}${first.key ? ` ("${first.key}")` : ''} `;
  return new MolspaceError(
    'VALIDATION_FAILED',
    `${issues.length} issue(s) in the Story: ${at}${first.path ? `at ${first.path}: ` : ''}${first.message}`,
    where,
    `${first.fix} Every issue is in details.issues; story_validate lists them too.`,
    { issues: issues.slice(0, LIMITS.authoringIssuesListed), issueCount: Math.max(issueCount ?? issues.length, issues.length) }
  );
}

/** The bounded step list of a checked Story. */
export function stepsOf(story: ParsedStory): { index: number; key: string; title: string }[] {
  return story.snapshots.slice(0, LIMITS.authoringStepsListed).map(s => ({ index: s.index, key: s.key, title: s.title }));
}
