/**
 * `ketcher_control`: revision-checked operations on a Ketcher editor. The
 * Dispatcher has queued the call behind earlier ones on this editor, waited
 * for its engine and checked `expectedRevision` against the structure
 * revision; this checks the bounds (`LIMITS.ketcher*`, TOO_LARGE naming the
 * limit) and runs the action. A person's drawing arrives here too, as a `ui`
 * `set_structure` of the editor's KET (docs/architecture.md, "Ketcher").
 */
import { KETCHER_CONTROL_TOOL, KetcherControlUiInput, LIMITS, MolspaceError, type ChangeEntry, type KetcherControlInput } from '../contract';
import { KETCHER_EXTENSIONS, persistFormat } from '../ketcher/ketcherFiles';
import type { KetcherTarget } from '../ketcher/ketcherTarget';
import { defineWidgetTool } from './tool';

const utf8Bytes = (s: string) => new TextEncoder().encode(s).length;

function required<K extends 'value' | 'atoms' | 'path'>(args: KetcherControlInput, field: K): NonNullable<KetcherControlInput[K]> {
  const v = args[field];
  if (v === undefined) {
    throw new MolspaceError('INVALID_INPUT', `${args.action} needs ${field}.`, `/${field}`, `Pass ${field}.`, { action: args.action });
  }
  return v as NonNullable<KetcherControlInput[K]>;
}

function tooLarge(what: string, where: string, size: number, limit: number, unit: string, fix: string): MolspaceError {
  return new MolspaceError('TOO_LARGE', `${what} is ${size} ${unit}; the limit is ${limit}.`, where, fix, { size, limit, unit });
}

async function persist(args: KetcherControlInput, target: KetcherTarget): Promise<string> {
  const path = required(args, 'path');
  const format = persistFormat(path, args.format);
  const { checkStoryPath, fileExists } = await import('../authoring/storyFiles');
  const clean = checkStoryPath(path, KETCHER_EXTENSIONS[format]);
  const earlier = target.persistRequest(clean);
  const revision = target.state().structureRevision;
  if (earlier?.status === 'saved' && earlier.revision === revision) {
    return `Saved to ${clean} (${earlier.format}) at structure revision ${revision}.`;
  }
  if (earlier?.status === 'awaiting') {
    throw awaiting(clean, format);
  }
  if (earlier?.status === 'refused' || earlier?.status === 'failed') {
    const refused = earlier.status === 'refused';
    target.askPersist(clean, format, args.overwrite, true);
    throw new MolspaceError(
      'FORBIDDEN',
      refused ? `The person refused to save the structure to ${clean}.` : earlier.message,
      '/path',
      refused ? 'Ask the person in the notebook; call request_persist again to ask once more.' : 'Check the path, then call request_persist again.',
      { path: clean, refused }
    );
  }
  if (!args.overwrite && (await fileExists(clean))) {
    throw new MolspaceError('FORBIDDEN', `"${clean}" exists; request_persist does not overwrite it.`, '/overwrite', 'Pass overwrite: true to replace it, or choose another path.', {
      path: clean
    });
  }
  target.askPersist(clean, format, args.overwrite, false);
  throw awaiting(clean, format);
}

function awaiting(path: string, format: string): MolspaceError {
  return new MolspaceError(
    'AWAITING_USER',
    `Waiting for the person to confirm saving to ${path} (${format}) in the editor.`,
    '/path',
    'Call request_persist again with the same path later; the editor shows Save and Refuse.',
    { path, format }
  );
}

export const ketcherControl = defineWidgetTool(KETCHER_CONTROL_TOOL, async ({ args, target, source }) => {
  const before = target.state();
  let changes: ChangeEntry[] = [];
  let value: string | undefined;
  let text: string;
  switch (args.action) {
    case 'set_structure': {
      const v = required(args, 'value');
      const bytes = utf8Bytes(v);
      if (source !== 'ui' && bytes > LIMITS.ketcherInlineBytes) {
        throw tooLarge('The structure', '/value', bytes, LIMITS.ketcherInlineBytes, 'bytes', 'Send a smaller structure, or open the file with molspace.Ketcher(path) in a cell.');
      }
      const summary = source === 'ui' ? 'the person drew' : `set a structure (${args.format ?? 'format detected'}, ${bytes} bytes)`;
      changes = [await target.setStructure(v, args.format ?? null, source, summary)];
      text = `Ketcher ${target.targetId}: ${summary}; structure revision ${target.state().structureRevision}.`;
      break;
    }
    case 'clear_structure':
      changes = [await target.setStructure('', null, source, 'cleared the structure')];
      text = `Ketcher ${target.targetId}: cleared; structure revision ${target.state().structureRevision}.`;
      break;
    case 'highlight_atoms': {
      const atoms = required(args, 'atoms');
      if (atoms.length > LIMITS.ketcherHighlightAtoms) {
        throw tooLarge('The atom list', '/atoms', atoms.length, LIMITS.ketcherHighlightAtoms, 'atoms', 'Highlight fewer atoms per call.');
      }
      const bad = atoms.findIndex(a => a >= before.atoms);
      if (bad >= 0) {
        throw new MolspaceError(
          'VALIDATION_FAILED',
          `Atom index ${atoms[bad]} is out of range: the structure has ${before.atoms} atoms${before.atoms ? ` (0–${before.atoms - 1})` : ''}.`,
          `/atoms/${bad}`,
          'Use 0-based indices in Molfile atom order (get_structure with format molfile lists them).',
          { atoms: before.atoms }
        );
      }
      await target.highlight(atoms, args.color, source);
      text = `Ketcher ${target.targetId}: ${atoms.length ? `highlighted ${atoms.length} atoms` : 'cleared highlights'}; interaction revision ${target.state().interactionRevision}.`;
      break;
    }
    case 'get_structure': {
      const format = args.format ?? 'smiles';
      value = await target.export(format);
      const bytes = utf8Bytes(value);
      if (bytes > LIMITS.ketcherExportBytes) {
        throw tooLarge(`The ${format} export`, '/format', bytes, LIMITS.ketcherExportBytes, 'bytes', 'Ask for a compacter format (smiles), or save it with request_persist.');
      }
      text = `Ketcher ${target.targetId}: ${format}, ${bytes} bytes, at structure revision ${before.structureRevision}.`;
      break;
    }
    case 'request_persist':
      text = await persist(args, target);
      break;
  }
  const after = target.state();
  return {
    output: {
      editor: after,
      action: args.action,
      changed: changes.length > 0,
      previousRevision: before.revision,
      ...(value !== undefined ? { value, format: args.format ?? 'smiles', bytes: utf8Bytes(value) } : {}),
      replayed: false
    },
    text,
    changes,
    summary: text
  };
}, { uiInput: KetcherControlUiInput });
