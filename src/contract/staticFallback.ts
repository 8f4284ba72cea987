/**
 * Static fallbacks of saved notebooks (docs/architecture.md, "Static fallback in saved notebooks").
 *
 * After a widget's view has drawn and settled, the page sends the gateway a
 * `fallback` frame: a bounded PNG of what it shows and the state a reader
 * needs (summary line; a Story's step and step list; a panel's content). The
 * server's pre-save hook (`molspace/gateway/static_fallback.py`) writes it
 * into that widget's output of the notebook being saved, beside the widget
 * view, as `image/png`, `text/plain`, escaped `text/html` and
 * {@link STATIC_FALLBACK_MIME}, so nbviewer, GitHub and `nbconvert` show it
 * without molspace or a kernel.
 */
import { z } from 'zod';
import { LIMITS } from './limits';
import { PanelContent } from './panel';

/** The output mime type that carries a widget's fallback state (and marks an output as molspace's). */
export const STATIC_FALLBACK_MIME = 'application/vnd.molspace.static+json';

/** Widget kinds a saved notebook shows a fallback for. */
export const FallbackKind = z.enum(['viewer', 'story', 'panel', 'ketcher']);
export type FallbackKind = z.infer<typeof FallbackKind>;

/** One Story step as a reader sees it. */
export const FallbackStep = z.object({ key: z.string().max(200), title: z.string().max(200) });

/** What a reader of the saved notebook needs of one widget (also written as {@link STATIC_FALLBACK_MIME}). */
export const FallbackState = z.object({
  kind: FallbackKind,
  revision: z.number().int().min(0),
  title: z.string().max(200),
  summary: z.string().min(1).max(LIMITS.staticFallbackTextChars).describe('One or a few lines of plain text.'),
  /** Story: 0-based step shown, its key, the number of steps, and the first steps. */
  index: z.number().int().min(0).optional(),
  key: z.string().max(200).optional(),
  count: z.number().int().min(0).optional(),
  steps: z.array(FallbackStep).max(LIMITS.staticFallbackSteps).optional()
});
export type FallbackState = z.infer<typeof FallbackState>;

/** A PNG, base64 (it starts with the PNG signature), at most `LIMITS.staticFallbackPngBytes` decoded. */
export const FallbackPng = z
  .string()
  .max(Math.ceil(LIMITS.staticFallbackPngBytes / 3) * 4)
  .regex(/^iVBORw0KGgo[A-Za-z0-9+/]*={0,2}$/, 'not a base64 PNG');

/** page -> gateway: the fallback of one notebook widget, sent after its view settles. */
export const PageFallback = z.object({
  type: z.literal('fallback'),
  modelId: z.string().min(1).max(128).describe('The ipywidgets model id of the widget.'),
  state: FallbackState,
  png: FallbackPng.optional(),
  width: z.number().int().min(1).max(LIMITS.staticFallbackWidth).optional(),
  height: z.number().int().min(1).max(LIMITS.screenshotMaxPixels).optional(),
  /** Panels: the content shown, when its JSON is at most `LIMITS.staticFallbackContentBytes`. */
  content: PanelContent.optional()
});
export type PageFallback = z.infer<typeof PageFallback>;
