/**
 * `ketcher_open`: a Ketcher editor docked in the main area, optionally with
 * a structure; returns once the editor and its engine are ready.
 */
import { KETCHER_OPEN_TOOL, LIMITS, MolspaceError } from '../contract';
import { ketcherOpener } from '../ketcher/ketcherOpener';
import { readyDeadline, whenReady } from '../dispatcher/whenReady';
import { defineTool } from './tool';

export const ketcherOpen = defineTool(KETCHER_OPEN_TOOL, async ({ args, deadline }) => {
  const value = args.value ?? '';
  const bytes = new TextEncoder().encode(value).length;
  if (bytes > LIMITS.ketcherInlineBytes) {
    throw new MolspaceError('TOO_LARGE', `The structure is ${bytes} bytes; the limit is ${LIMITS.ketcherInlineBytes}.`, '/value', 'Send a smaller structure.', {
      size: bytes,
      limit: LIMITS.ketcherInlineBytes,
      unit: 'bytes'
    });
  }
  const editor = await ketcherOpener().open({ value, format: args.format ?? null, title: args.title ?? 'Ketcher' });
  await whenReady(editor, readyDeadline(deadline)); // ready with the structure loaded, or its located error
  return { output: { editor: editor.state() }, text: `Opened Ketcher editor ${editor.targetId}: ${editor.describe()}.` };
});
