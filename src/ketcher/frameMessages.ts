/**
 * The messages between a Ketcher view (the parent page) and its editor frame
 * (`src/ketcher/frame/`, one iframe per view; docs/architecture.md, "Ketcher").
 *
 * The frame is a document of its own so that each editor has its own Ketcher
 * globals, undo history, CSS and keyboard. Both sides are this package's own
 * code on one origin; every message is still checked against these schemas,
 * and a message that does not parse is dropped, except a request from the
 * parent with the frame's tag and a finite id (a page of another build): the
 * frame answers it with a located refusal (`frame/inbox.ts`).
 */
import { z } from 'zod';
import { LocatedError } from '../contract/errors';
import { KetcherFormat } from '../contract/ketcher';

export { KetcherFormat };

/** Marks molspace's frame messages among any other `postMessage` traffic. */
export const FRAME_TAG = 'molspace-ketcher/1';

/** What one editor holds now, as the frame reports it after a change. */
export const EditorSnapshot = z.object({
  /** KET (Ketcher's JSON format): the editor's full state, what views exchange. */
  ket: z.string(),
  /** SMILES as Indigo writes it (not canonical), or null where SMILES cannot carry the drawing (e.g. R-groups). */
  smiles: z.string().nullable(),
  /** Molfile (V2000, or V3000 where V2000 cannot carry it), or null where Indigo cannot write one. */
  molfile: z.string().nullable(),
  atoms: z.number().int().min(0),
  bonds: z.number().int().min(0),
  /** Gross formula from Indigo (e.g. "C3 H7 N O2"), or null. */
  formula: z.string().nullable()
});
export type EditorSnapshot = z.infer<typeof EditorSnapshot>;

/** Parent → frame requests; each is answered by one {@link FrameReply} with the same `id`. */
export const FrameRequest = z.discriminatedUnion('op', [
  z.object({ tag: z.literal(FRAME_TAG), id: z.number(), op: z.literal('set'), value: z.string(), format: KetcherFormat.nullable() }),
  z.object({ tag: z.literal(FRAME_TAG), id: z.number(), op: z.literal('get'), format: KetcherFormat }),
  z.object({ tag: z.literal(FRAME_TAG), id: z.number(), op: z.literal('snapshot') }),
  z.object({
    tag: z.literal(FRAME_TAG),
    id: z.number(),
    op: z.literal('highlight'),
    atoms: z.array(z.number().int().min(0)),
    color: z.string()
  }),
  /** Run Indigo's and Ketcher's load and snapshot paths once on a sample, leaving the editor as it is (a spare frame, before an editor takes it). */
  z.object({ tag: z.literal(FRAME_TAG), id: z.number(), op: z.literal('warm') })
]);
export type FrameRequest = z.infer<typeof FrameRequest>;
/** A request without its envelope, as the parent writes it. */
export type FrameOp = FrameRequest extends infer R ? (R extends FrameRequest ? Omit<R, 'tag' | 'id'> : never) : never;

/** The `value` of a successful {@link FrameReply}, per request `op`: the parent takes nothing else. */
export const FrameValue = {
  set: EditorSnapshot,
  snapshot: EditorSnapshot,
  get: z.string(),
  highlight: z.unknown(),
  warm: z.null()
} as const satisfies Record<FrameRequest['op'], z.ZodType>;

/**
 * Frame → parent: the answer to one request. `error` is Indigo's or Ketcher's message;
 * `located`, the frame's own refusal of a request it could not take (one that fails
 * {@link FrameRequest}, or one over its backlog), which the parent rejects with as it is.
 */
export const FrameReply = z.object({
  tag: z.literal(FRAME_TAG),
  id: z.number(),
  ok: z.boolean(),
  value: z.unknown().optional(),
  error: z.string().optional(),
  located: LocatedError.optional()
});
export type FrameReply = z.infer<typeof FrameReply>;

/** Frame → parent events: the editor is ready (Ketcher and Indigo loaded), failed to start, or a person changed the drawing. */
export const FrameEvent = z.discriminatedUnion('event', [
  z.object({ tag: z.literal(FRAME_TAG), event: z.literal('ready'), ketcher: z.string(), indigo: z.string(), snapshot: EditorSnapshot }),
  z.object({ tag: z.literal(FRAME_TAG), event: z.literal('failed'), error: z.string() }),
  z.object({ tag: z.literal(FRAME_TAG), event: z.literal('changed'), snapshot: EditorSnapshot })
]);
export type FrameEvent = z.infer<typeof FrameEvent>;
