/** Test helper: await a promise that must reject with a located MolspaceError, and return it. */
import { MolspaceError } from '../contract';

export async function expectFailure(p: Promise<unknown>): Promise<MolspaceError> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(MolspaceError);
    return e as MolspaceError;
  }
  throw new Error('expected the call to fail with a MolspaceError');
}
