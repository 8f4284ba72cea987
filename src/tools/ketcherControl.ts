/**
 * `ketcher_control`: revision-checked operations on a Ketcher editor. The
 * Dispatcher has queued the call behind earlier ones on this editor, waited
 * for its engine and checked `expectedRevision` against the structure
 * revision; this checks the bounds (`LIMITS.ketcher*`, TOO_LARGE naming the
 * limit) and runs the action. A person's drawing arrives here too, as a `ui`
 * `set_structure` of the editor's KET (docs/architecture.md, "Ketcher").
 */
import {
  KETCHER_CONTROL_TOOL,
  KetcherControlUiInput,
  LIMITS,
  MolspaceError,
  type ChangeEntry,
  type KetcherControlInput,
  type KetcherControlOutput
} from '../contract';
import { KETCHER_EXTENSIONS, persistFormat } from '../ketcher/ketcherFiles';
import type { KetcherTarget } from '../ketcher/ketcherTarget';
import { defineWidgetTool, type ToolAnswer } from '../dispatcher/pageTool';
import type { WorkspaceFiles } from '../resources/workspaceFiles';

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

/** Where `request_persist` stands: saved, or waiting for the person (not an error). */
interface PersistOutcome {
  text: string;
  pending: boolean;
  path: string;
  format: string;
}

/**
 * Ask (or ask again) to save, or report the answer.
 *
 * @throws MolspaceError `FORBIDDEN` (refused, failed, an existing file without
 *   overwrite; `details.refused`), `UNSUPPORTED_FORMAT`, `INVALID_INPUT`.
 */
async function persist(files: WorkspaceFiles, args: KetcherControlInput, target: KetcherTarget): Promise<PersistOutcome> {
  const path = required(args, 'path');
  const format = persistFormat(path, args.format);
  const { checkStoryPath } = await import('../resources/workspaceFiles');
  const clean = checkStoryPath(path, KETCHER_EXTENSIONS[format]);
  const earlier = target.persistRequest(clean);
  const revision = target.state().structureRevision;
  if (earlier?.status === 'saved' && earlier.revision === revision) {
    return { text: `Saved to ${clean} (${earlier.format}) at structure revision ${revision}.`, pending: false, path: clean, format };
  }
  if (earlier?.status === 'awaiting') {
    return awaiting(clean, format);
  }
  if (earlier?.status === 'refused' || earlier?.status === 'failed') {
    const refused = earlier.status === 'refused';
    target.askPersist(clean, format, args.overwrite, true);
    throw new MolspaceError(
      'FORBIDDEN',
      refused ? `The person refused to save the structure to ${clean}.` : earlier.message,
      '/path',
      refused
        ? 'Ask the person whether to save; call request_persist again to ask once more.'
        : 'Check the path, then call request_persist again.',
      { path: clean, refused }
    );
  }
  if (!args.overwrite && (await files.fileExists(clean))) {
    throw new MolspaceError(
      'FORBIDDEN',
      `"${clean}" exists; request_persist does not overwrite it.`,
      '/overwrite',
      'Pass overwrite: true to replace it, or choose another path.',
      {
        path: clean
      }
    );
  }
  target.askPersist(clean, format, args.overwrite, false);
  return awaiting(clean, format);
}

function awaiting(path: string, format: string): PersistOutcome {
  return {
    text:
      `Pending: waiting for the person to press Save or Refuse in the editor (${path}, ${format}). ` +
      `Call request_persist again with the same path (waitMs up to ${LIMITS.personWaitMs} waits for the answer).`,
    pending: true,
    path,
    format
  };
}

/** The actions that change the editor: an agent's retry of one a page applied unanswered is replayed. */
const CHANGES: ReadonlySet<KetcherControlInput['action']> = new Set(['set_structure', 'clear_structure', 'highlight_atoms']);

/**
 * A retry of a change a page applied without answering (reloaded meanwhile): the editor as it is
 * now. Reads (`get_structure`) and `request_persist` (its own record is the save request) keep no
 * such record: their retry runs again.
 */
function replayed(target: KetcherTarget, args: KetcherControlInput): ToolAnswer<typeof KETCHER_CONTROL_TOOL.output> {
  const now = target.state();
  const output: KetcherControlOutput = {
    editor: now,
    action: args.action,
    changed: false,
    previousRevision: now.revision,
    status: 'done',
    replayed: true
  };
  return {
    output,
    text: `Ketcher ${target.targetId}: this change was applied by a page that was reloaded before it answered. Structure revision ${now.structureRevision}.`
  };
}

/** Stop waiting this long before the gateway's deadline, so the pending answer still reaches the agent. */
const DEADLINE_MARGIN_MS = 2000;

export const ketcherControl = defineWidgetTool(
  KETCHER_CONTROL_TOOL,
  async ({ args, target, source, files, deadline }) => {
    const before = target.state();
    let changes: ChangeEntry[] = [];
    let value: string | undefined;
    let text: string;
    switch (args.action) {
      case 'set_structure': {
        const v = required(args, 'value');
        const bytes = utf8Bytes(v);
        if (source !== 'ui' && bytes > LIMITS.ketcherInlineBytes) {
          throw tooLarge(
            'The structure',
            '/value',
            bytes,
            LIMITS.ketcherInlineBytes,
            'bytes',
            'Send a smaller structure, or open the file with molspace.Ketcher(path) in a cell.'
          );
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
          throw tooLarge(
            `The ${format} export`,
            '/format',
            bytes,
            LIMITS.ketcherExportBytes,
            'bytes',
            'Ask for a compacter format (smiles), or save it with request_persist.'
          );
        }
        text = `Ketcher ${target.targetId}: ${format}, ${bytes} bytes, at structure revision ${before.structureRevision}.`;
        break;
      }
      case 'request_persist': {
        const outcome = await persist(files, args, target);
        const answer = (o: PersistOutcome) => ({
          output: {
            editor: target.state(),
            action: args.action,
            changed: false,
            previousRevision: before.revision,
            ...persistStatus(o),
            replayed: false
          },
          text: o.text,
          summary: o.text
        });
        const room = deadline === undefined ? args.waitMs : Math.min(args.waitMs, deadline - Date.now() - DEADLINE_MARGIN_MS);
        if (!outcome.pending || room <= 0) {
          return answer(outcome);
        }
        // Wait for the person after the editor's queue is released (their own edits go on).
        return {
          ...answer(outcome),
          settle: async () => {
            await target.whenPersistAnswered(outcome.path, room);
            return answer(await persist(files, args, target));
          }
        };
      }
    }
    const after = target.state();
    return {
      output: {
        editor: after,
        action: args.action,
        changed: changes.length > 0,
        previousRevision: before.revision,
        ...(value !== undefined ? { value, format: args.format ?? 'smiles', bytes: utf8Bytes(value) } : {}),
        status: 'done' as const,
        replayed: false
      },
      text,
      changes,
      summary: text
    };
  },
  { uiInput: KetcherControlUiInput, replayed, replays: args => CHANGES.has(args.action) }
);

function persistStatus(o: PersistOutcome) {
  return o.pending
    ? {
        status: 'pending' as const,
        retryAfterMs: LIMITS.personRetryAfterMs,
        waitingFor: `The person to press Save or Refuse in the editor (${o.path}).`
      }
    : { status: 'done' as const };
}
