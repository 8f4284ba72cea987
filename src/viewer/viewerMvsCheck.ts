/**
 * `apply_mvs`: an MVS state checked as a Story's snapshot is (`parseStory`:
 * Mol*'s MVS tree validation, then the page's resource allow-list,
 * `src/resources/resourcePolicy.ts`), with every error located inside the
 * operation (docs/architecture.md, "Viewer").
 */
import { MolspaceError } from '../contract';
import { parseStory } from '../molstar/storySource';
import type { ResourcePolicy } from '../resources/resourcePolicy';

/** Re-root a Story location (`/snapshots/0/root/...`, `/metadata/...`, `/`) under `where`. */
function relocate(storyWhere: string, where: string): string {
  const inner = storyWhere.replace(/^\/snapshots\/0(?=\/|$)/, '').replace(/^\/+$/, '');
  return `${where}${inner}`;
}

/**
 * Check one MVS state.
 *
 * @param where - JSON pointer of the state in the call (`/actions/<i>/state`).
 * @throws MolspaceError `VALIDATION_FAILED` (at the first bad node, e.g.
 *   `/actions/0/state/root/children/0/params/url`; every issue in `details.issues`,
 *   paths as inside the state), `UNSUPPORTED_FORMAT` (not MVS, or several states),
 *   `FORBIDDEN` (a URL the resource policy refuses, located at its param).
 */
export async function checkMvsState(state: Record<string, unknown>, where: string, policy: ResourcePolicy): Promise<void> {
  if (state.kind === 'multiple') {
    throw new MolspaceError(
      'UNSUPPORTED_FORMAT',
      'apply_mvs draws one MVS state, not a multi-state Story.',
      `${where}/kind`,
      'Pass one state ({kind: "single", root, metadata}); show a Story with molspace.Story.',
      { kind: 'multiple' }
    );
  }
  try {
    await parseStory({ mvsj: JSON.stringify(state) }, policy);
  } catch (e) {
    const err = MolspaceError.from(e, where);
    throw new MolspaceError(err.code, err.message.replace(/the Story/g, 'the MVS state'), relocate(err.where, where), err.fix, err.details);
  }
}
