/**
 * `ketcher_open`: a Ketcher editor docked in the main area, optionally with
 * a structure; returns once the editor and its engine are ready.
 */
import { KETCHER_OPEN_TOOL, LIMITS, MolspaceError } from '../contract';
import { ketcherOpener } from '../ketcher/ketcherOpener';
import { checkPlacement } from '../dockPlacement';
import { defineTool } from './tool';

export const ketcherOpen = defineTool(KETCHER_OPEN_TOOL, async ({ args }) => {
  const value = args.value ?? '';
  const bytes = new TextEncoder().encode(value).length;
  if (bytes > LIMITS.ketcherInlineBytes) {
    throw new MolspaceError('TOO_LARGE', `The structure is ${bytes} bytes; the limit is ${LIMITS.ketcherInlineBytes}.`, '/value', 'Send a smaller structure.', {
      size: bytes,
      limit: LIMITS.ketcherInlineBytes,
      unit: 'bytes'
    });
  }
  checkPlacement(args.dock);
  const editor = await ketcherOpener().open({ value, format: args.format ?? null, title: args.title ?? 'Ketcher', placement: args.dock });
  const state = editor.state();
  if (state.error) {
    throw new MolspaceError(state.error.code, state.error.message, state.error.where, state.error.fix, { ...state.error.details, target: editor.targetId });
  }
  return { output: { editor: state }, text: `Opened Ketcher editor ${editor.targetId}: ${editor.describe()}.` };
});
