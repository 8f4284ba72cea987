/**
 * Parse and validate a Story (docs/architecture.md).
 *
 * A Story is standard multi-state MolViewSpec (MVS). Input is MVSJ text or an
 * MVSX archive (a zip holding `index.mvsj` plus the files it references).
 * Validation runs the bundled Mol* MVS schema
 * (`MVSData.validationIssues(data, {noExtra: true})`) and adds what Mol* does
 * not check: snapshot metadata (keys, durations, text), bounded counts and
 * sizes, and resources (`url` / `uri` params, the parameters Mol* itself
 * resolves in `resolveUris`). Every issue found is reported in one
 * `VALIDATION_FAILED` error.
 */
import { MVSData } from 'molstar/lib/extensions/mvs/mvs-data';
import type { MVSData_States, Snapshot } from 'molstar/lib/extensions/mvs/mvs-data';
import { treeValidationIssues } from 'molstar/lib/extensions/mvs/tree/generic/tree-validation';
import { MVSTreeSchema } from 'molstar/lib/extensions/mvs/tree/mvs/mvs-tree';

import { MolspaceError } from '../contract/errors';
import { LIMITS } from '../contract/limits';
import { SnapshotMeta } from '../contract/story';
import { cutText } from '../contract/budget';
import { ARCHIVE_BASE, MVSX_MAIN_FILE, checkStorySize, normalizeArchivePath, readArchive } from './mvsxArchive';
import { located, validationError, type StoryIssue } from './storyIssues';
import { ResourcePolicy, defaultResourcePolicy, forbiddenError, refusedResources } from '../resources/resourcePolicy';

export { MVSX_MAIN_FILE, normalizeArchivePath } from './mvsxArchive';
export type { StoryIssue } from './storyIssues';

/** Story input: exactly one of MVSJ text or MVSX archive bytes. */
export interface StorySourceInput {
  /** MolViewSpec JSON text (single- or multi-state). */
  mvsj?: string;
  /** MVSX archive bytes (zip with `index.mvsj` and assets). */
  mvsx?: Uint8Array;
}

/** A parsed, validated Story. */
export interface ParsedStory {
  format: 'mvsj' | 'mvsx';
  /**
   * Multi-state MVS data. Single-state input is converted with
   * `MVSData.stateToStates`; missing snapshot keys are filled as
   * `snapshot-<index>`; archive-relative URLs are normalized (`./a/b` → `a/b`).
   */
  data: MVSData_States;
  /** Original archive bytes when `format === 'mvsx'`, for Mol*'s MVSX loader. */
  mvsx?: Uint8Array;
  /**
   * The archive's image files (`.png`, `.jpg`, `.jpeg`, `.gif`, `.webp`,
   * `.svg`) by archive path, for descriptions that show them; empty for MVSJ.
   */
  images?: ReadonlyMap<string, Uint8Array>;
  /** Global metadata title, or `''`. */
  title: string;
  /** Bounded per-step metadata (descriptions cut to `LIMITS.descriptionChars`). */
  snapshots: SnapshotMeta[];
}

/** Archive files a description may show as images (by extension). */
const IMAGE_FILE = /\.(png|jpe?g|gif|webp|svg)$/i;

/** Parameter names holding resource locations (as Mol*'s `convertMvsToMolstar` resolves them). */
const URI_PARAMS = ['url', 'uri'] as const;

/**
 * Parse and validate a Story, then check where it would fetch from.
 *
 * @param policy - the hosts it may fetch from (`./resourcePolicy.ts`; default:
 *   the default `resourceHosts` setting and this page's origin).
 * @throws MolspaceError `INVALID_INPUT` (not exactly one input), `TOO_LARGE`,
 *   `UNSUPPORTED_FORMAT` (not JSON, not a zip, not MVS), `VALIDATION_FAILED`
 *   (every issue in `details.issues`, see {@link StoryIssue}), `FORBIDDEN`
 *   (a URL the policy refuses, checked before anything is fetched).
 */
export async function parseStory(src: StorySourceInput, policy: ResourcePolicy = defaultResourcePolicy()): Promise<ParsedStory> {
  const story = await parseStorySource(src);
  const refused = refusedResources(story.data.snapshots, policy);
  if (refused.length > 0) {
    const e = forbiddenError(refused, policy);
    throw new MolspaceError(e.code, e.message, e.where, e.fix, e.details);
  }
  return story;
}

async function parseStorySource(src: StorySourceInput): Promise<ParsedStory> {
  const hasJ = typeof src.mvsj === 'string';
  const hasX = src.mvsx instanceof Uint8Array;
  if (hasJ === hasX) {
    throw new MolspaceError(
      'INVALID_INPUT',
      'A Story needs exactly one source: MVSJ text or MVSX bytes.',
      '/',
      'Pass either `mvsj` (JSON text) or `mvsx` (archive bytes), not both or neither.'
    );
  }
  if (hasJ) {
    const text = src.mvsj as string;
    checkStorySize(new TextEncoder().encode(text).length, 'MVSJ text', '/mvsj');
    const raw = parseJson(text, '/mvsj');
    return buildStory(raw, 'mvsj', null);
  }
  const bytes = src.mvsx as Uint8Array;
  checkStorySize(bytes.length, 'MVSX archive', '/mvsx');
  const files = await readArchive(bytes);
  const main = files.get(MVSX_MAIN_FILE);
  if (!main) {
    throw new MolspaceError(
      'UNSUPPORTED_FORMAT',
      `The MVSX archive has no ${MVSX_MAIN_FILE}.`,
      '/mvsx',
      `Put the Story JSON at the archive root as ${MVSX_MAIN_FILE} (Mol*'s MVSX layout).`,
      { files: [...files.keys()].slice(0, 50) }
    );
  }
  const raw = parseJson(new TextDecoder().decode(main), `/mvsx/${MVSX_MAIN_FILE}`);
  const archiveUrls = new Set<string>();
  for (const name of files.keys()) {
    archiveUrls.add(new URL(name, ARCHIVE_BASE).href);
  }
  const story = buildStory(raw, 'mvsx', archiveUrls);
  story.mvsx = bytes;
  story.images = new Map([...files].filter(([name]) => IMAGE_FILE.test(name)));
  return story;
}

function parseJson(text: string, where: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new MolspaceError(
      'UNSUPPORTED_FORMAT',
      `The Story is not valid JSON: ${err instanceof Error ? err.message : String(err)}`,
      where,
      'Pass MolViewSpec JSON (MVSJ), e.g. the output of `molviewspec` `States.dumps()`, or an .mvsx archive.'
    );
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function looksLikeMvs(raw: unknown): raw is Record<string, unknown> {
  return isObject(raw) && isObject(raw.metadata) && ('root' in raw || 'snapshots' in raw);
}

/** Validate and normalize raw MVS JSON into a {@link ParsedStory}. */
function buildStory(raw: unknown, format: 'mvsj' | 'mvsx', archiveUrls: Set<string> | null): ParsedStory {
  if (!looksLikeMvs(raw)) {
    throw new MolspaceError(
      'UNSUPPORTED_FORMAT',
      'The JSON is not MolViewSpec: expected an object with "metadata" and "root" (one state) or "snapshots" (a Story).',
      '/',
      'Build the Story with the `molviewspec` Python package (`create_builder()`, `States`) or follow the MVS format.'
    );
  }
  const issues: StoryIssue[] = [];
  const global = (path: string, message: string) => issues.push(located(null, null, path, message));

  const metadata = raw.metadata as Record<string, unknown>;
  if (typeof metadata.version !== 'string') {
    global('metadata/version', `metadata.version must be a string, not ${typeof metadata.version}`);
  }
  if (metadata.title !== undefined && typeof metadata.title !== 'string') {
    global('metadata/title', 'metadata.title must be a string');
  }

  let data: MVSData_States;
  if (raw.kind === 'multiple') {
    data = raw as unknown as MVSData_States;
  } else if (raw.kind === undefined || raw.kind === 'single') {
    data = MVSData.stateToStates(raw as never);
  } else {
    throw new MolspaceError(
      'UNSUPPORTED_FORMAT',
      `MVS "kind" must be "single" or "multiple", not ${JSON.stringify(raw.kind)}.`,
      '/kind',
      'Set "kind": "multiple" for a Story with snapshots.'
    );
  }
  if (!Array.isArray(data.snapshots)) {
    throw new MolspaceError(
      'VALIDATION_FAILED',
      '1 issue(s) in the Story: "snapshots" must be an array.',
      '/snapshots',
      'Give the Story an ordered "snapshots" list.',
      { issues: [located(null, null, 'snapshots', '"snapshots" must be an array')] }
    );
  }
  const n = data.snapshots.length;
  if (n === 0) {
    global('snapshots', 'The Story has no snapshots.');
  }
  if (n > LIMITS.storySnapshots) {
    throw new MolspaceError(
      'TOO_LARGE',
      `The Story has ${n} snapshots; the limit is ${LIMITS.storySnapshots}.`,
      '/snapshots',
      'Split the Story into several shorter Stories.',
      { count: n, limit: LIMITS.storySnapshots }
    );
  }

  // First pass: keys (fill missing, then find duplicates).
  const keys: (string | null)[] = data.snapshots.map((s, i) => {
    if (!isObject(s) || !isObject((s as unknown as Record<string, unknown>).metadata)) {
      return null;
    }
    const md = s.metadata as unknown as Record<string, unknown>;
    if (md.key === undefined || md.key === null) {
      md.key = `snapshot-${i}`;
    }
    return typeof md.key === 'string' ? md.key : null;
  });
  const firstIndexOfKey = new Map<string, number>();

  const metas: SnapshotMeta[] = [];
  data.snapshots.forEach((snap, i) => {
    const key = keys[i];
    const add = (path: string, message: string) => issues.push(located(i, key, path, message));
    if (!isObject(snap)) {
      add('', 'A snapshot must be an object with "root" and "metadata".');
      return;
    }
    const md = (snap as unknown as Record<string, unknown>).metadata;
    if (!isObject(md)) {
      add('metadata', 'The snapshot has no "metadata" object.');
    } else {
      checkMetadata(md, key, i, add, firstIndexOfKey);
    }
    checkTree(snap, i, format, archiveUrls, add);
    if (isObject(md)) {
      metas.push(toMeta(md, i, key ?? `snapshot-${i}`));
    }
  });

  if (issues.length > 0) {
    throw validationError(issues);
  }
  return {
    format,
    data,
    title: typeof metadata.title === 'string' ? metadata.title : '',
    snapshots: metas
  };
}

function checkMetadata(
  md: Record<string, unknown>,
  key: string | null,
  i: number,
  add: (path: string, message: string) => void,
  firstIndexOfKey: Map<string, number>
): void {
  if (typeof md.key !== 'string' || md.key.trim() === '') {
    add('metadata/key', 'Snapshot key must be a non-empty string.');
  } else if (key !== null) {
    const first = firstIndexOfKey.get(key);
    if (first !== undefined) {
      add('metadata/key', `Duplicate snapshot key "${key}" (also used by snapshot ${first}).`);
    } else {
      firstIndexOfKey.set(key, i);
    }
  }
  const linger = md.linger_duration_ms;
  if (typeof linger !== 'number' || !Number.isFinite(linger) || linger < 0) {
    add('metadata/linger_duration_ms', `linger_duration_ms must be a finite number ≥ 0 (ms), not ${JSON.stringify(linger ?? null)}.`);
  }
  if (md.transition_duration_ms === null) {
    delete md.transition_duration_ms;
  }
  const tr = md.transition_duration_ms;
  if (tr !== undefined && (typeof tr !== 'number' || !Number.isFinite(tr) || tr < 0)) {
    add('metadata/transition_duration_ms', `transition_duration_ms must be a finite number ≥ 0 (ms) when set, not ${JSON.stringify(tr)}.`);
  }
  if (md.title !== undefined && typeof md.title !== 'string') {
    add('metadata/title', 'Snapshot title must be a string.');
  }
  if (md.description !== undefined && typeof md.description !== 'string') {
    add('metadata/description', 'Snapshot description must be a string.');
  } else if (typeof md.description === 'string' && md.description.length > LIMITS.storySourceDescriptionChars) {
    add('metadata/description', `Description is ${md.description.length} characters; the limit is ${LIMITS.storySourceDescriptionChars}.`);
  }
  if (md.description_format !== undefined && md.description_format !== 'markdown' && md.description_format !== 'plaintext') {
    add('metadata/description_format', 'description_format must be "markdown" or "plaintext".');
  }
}

/** Bounded metadata of one snapshot (fields follow MVS snapshot `metadata`). */
function toMeta(md: Record<string, unknown>, index: number, key: string): SnapshotMeta {
  const description = cutText(typeof md.description === 'string' ? md.description : '', LIMITS.descriptionChars);
  const linger = md.linger_duration_ms;
  const tr = md.transition_duration_ms;
  return {
    index,
    key,
    title: typeof md.title === 'string' ? md.title : '',
    description,
    linger_duration_ms: typeof linger === 'number' && Number.isFinite(linger) ? linger : 0,
    transition_duration_ms: typeof tr === 'number' && Number.isFinite(tr) ? tr : null
  };
}

/**
 * Validate one snapshot's trees with Mol* and walk its resources.
 * Mol* stops at the first bad node per tree; that node's path is located by
 * validating nodes one at a time with Mol*'s own `treeValidationIssues`.
 */
function checkTree(
  snap: Snapshot,
  i: number,
  format: 'mvsj' | 'mvsx',
  archiveUrls: Set<string> | null,
  add: (path: string, message: string) => void
): void {
  const root = (snap as unknown as Record<string, unknown>).root;
  if (!isObject(root)) {
    add('root', 'The snapshot has no "root" node.');
    return;
  }
  const shapeOk = checkShape(root, 'root', add);
  if (shapeOk) {
    let molIssues: string[] | undefined;
    try {
      molIssues = MVSData.validationIssues(
        { kind: 'multiple', metadata: { version: '1', timestamp: '' }, snapshots: [snap] },
        { noExtra: true }
      );
    } catch (err) {
      molIssues = [`Mol* validation failed: ${err instanceof Error ? err.message : String(err)}`];
    }
    if (molIssues && molIssues.length > 0) {
      // Mol* reports the first bad node of a tree; list every one, each with Mol*'s own message.
      const bad: { path: string; message: string }[] = [];
      locateBadNodes(root, 'root', undefined, bad);
      if (bad.length === 0) {
        add('animation' in snap ? 'animation' : 'root', molIssues.map(s => s.trim()).join(' '));
      }
      for (const b of bad) {
        add(b.path, b.message);
      }
    }
  }
  walkResources(root, 'root', format, archiveUrls, add);
}

/** Children must be arrays of objects (Mol*'s validator would throw otherwise). */
function checkShape(node: Record<string, unknown>, path: string, add: (path: string, message: string) => void): boolean {
  const children = node.children;
  if (children === undefined) {
    return true;
  }
  if (!Array.isArray(children)) {
    add(`${path}/children`, '"children" must be an array of nodes.');
    return false;
  }
  let ok = true;
  children.forEach((c, k) => {
    if (!isObject(c)) {
      add(`${path}/children/${k}`, 'A node must be an object with "kind".');
      ok = false;
    } else if (!checkShape(c, `${path}/children/${k}`, add)) {
      ok = false;
    }
  });
  return ok;
}

/**
 * Every node (depth-first) that Mol*'s schema rejects, with Mol*'s message for
 * that node alone. The children of a node of unknown kind are not checked
 * (their allowed parents cannot be known).
 */
function locateBadNodes(
  node: Record<string, unknown>,
  path: string,
  parent: string | undefined,
  out: { path: string; message: string }[]
): void {
  const alone = { ...node, children: undefined };
  const issues = treeValidationIssues(MVSTreeSchema, alone as never, {
    noExtra: true,
    anyRoot: parent !== undefined,
    parent
  });
  if (issues) {
    out.push({ path, message: issues.map(s => s.trim()).join(' ') });
  }
  const known = typeof node.kind === 'string' && node.kind in MVSTreeSchema.nodes;
  const children = (node.children as Record<string, unknown>[] | undefined) ?? [];
  if (!known) {
    return;
  }
  children.forEach((c, k) => locateBadNodes(c, `${path}/children/${k}`, String(node.kind), out));
}

/** Classification of a resource location. */
type UriKind = 'remote' | 'data' | 'file' | 'absolute-path' | 'other-scheme' | 'relative';

/** Classify a `url`/`uri` param value. */
export function classifyUri(uri: string): UriKind {
  const s = uri.trim();
  if (/^[a-zA-Z]:[\\/]/.test(s) || s.startsWith('/') || s.startsWith('\\') || s.startsWith('~')) {
    return 'absolute-path';
  }
  const scheme = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(s)?.[1]?.toLowerCase();
  if (scheme === undefined) {
    return 'relative';
  }
  if (scheme === 'http' || scheme === 'https') {
    return 'remote';
  }
  if (scheme === 'data') {
    return 'data';
  }
  if (scheme === 'file') {
    return 'file';
  }
  return 'other-scheme';
}

function walkResources(
  node: Record<string, unknown>,
  path: string,
  format: 'mvsj' | 'mvsx',
  archiveUrls: Set<string> | null,
  add: (path: string, message: string) => void
): void {
  const params = node.params;
  if (isObject(params)) {
    for (const name of URI_PARAMS) {
      const value = params[name];
      if (typeof value !== 'string') {
        continue;
      }
      const at = `${path}/params/${name}`;
      const shown = value.length > 200 ? value.slice(0, 200) + '…' : value;
      switch (classifyUri(value)) {
        case 'remote':
        case 'data':
          break;
        case 'file':
          add(at, `file: URLs are not allowed ("${shown}").`);
          break;
        case 'absolute-path':
          add(at, `Absolute filesystem paths are not allowed ("${shown}").`);
          break;
        case 'other-scheme':
          add(at, `Only http(s): and data: URLs are allowed ("${shown}").`);
          break;
        case 'relative':
          if (format === 'mvsj' || archiveUrls === null) {
            add(at, `Relative URL "${shown}" needs an .mvsx archive that contains it; .mvsj may reference only http(s): or data: URLs.`);
          } else if (value.split(/[\\/]/).includes('..')) {
            add(at, `Archive path "${shown}" leaves the archive ("..").`);
          } else {
            const norm = normalizeArchivePath(value);
            if (!archiveUrls.has(norm.url)) {
              add(at, `"${shown}" is not in the MVSX archive (looked for "${norm.path}").`);
            } else {
              params[name] = norm.path;
            }
          }
          break;
      }
    }
  }
  const children = node.children;
  if (Array.isArray(children)) {
    children.forEach((c, k) => {
      if (isObject(c)) {
        walkResources(c, `${path}/children/${k}`, format, archiveUrls, add);
      }
    });
  }
}
