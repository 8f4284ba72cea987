/**
 * One entry of a tool result's `_meta` for the App (src/contract/app.ts), checked against its
 * schema: absent is null, a wrong shape a located `INVALID_INPUT` at `_meta/<key>/<path>`.
 */
import type { CallToolResult } from '@modelcontextprotocol/client';
import type { z } from 'zod';

import { MolspaceError } from '../contract/errors';

/** Where `key` of `_meta` is, as a JSON pointer (`/` in the key as `~1`). */
export function metaWhere(key: string): string {
  return `_meta/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`;
}

/**
 * `_meta[key]` of `result` parsed by `schema`, or null when absent.
 *
 * @param what - what it is (`structure`, `Story`, `depiction`), for the message.
 * @param tool - the molspace tool whose results carry it, for the fix.
 * @throws MolspaceError `INVALID_INPUT` at `_meta/<key>/<path>` when it has the wrong shape.
 */
export function appMetaOf<S extends z.ZodType>(
  result: CallToolResult,
  key: string,
  schema: S,
  what: string,
  tool: string
): z.infer<S> | null {
  const meta = (result._meta ?? {}) as Record<string, unknown>;
  if (!(key in meta)) {
    return null;
  }
  const parsed = schema.safeParse(meta[key]);
  if (!parsed.success) {
    const where = metaWhere(key);
    const issue = parsed.error.issues[0];
    throw new MolspaceError(
      'INVALID_INPUT',
      `The tool result's ${what} for the App has the wrong shape: ${issue.message}.`,
      issue.path.length ? `${where}/${issue.path.join('/')}` : where,
      `Show it with a molspace tool (${tool}): its results carry the ${what} in this shape.`,
      { path: issue.path.map(String) }
    );
  }
  return parsed.data;
}
