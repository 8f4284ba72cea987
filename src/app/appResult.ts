/**
 * Reading a molspace tool result in the App: its located error (an error result's second text
 * line is the error as JSON, `errorResultText` in src/contract/errors.ts) and the docked widget it
 * names (`structuredContent.viewer` or `.story`, with its revision).
 */
import type { CallToolResult } from '@modelcontextprotocol/client';

import { LocatedError } from '../contract/errors';

/** The located error of an error result, or null (not an error, or not one molspace wrote). */
export function errorOfResult(result: CallToolResult): LocatedError | null {
  if (!result.isError) {
    return null;
  }
  const text = result.content.find((c: { type: string }) => c.type === 'text');
  const json = text && 'text' in text ? text.text.split('\n')[1] : undefined;
  try {
    const parsed = LocatedError.safeParse(json ? JSON.parse(json) : null);
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/** A widget docked in a JupyterLab page, as a tool result names it. */
export interface DockedWidget {
  /** A docked Viewer or Story, or a panel the gateway keeps for chat Apps (`AppPanel.follow`). */
  kind: 'viewer' | 'story' | 'panel';
  /** Its widget id (`target` of the tools); a panel's resource URI. */
  target: string;
  revision: number;
}

/** The docked Viewer or Story `result` names (`open` with a page), or null. */
export function dockedOf(result: CallToolResult): DockedWidget | null {
  const s = (result.structuredContent ?? {}) as Record<string, unknown>;
  for (const kind of ['story', 'viewer'] as const) {
    const w = s[kind] as { target?: unknown; revision?: unknown } | undefined;
    if (w && typeof w.target === 'string' && w.target && Number.isSafeInteger(w.revision)) {
      return { kind, target: w.target, revision: w.revision as number };
    }
  }
  return null;
}
