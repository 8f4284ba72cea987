/**
 * Story validation issues: each located (snapshot, key, node path) with its
 * fix, gathered into one bounded `VALIDATION_FAILED` error.
 */
import { MolspaceError } from '../contract/errors';
import { cutText } from '../contract/budget';

/** One validation issue, as listed in `details.issues` of a `VALIDATION_FAILED` error. */
export interface StoryIssue {
  /** 0-based snapshot index, or `null` for a Story-wide issue. */
  snapshotIndex: number | null;
  /** Snapshot key (after filling missing keys), or `null`. */
  key: string | null;
  /** Node path such as `root/children/0/params/url`, or `metadata/...`. */
  path: string;
  message: string;
  /** What would fix it. */
  fix: string;
}

const FIX_GENERIC = 'Fix the listed issues in the Story (see details.issues) and load it again.';

/** One issue with its fix. */
export function located(snapshotIndex: number | null, key: string | null, path: string, message: string): StoryIssue {
  return { snapshotIndex, key, path, message, fix: fixFor(message) };
}

/** Issues one VALIDATION_FAILED error lists (`details.count` says how many there are). */
const LISTED_ISSUES = 50;
/** Characters of one issue message. */
const ISSUE_CHARS = 300;

export function validationError(all: StoryIssue[]): MolspaceError {
  const issues = all.slice(0, LISTED_ISSUES).map(i => ({ ...i, message: cutText(i.message, ISSUE_CHARS) }));
  const first = issues[0];
  const label =
    first.snapshotIndex === null
      ? ''
      : `snapshot ${first.snapshotIndex}${first.key ? ` ("${first.key}")` : ''}${first.path ? ` at ${first.path}` : ''}: `;
  const where =
    first.snapshotIndex === null
      ? `/${first.path.replace(/^\/+/, '')}`
      : `/snapshots/${first.snapshotIndex}${first.path ? '/' + first.path : ''}`;
  return new MolspaceError(
    'VALIDATION_FAILED',
    `${all.length} issue(s) in the Story: ${label}${first.message}`,
    where,
    first.fix,
    all.length > issues.length ? { issues, count: all.length, cut: all.length - issues.length } : { issues, count: all.length }
  );
}

function fixFor(m: string): string {
  if (/Relative URL/.test(m)) {
    return 'Use an https URL, or package the file into an .mvsx archive next to index.mvsj.';
  }
  if (/leaves the archive/.test(m)) {
    return 'Use a path inside the archive, relative to index.mvsj, without "..".';
  }
  if (/not in the MVSX archive/.test(m)) {
    return 'Add the file to the .mvsx archive at that path, or correct the URL.';
  }
  if (/file: URLs|filesystem paths|Only http/.test(m)) {
    return 'Reference structures by https URL, or package the file into an .mvsx archive and use a relative path.';
  }
  if (/Duplicate snapshot key/.test(m)) {
    return 'Give every snapshot a unique metadata.key.';
  }
  if (/duration_ms/.test(m)) {
    return 'Set metadata.linger_duration_ms (and transition_duration_ms if used) to a number of milliseconds ≥ 0.';
  }
  if (/Unknown node kind/.test(m)) {
    return 'Use a node kind of the MVS tree schema (story_schema lists them).';
  }
  if (/cannot appear as a child/.test(m)) {
    return 'Move the node under one of its allowed parents (story_schema with `node` lists them).';
  }
  if (/Invalid parameters/.test(m)) {
    return 'Give the node the params its kind takes (story_schema with `node` lists type, required and default).';
  }
  if (/key must be a non-empty string/.test(m)) {
    return 'Give the snapshot a non-empty string metadata.key.';
  }
  if (/no "root" node|"root"/.test(m)) {
    return 'Give every snapshot a "root" node: {"kind": "root", "children": [...]}.';
  }
  return FIX_GENERIC;
}

/**
 * The issues of a `VALIDATION_FAILED` error's `details.issues` as one line
 * each ("snapshot 2 ("intro") root/children/0: message"), for an error panel;
 * [] when the details hold none. Fields that are not of {@link StoryIssue}'s
 * types are left out of the line.
 */
export function issueLines(details: Record<string, unknown>): string[] {
  const issues = details?.issues;
  if (!Array.isArray(issues)) {
    return [];
  }
  const lines: string[] = [];
  for (const i of issues) {
    if (typeof i !== 'object' || i === null) {
      continue;
    }
    const field = (name: string): unknown => (name in i ? Reflect.get(i, name) : undefined);
    const index = field('snapshotIndex');
    const key = field('key');
    const path = field('path');
    const message = field('message');
    const at = typeof index === 'number' ? `snapshot ${index}${typeof key === 'string' && key ? ` ("${key}")` : ''} ` : '';
    lines.push(`${at}${typeof path === 'string' && path ? path + ': ' : ''}${typeof message === 'string' ? message : String(message)}`);
  }
  return lines;
}
