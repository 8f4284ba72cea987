/**
 * Story state and Story control: the shapes shared by the Story widget, the
 * kernel (as synced traits) and the `story_observe` / `story_control` tools.
 *
 * A Story is standard multi-state MVS (`kind: "multiple"`); snapshot metadata
 * fields follow MVS snapshot `metadata` (`key`, `title`, `description`,
 * `linger_duration_ms`, `transition_duration_ms`).
 */
import { z } from 'zod';
import { LocatedError } from './errors';
import { LIMITS } from './limits';

/** Bounded metadata of one Story step. */
export const SnapshotMeta = z.object({
  index: z.number().int().min(0).describe('0-based position in the Story.'),
  key: z.string().describe('Unique snapshot key (MVS snapshot metadata `key`).'),
  title: z.string().describe('Step title; empty when the snapshot has none.'),
  description: z.string().describe(`Markdown description, at most ${LIMITS.descriptionChars} characters.`),
  linger_duration_ms: z.number().min(0).describe('Time the step stays when playing, ms.'),
  transition_duration_ms: z.number().min(0).nullable().describe('Camera transition into the step, ms; null when unset.')
});
export type SnapshotMeta = z.infer<typeof SnapshotMeta>;

/** Where a change came from. */
export const ChangeSource = z.enum(['ui', 'kernel', 'agent', 'play', 'load']);
export type ChangeSource = z.infer<typeof ChangeSource>;

/** One entry of a model's short change log (what changed since a revision). */
export const ChangeEntry = z.object({
  revision: z.number().int(),
  source: ChangeSource,
  summary: z.string()
});
export type ChangeEntry = z.infer<typeof ChangeEntry>;

/** The Story widget state, as the page holds it and the kernel mirrors it. */
export const StoryState = z.object({
  target: z.string().describe('Model id of the Story widget (the ipywidgets model id).'),
  kind: z.literal('story'),
  title: z.string(),
  ready: z.boolean().describe('True once the current step is rendered.'),
  revision: z.number().int().min(0),
  index: z.number().int().min(0),
  key: z.string(),
  count: z.number().int().min(0).describe('Number of snapshots.'),
  playing: z.boolean(),
  error: LocatedError.nullable().describe('Located load or validation error, or null.')
});
export type StoryState = z.infer<typeof StoryState>;

/** `story_control` actions. */
export const StoryAction = z.enum(['next', 'previous', 'goto', 'play', 'pause']);
export type StoryAction = z.infer<typeof StoryAction>;
