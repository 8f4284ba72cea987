/**
 * What the App (`./viewerApp.ts`) is handed by what starts it: in a chat, the loader
 * (`./appLoader.ts`), connected to the host, with the tool results the host sent so far
 * and each later one (results that arrive before the App runs are kept, not lost); in an
 * exported file, `./exportHandoff.ts`, with the one result the file carries.
 */
import type { CallToolResult, ReadResourceResult } from '@modelcontextprotocol/client';

/** The global the loader sets before it runs the App's script. */
export const HANDOFF_KEY = '__molspaceAppHandoff';
/** The global the App sets as its script starts (the loader tells a blocked script by its absence). */
export const STARTED_KEY = '__molspaceAppStarted';

export interface AppHandoff {
  /** Whether the host (or the reader's system) is dark. */
  dark(): boolean;
  /** Tell the model what the App shows (`ui/update-model-context`); nothing where no model reads. */
  tell(text: string, structured?: Record<string, unknown>): void;
  /** Call `listener` with each tool result kept so far, in order, then with each later one. */
  onResult(listener: (result: CallToolResult) => void): void;
  /**
   * Call a molspace tool through the host (`tools/call`), as the host hands the result over;
   * absent where no server is reachable (an exported file).
   */
  call?(name: string, args: Record<string, unknown>): Promise<CallToolResult>;
  /** Read a molspace resource through the host (`resources/read`); absent where no server is reachable. */
  read?(uri: string): Promise<ReadResourceResult>;
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
