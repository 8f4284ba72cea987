/** Arguments that do not match a tool's input schema, as one located error. */
import type { z } from 'zod';
import { MolspaceError } from '../contract';

/**
 * Turn zod's issues into a located `INVALID_INPUT` error: `where` is the JSON
 * pointer of the first issue (an unknown field is located at the field
 * itself, not its parent object); `details.issues` lists every issue.
 */
export function invalidInput(tool: string, error: z.ZodError): MolspaceError {
  const issues = error.issues.map(i => {
    const path = i.code === 'unrecognized_keys' ? [...i.path, i.keys[0]] : i.path;
    return {
      pointer: '/' + path.map(p => String(p).replace(/~/g, '~0').replace(/\//g, '~1')).join('/'),
      message: i.message
    };
  });
  const first = issues[0];
  return new MolspaceError(
    'INVALID_INPUT',
    `${tool}: ${first.pointer === '/' ? 'arguments' : first.pointer}: ${first.message}`,
    first.pointer,
    `Correct ${first.pointer === '/' ? 'the arguments' : first.pointer}; describe {tool: "${tool}"} gives the full input schema.`,
    { tool, issues }
  );
}
