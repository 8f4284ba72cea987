/**
 * The arguments many tools share (`pageId`, `target`, `expectedRevision`,
 * `actionId`), defined once so every tool lists them alike.
 */
import { z } from 'zod';
import { LIMITS } from './limits';

export const pageId = z.string().min(1).optional().describe('Page to run in; default: the most recently focused JupyterLab page.');

export const target = z
  .string()
  .min(1)
  .optional()
  .describe('Model id of the widget (from `observe`); default: the most recently active Story.');

export const actionId = z
  .string()
  .min(1)
  .max(128)
  .optional()
  .describe('Idempotency key: a retried actionId returns the first result without applying again.');

export const expectedRevision = z
  .number()
  .int()
  .min(0)
  .optional()
  .describe('Fail with REVISION_CONFLICT unless the widget is at this revision.');

/**
 * How long a call that needs the person's answer (e.g. `request_persist`)
 * waits for it, ms; it returns as soon as the person answers, else `status:
 * "pending"`. Bounded by `LIMITS.personWaitMs` (well under the gateway's
 * default `call_timeout` of 30 s) and by the call's own deadline.
 */
export const waitMs = z.number().int().min(0).max(LIMITS.personWaitMs).default(0).describe(`ms to wait for the person's answer.`);

/** Where a new docked widget goes (`open`, `ketcher_open`, `render_panel`); see `src/dockedTab.ts`. */
export const DockPlacement = z
  .object({
    mode: z.enum(['tab', 'split-right', 'split-bottom']).default('tab').describe('tab, or split beside it.'),
    beside: z.string().min(1).optional().describe('Docked widget id (observe); default: the last docked.')
  })
  .strict();
export type DockPlacement = z.infer<typeof DockPlacement>;

export const dock = DockPlacement.optional().describe('Where to dock; default: a tab beside the last docked widget.');
