/**
 * The first step of each frame's message handler, kept free of Ketcher and
 * Indigo so it can be tested (and fuzzed, issue 23) on its own: which
 * messages a frame takes, and as what. The editor frame (`./main.ts`) and the
 * depiction frame (`./depict.ts`) take only messages from their parent window
 * and their own origin that parse against their schemas
 * (`../frameMessages.ts`, `../depictMessages.ts`). A message from the parent
 * that carries the frame's tag and a usable id but fails the schema (a page
 * and a frame of different builds) is answered with a located refusal
 * ({@link editorRefusal}, {@link depictRefusal}), so the page rejects at once
 * instead of waiting out its deadline; anything else is ignored.
 */
import type { z } from 'zod';
import { MolspaceError } from '../../contract/errors';
import { FRAME_TAG, FrameRequest, type FrameReply } from '../frameMessages';
import { ConvertRequest, DEPICT_BATCH, DEPICT_TAG, DepictRequest, type ConvertReply, type DepictReply } from '../depictMessages';

/** What a frame's `message` listener is given (a `MessageEvent`'s fields that it reads). */
export interface Inbound {
  readonly source: unknown;
  readonly origin: string;
  readonly data: unknown;
}

/** Is `event` from `parent` and of `origin` (the frame's own)? */
function fromParent(event: Inbound, parent: unknown, origin: string): boolean {
  return event.source === parent && event.origin === origin;
}

/** The editor frame's request in `event`, or null when the message is not one (it is then ignored). */
export function editorRequest(event: Inbound, parent: unknown, origin: string): FrameRequest | null {
  if (!fromParent(event, parent, origin)) {
    return null;
  }
  const request = FrameRequest.safeParse(event.data);
  return request.success ? request.data : null;
}

/** A depiction frame request: SMILES to depict, or molfiles to convert to SMILES. */
export type DepictFrameRequest = { op: 'convert'; id: number; molfiles: string[] } | { op: 'depict'; id: number; smiles: string[] };

/**
 * The depiction frame's request in `event`, or null when the message is not
 * one (ignored). A message that parses as both is a conversion.
 */
export function depictRequest(event: Inbound, parent: unknown, origin: string): DepictFrameRequest | null {
  if (!fromParent(event, parent, origin)) {
    return null;
  }
  const convert = ConvertRequest.safeParse(event.data);
  if (convert.success) {
    return { op: 'convert', id: convert.data.id, molfiles: convert.data.molfiles };
  }
  const request = DepictRequest.safeParse(event.data);
  return request.success ? { op: 'depict', id: request.data.id, smiles: request.data.smiles } : null;
}

/** The fix of a request the frame cannot read: both sides are this package's code, so they differ in build. */
export const MISFIT_FIX = 'The page and the frame are of different molspace builds: reload the page.';

/** JSON pointer of a schema issue's path (RFC 6901: `~` and `/` escaped). */
function pointer(path: readonly PropertyKey[]): string {
  return path.map(p => `/${String(p).replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
}

/** `read()`, or undefined when it throws. */
function tryRead<T>(read: () => T): T | undefined {
  try {
    return read();
  } catch {
    return undefined;
  }
}

/**
 * The id of a message from `parent` and of `origin` that carries `tag` (it is
 * ours), when that id is one a reply can name (a finite number); else null.
 */
function taggedId(event: Inbound, parent: unknown, origin: string, tag: string): number | null {
  if (!fromParent(event, parent, origin)) {
    return null;
  }
  const fields = tryRead(() => {
    const d = event.data as { tag?: unknown; id?: unknown } | null;
    return typeof d === 'object' && d !== null ? { tag: d.tag, id: d.id } : null;
  });
  return fields && fields.tag === tag && typeof fields.id === 'number' && Number.isFinite(fields.id) ? fields.id : null;
}

/** The located refusal of request `id` that failed its schema with `issues` (the first one is named). */
export function misfit(frame: string, id: number, issues: readonly z.core.$ZodIssue[]): MolspaceError {
  const first = issues[0];
  const where = first ? pointer(first.path) : '';
  return new MolspaceError(
    'INVALID_INPUT',
    `The ${frame} frame cannot read request ${id}: ${first?.message ?? 'not a request'} at ${where || 'the message'}.`,
    where,
    MISFIT_FIX,
    { id, issueCount: issues.length, ...(first ? { issue: first.code } : {}) }
  );
}

/** A located error as one line of text, for a reader that takes only a message. */
export function locatedText(e: MolspaceError): string {
  return `${e.code} at ${e.where || '/'}: ${e.message} Fix: ${e.fix}`;
}

/**
 * The editor frame's answer to a message from its parent that carries
 * {@link FRAME_TAG} and a usable id but is not a {@link FrameRequest}: a
 * failed reply with the located refusal; null for anything else.
 */
export function editorRefusal(event: Inbound, parent: unknown, origin: string): FrameReply | null {
  const id = taggedId(event, parent, origin, FRAME_TAG);
  if (id === null) {
    return null;
  }
  const request = FrameRequest.safeParse(event.data);
  if (request.success) {
    return null;
  }
  const e = misfit('editor', id, request.error.issues);
  return { tag: FRAME_TAG, id, ok: false, error: locatedText(e), located: e.toJSON() };
}

/**
 * The depiction frame's answer to a message from its parent that carries
 * {@link DEPICT_TAG} and a usable id but is neither request: one reply that
 * reads as either kind (the page asked for one of them), each item refused
 * with the same text, and the located refusal the page rejects with; null for
 * anything else.
 */
export function depictRefusal(event: Inbound, parent: unknown, origin: string): (DepictReply & ConvertReply) | null {
  const id = taggedId(event, parent, origin, DEPICT_TAG);
  if (id === null || ConvertRequest.safeParse(event.data).success) {
    return null;
  }
  const request = DepictRequest.safeParse(event.data);
  if (request.success) {
    return null;
  }
  // The issues of the request it looks like: a conversion when it has molfiles.
  const convert = tryRead(() => 'molfiles' in (event.data as object)) === true;
  const issues = convert ? ConvertRequest.safeParse(event.data).error?.issues : request.error.issues;
  const e = misfit('depiction', id, issues ?? []);
  const text = locatedText(e);
  const items = tryRead(() => {
    const list = (event.data as Record<string, unknown>)[convert ? 'molfiles' : 'smiles'];
    return Array.isArray(list) ? Math.min(list.length, DEPICT_BATCH) : 0;
  });
  const n = items ?? 0;
  return {
    tag: DEPICT_TAG,
    id,
    images: Array.from({ length: n }, () => ({ svg: null, error: text })),
    smiles: Array.from({ length: n }, () => ({ smiles: null, error: text })),
    located: e.toJSON()
  };
}
