/**
 * The kernel <-> page messages of a widget: ipywidgets custom messages on the
 * widget's comm (the synced state travels as ordinary widget state).
 *
 * kernel -> page
 *   `control` run one control operation on this widget through the page's
 *             Dispatcher (source `kernel`); for a Story, the arguments of
 *             `story_control` without `pageId` and `target`; with `tool`, another
 *             tool the widget's channel allows (a Story: `story_edit`).
 * page -> kernel
 *   `result`  the answer to one `control`, keyed by its `requestId`: the same
 *             fields as the bridge's `result` frame.
 */
import { z } from 'zod';
import { RESULT_FAILED_FIELDS, RESULT_OK_FIELDS } from './result';
import { STORY_CONTROL_FIELDS, checkGotoTarget } from './tools';

/** A kernel request id: unique per request of one widget. */
const requestId = z.string().min(1).max(128).describe('Chosen by the kernel; echoed by the result.');

/** What every kernel `control` message starts with; the rest are the operation's arguments. */
export const KernelRequest = z
  .object({
    type: z.literal('control'),
    requestId,
    tool: z.string().min(1).max(64).optional().describe("Another tool of the widget's channel; default its own.")
  })
  .loose();
export type KernelRequest = z.infer<typeof KernelRequest>;

/** The kernel's `control` message of a Story (`molspace.Story.goto`, `next`, ...). */
export const KernelControl = z
  .object({ type: z.literal('control'), requestId, ...STORY_CONTROL_FIELDS })
  .strict()
  .superRefine(checkGotoTarget);
export type KernelControl = z.infer<typeof KernelControl>;

/** The page's answer to one `control`. */
export const KernelResult = z.union([z.object({ ...RESULT_OK_FIELDS, requestId }), z.object({ ...RESULT_FAILED_FIELDS, requestId })]);
export type KernelResult = z.infer<typeof KernelResult>;
