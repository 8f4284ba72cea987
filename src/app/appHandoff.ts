/**
 * What the App's loader (`./appLoader.ts`) hands the App it loads (`./viewerApp.ts`):
 * the connected MCP Apps `App` and the tool results the host sent so far, then each
 * later one. The loader connects first (it reads the App's script parts through the
 * host), so results that arrive before the App runs are kept, not lost.
 */
import type { App } from '@modelcontextprotocol/ext-apps';
import type { CallToolResult } from '@modelcontextprotocol/client';

/** The global the loader sets before it runs the App's script. */
export const HANDOFF_KEY = '__molspaceAppHandoff';
/** The global the App sets as its script starts (the loader tells a blocked script by its absence). */
export const STARTED_KEY = '__molspaceAppStarted';

export interface AppHandoff {
  /** The App, connected to the host (`ui/initialize` done). */
  readonly app: App;
  /** Call `listener` with each tool result kept so far, in order, then with each later one. */
  onResult(listener: (result: CallToolResult) => void): void;
}

/** Buffers the host's tool results until the App listens. */
export class ResultQueue implements Pick<AppHandoff, 'onResult'> {
  private readonly kept: CallToolResult[] = [];
  private listener: ((result: CallToolResult) => void) | null = null;

  push(result: CallToolResult): void {
    if (this.listener) {
      this.listener(result);
    } else {
      this.kept.push(result);
    }
  }

  onResult(listener: (result: CallToolResult) => void): void {
    this.listener = listener;
    for (const r of this.kept.splice(0)) {
      listener(r);
    }
  }
}

/** The handoff the loader left, or null when this script runs without it. */
export function takeHandoff(): AppHandoff | null {
  (globalThis as Record<string, unknown>)[STARTED_KEY] = true;
  return ((globalThis as Record<string, unknown>)[HANDOFF_KEY] as AppHandoff | undefined) ?? null;
}
