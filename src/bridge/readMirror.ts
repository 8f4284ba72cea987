/**
 * The page's read mirror (docs/architecture.md, "Read mirror"): the answers
 * of the mirrored read tools (`mirrored: true` in the contract: `observe`,
 * `story_observe`, `viewer_observe`), computed by their own handlers for the
 * arguments agents use without paging (no arguments: the default target; and
 * `{target}` for every loaded widget of the tool's kind), pushed to the
 * gateway over the bridge whenever one changes. The gateway answers those
 * calls from it, so a read does not wait for the page's main thread, which
 * software WebGL can hold for hundreds of milliseconds per frame.
 *
 * When the answers are recomputed: a widget added or removed, the active
 * widget changed, any Dispatcher call finished, any synced state of a
 * widget model changed (ipywidgets `change`, which covers loads, draws and
 * playback), a widget finished loading, a Viewer's camera moved (checked
 * every {@link CAMERA_CHECK_MS}). Recomputing is coalesced to one run per
 * task (a microtask); {@link ReadMirror.flush} runs it at once, and the
 * bridge calls it before sending any `result`, so a call's result never
 * overtakes the answers it changed (read-your-writes: both go on one socket).
 */
import type { ISignal } from '@lumino/signaling';
import type { LastAction, MirroredRead, PageMessage, ToolSpec } from '../contract';
import { LIMITS } from '../contract/limits';
import { PAGE_TOOLS } from '../tools';
import { jsonBytes } from '../contract/budget';
import type { PageTool } from '../dispatcher/pageTool';
import type { ResourcePolicy } from '../resources/resourcePolicy';
import type { WorkspaceFiles } from '../resources/workspaceFiles';
import type { WidgetRegistry } from '../dispatcher/registry';
import type { WidgetTarget } from '../dispatcher/widgetTarget';

/** How often a Viewer's camera is compared with the mirrored one, ms (a person may turn it). */
export const CAMERA_CHECK_MS = 250;

/** What the mirror reads of the Dispatcher. */
export interface MirrorDispatcher {
  readonly lastAction: LastAction | null;
  readonly files: WorkspaceFiles;
  readonly resourcePolicy: ResourcePolicy;
  readonly executed: ISignal<unknown, unknown>;
}

export interface ReadMirrorOptions {
  registry: WidgetRegistry;
  dispatcher: MirrorDispatcher;
  /** Page tool handlers (default `PAGE_TOOLS`); those whose spec is `mirrored` are mirrored. */
  tools?: readonly PageTool[];
}

/** A backbone model's event methods (ipywidgets models have them; docked panels do not). */
interface Evented {
  on(event: string, callback: () => void): void;
  off(event: string, callback: () => void): void;
}

function isEvented(x: unknown): x is Evented {
  return typeof (x as Evented).on === 'function' && typeof (x as Evented).off === 'function';
}

/** Arguments with sorted keys: one key per (tool, arguments). */
export function readKey(tool: string, args: Record<string, unknown>): string {
  const sorted = Object.fromEntries(
    Object.keys(args)
      .sort()
      .map(k => [k, args[k]])
  );
  return `${tool} ${JSON.stringify(sorted)}`;
}

type Frame = Extract<PageMessage, { type: 'reads' }>;

export class ReadMirror {
  private readonly _registry: WidgetRegistry;
  private readonly _dispatcher: MirrorDispatcher;
  private readonly _tools: readonly PageTool[];
  private readonly _loaded = new Set<WidgetTarget>();
  private readonly _watched = new Map<WidgetTarget, () => void>();
  /** What the gateway holds: key → JSON of the entry sent. */
  private _sent = new Map<string, { json: string; tool: string; args: Record<string, unknown> }>();
  private _send: ((frame: Frame) => void) | null = null;
  private _pageId = '';
  private _scheduled = false;
  private _running: Promise<void> = Promise.resolve();
  private _cameras = new Map<WidgetTarget, string>();
  private _cameraTimer: ReturnType<typeof setInterval> | null = null;

  constructor(options: ReadMirrorOptions) {
    this._registry = options.registry;
    this._dispatcher = options.dispatcher;
    this._tools = (options.tools ?? PAGE_TOOLS).filter(t => t.spec.mirrored === true && t.spec.runs === 'page');
    this._registry.changed.connect(this._onWidgets);
    this._registry.activeChanged.connect(this.schedule);
    this._dispatcher.executed.connect(this.schedule);
    this._onWidgets();
  }

  /** The mirrored tools' specs. */
  get specs(): ToolSpec[] {
    return this._tools.map(t => t.spec);
  }

  /**
   * Start pushing to a gateway that holds nothing yet (after its `welcome`).
   *
   * @param pageId - this page's id at the gateway (`observe`'s `pageId`).
   */
  attach(pageId: string, send: (frame: Frame) => void): void {
    this._pageId = pageId;
    this._send = send;
    this._sent = new Map();
    this.schedule();
  }

  /** Stop pushing (the socket closed; the gateway forgets the page's mirror). */
  detach(): void {
    this._send = null;
    this._sent = new Map();
  }

  /** Recompute once the current task has finished. */
  readonly schedule = (): void => {
    if (this._scheduled || this._send === null) {
      return;
    }
    this._scheduled = true;
    queueMicrotask(() => void this.flush());
  };

  /** Recompute now and push what changed; resolves once the frame is sent. Runs one at a time. */
  flush(): Promise<void> {
    this._scheduled = false;
    const run = this._running.then(() => this._push());
    this._running = run.catch(() => undefined);
    return run;
  }

  dispose(): void {
    this.detach();
    this._registry.changed.disconnect(this._onWidgets);
    this._registry.activeChanged.disconnect(this.schedule);
    this._dispatcher.executed.disconnect(this.schedule);
    for (const [target, off] of this._watched) {
      off();
      this._watched.delete(target);
    }
    this._setCameraTimer(false);
  }

  private async _push(): Promise<void> {
    const send = this._send;
    if (send === null) {
      return;
    }
    const now = await this._compute();
    if (this._send !== send) {
      return; // detached meanwhile
    }
    const set: MirroredRead[] = [];
    const drop: Frame['drop'] = [];
    for (const [key, entry] of now) {
      const json = JSON.stringify(entry);
      if (this._sent.get(key)?.json !== json) {
        set.push(entry);
        this._sent.set(key, { json, tool: entry.tool, args: entry.args });
      }
    }
    for (const [key, { tool, args }] of this._sent) {
      if (!now.has(key)) {
        drop.push({ tool, args });
        this._sent.delete(key);
      }
    }
    if (set.length || drop.length) {
      send({ type: 'reads', set, drop });
    }
  }

  /** Every mirrored answer the page can give now. */
  private async _compute(): Promise<Map<string, MirroredRead>> {
    const out = new Map<string, MirroredRead>();
    const env = {
      source: 'agent' as const,
      context: { pageId: this._pageId, pages: [], client: null },
      registry: this._registry,
      openers: {}, // reads dock nothing
      files: this._dispatcher.files,
      resourcePolicy: this._dispatcher.resourcePolicy,
      lastAction: this._dispatcher.lastAction
    };
    for (const tool of this._tools) {
      const argSets: Record<string, unknown>[] = [{}];
      if (tool.spec.target !== null) {
        for (const t of this._registry.list()) {
          if (t.kind === tool.spec.target) {
            argSets.push({ target: t.targetId });
          }
        }
      }
      for (const args of argSets) {
        try {
          const bound = tool.parse(args).bind(this._registry);
          if (bound.target !== null && !this._loaded.has(bound.target)) {
            continue; // a relayed call would wait for the load: leave it to the relay
          }
          const result = await bound.run(env);
          const entry: MirroredRead = { tool: tool.spec.name, args, structuredContent: result.structuredContent, text: result.text };
          if (tool.spec.target === null && 'pages' in result.structuredContent) {
            entry.pages = { bytes: jsonBytes(result.structuredContent), complete: isComplete(result.structuredContent) };
          }
          out.set(readKey(tool.spec.name, args), entry);
        } catch {
          // An error answer (e.g. no widget of the kind): not mirrored, the relay answers it.
        }
      }
    }
    return out;
  }

  /** Follow widgets in and out: their state changes, their loads, Viewer cameras. */
  private readonly _onWidgets = (): void => {
    const live = new Set(this._registry.list());
    for (const [target, off] of this._watched) {
      if (!live.has(target)) {
        off();
        this._watched.delete(target);
        this._loaded.delete(target);
        this._cameras.delete(target);
      }
    }
    for (const target of live) {
      if (this._watched.has(target)) {
        continue;
      }
      const onChange = () => this.schedule();
      if (isEvented(target)) {
        target.on('change', onChange);
      }
      this._watched.set(target, () => (isEvented(target) ? target.off('change', onChange) : undefined));
      void target.whenLoaded().then(() => {
        if (this._watched.has(target)) {
          this._loaded.add(target);
          this.schedule();
        }
      });
    }
    this._setCameraTimer([...live].some(t => t.kind === 'viewer'));
    this.schedule();
  };

  private _setCameraTimer(on: boolean): void {
    if (on && this._cameraTimer === null) {
      this._cameraTimer = setInterval(this._checkCameras, CAMERA_CHECK_MS);
    } else if (!on && this._cameraTimer !== null) {
      clearInterval(this._cameraTimer);
      this._cameraTimer = null;
    }
  }

  private readonly _checkCameras = (): void => {
    let moved = false;
    for (const target of this._watched.keys()) {
      const camera = (target as { camera?: () => unknown }).camera;
      if (target.kind !== 'viewer' || typeof camera !== 'function') {
        continue;
      }
      const now = JSON.stringify(camera.call(target));
      if (this._cameras.get(target) !== now) {
        this._cameras.set(target, now);
        moved = true;
      }
    }
    if (moved) {
      this.schedule();
    }
  };
}

/** True when an `observe` answer (default `limit`) lists all the widgets it could: none cut by the read budget. */
function isComplete(sc: Record<string, unknown>): boolean {
  const widgets = sc.widgets;
  return Array.isArray(widgets) && typeof sc.total === 'number' && widgets.length === Math.min(LIMITS.defaultWidgetsPerPage, sc.total);
}
