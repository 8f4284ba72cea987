/**
 * The App following a widget docked in a JupyterLab page (docs/architecture.md, "MCP App"):
 * when a tool result names the docked Viewer or Story it showed (`open` with a page open), the
 * App reads that widget's state through the host (`tools/call` of `viewer_observe` /
 * `story_observe` with `{target}`, which the gateway answers from its read mirror without the
 * page's main thread) every `LIMITS.appFollowMs` while the App is visible, and redraws when the
 * revision moved: the model's later `act` / `story_control` calls, a cell's changes and the
 * person's clicks in JupyterLab all reach the chat.
 *
 * The Panel App follows its panel the same way through the panel's resource
 * (`AppPanel.follow.uri`, `resources/read`; see `./appPanelFollow.ts`), which the gateway keeps
 * with the latest `render_panel` of that `panelId`: `read` then replaces the observe call.
 *
 * A widget that is gone (`NOT_FOUND`, `STALE_TARGET`: closed, its kernel restarted) ends the
 * following, told once through `lost`; a transient failure (`NO_PAGE` while a page reloads,
 * `TIMEOUT`, the host's transport) waits longer, up to `LIMITS.appFollowMs` × 10, and goes on. A
 * host that forwards no tool calls (JSON-RPC "method not found") ends it quietly.
 */
import type { CallToolResult } from '@modelcontextprotocol/client';

import { MolspaceError, type LocatedError } from '../contract/errors';
import { LIMITS } from '../contract/limits';
import { errorOfResult, type DockedWidget } from './appResult';

/** A tool call through the host (`tools/call`), answered as the host hands it over. */
export type CallTool = (name: string, args: Record<string, unknown>) => Promise<CallToolResult>;

/** Error codes that mean the docked widget is gone for good. */
const GONE: ReadonlySet<string> = new Set(['NOT_FOUND', 'STALE_TARGET']);
/** JSON-RPC "method not found": the host forwards no `tools/call`. */
const METHOD_NOT_FOUND = -32601;
/** The longest wait between reads after failures, in periods. */
const MAX_BACKOFF = 10;

/** A read of what is followed, answered as a tool result whose `structuredContent[kind].revision` says whether it moved. */
export type FollowRead = () => Promise<CallToolResult>;

export interface FollowOptions {
  /** Reads a docked widget through its observe tool, where `read` is not given. */
  call?: CallTool;
  /** Reads what is followed some other way (a panel's resource); `what` names it in errors. */
  read?: { what: string; read: FollowRead };
  widget: DockedWidget;
  /** Called with each answer (its `structuredContent`, and whole) whose revision differs from the last one seen; awaited before the next read. */
  changed(structured: Record<string, unknown>, result: CallToolResult): Promise<void>;
  /** Called when the widget is gone (following ended) or a read failed (it goes on). */
  lost(error: LocatedError, ended: boolean): void;
  /** Time between reads, ms (default `LIMITS.appFollowMs`). */
  periodMs?: number;
  /** Whether the App is out of sight (no reads then); default: the document is hidden. */
  hidden?: () => boolean;
}

export class AppFollower {
  private timer: ReturnType<typeof setTimeout> | null = null;
  private stopped = false;
  private revision: number;
  private failures = 0;
  private readonly period: number;

  constructor(private readonly o: FollowOptions) {
    this.revision = o.widget.revision;
    this.period = o.periodMs ?? LIMITS.appFollowMs;
    this.schedule(this.period);
  }

  /** The docked widget followed. */
  get widget(): DockedWidget {
    return this.o.widget;
  }

  /** Whether it still follows. */
  get following(): boolean {
    return !this.stopped;
  }

  /** Record `revision` as seen (the answer of the App's own control call), so it is not drawn twice. */
  seen(revision: number): void {
    this.revision = revision;
  }

  /** Stop following (another result replaces what the App shows). */
  stop(): void {
    this.stopped = true;
    if (this.timer !== null) {
      clearTimeout(this.timer);
      this.timer = null;
    }
  }

  private schedule(ms: number): void {
    if (!this.stopped) {
      this.timer = setTimeout(() => void this.tick(), ms);
    }
  }

  private async tick(): Promise<void> {
    this.timer = null;
    const hidden = this.o.hidden ?? (() => document.hidden);
    if (hidden()) {
      this.schedule(this.period);
      return;
    }
    const { kind, target } = this.o.widget;
    const tool = this.o.read?.what ?? (kind === 'viewer' ? 'viewer_observe' : 'story_observe');
    let failed: LocatedError | null = null;
    try {
      const result = this.o.read ? await this.o.read.read() : await this.o.call!(tool, { target });
      if (this.stopped) {
        return;
      }
      failed = errorOfResult(result);
      if (!failed && result.isError) {
        failed = new MolspaceError('INTERNAL', `${tool} failed without a located error.`, target, 'Call it again.', {}).toJSON();
      }
      if (!failed) {
        const structured = (result.structuredContent ?? {}) as Record<string, unknown>;
        const revision = (structured[kind] as { revision?: unknown } | undefined)?.revision;
        this.failures = 0;
        if (Number.isSafeInteger(revision) && revision !== this.revision) {
          this.revision = revision as number;
          await this.o.changed(structured, result);
        }
      }
    } catch (e) {
      if ((e as { code?: unknown })?.code === METHOD_NOT_FOUND) {
        this.stop(); // the host forwards no tool calls: the App shows what it has
        return;
      }
      failed = MolspaceError.from(e, `App ${tool}`).toJSON();
    }
    if (this.stopped) {
      return;
    }
    if (failed) {
      const ended = GONE.has(failed.code);
      if (ended) {
        this.stop();
      }
      this.o.lost(failed, ended);
      if (ended) {
        return;
      }
      this.failures = Math.min(this.failures + 1, MAX_BACKOFF);
    }
    this.schedule(this.period * Math.max(1, this.failures));
  }
}
