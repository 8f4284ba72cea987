/**
 * The kernel side of one widget's comm, as the page sees it: the twin of the
 * bridge client. The kernel's `control` messages run through the page's
 * Dispatcher as operations of source `kernel` on this widget, and each is
 * answered with a `result` message carrying the same fields as the bridge's
 * `result` frame. Messages: `src/contract/kernel.ts`.
 *
 * Every page showing the notebook receives every `control` message; with
 * {@link KernelChannelOptions.applied} one request is applied by one page
 * only (`appliedRequests.ts`): a page that finds it applied elsewhere
 * neither applies nor answers it.
 */
import { KernelRequest, MolspaceError, type KernelResult } from '../contract';
import { ClaimedElsewhere, type DispatchOptions, type DispatchResult } from '../dispatcher/dispatcher';

/** What the channel needs from the Dispatcher. */
export interface KernelDispatcher {
  execute(tool: string, rawArgs: unknown, options: DispatchOptions): Promise<DispatchResult>;
}

export interface KernelChannelOptions {
  /** The widget (model id) every operation of this comm acts on. */
  targetId: string;
  /** The tool a `control` message runs, e.g. `story_control`. */
  tool: string;
  /** Other tools a `control` message may name in `tool`, e.g. `['story_edit']`. */
  tools?: readonly string[];
  dispatcher: KernelDispatcher;
  /** Send one message to the kernel over the widget's comm. */
  send(message: KernelResult): void;
  /** The requests some page applied (the widget's synced `_applied_requests`); without it every request is applied. */
  applied?: { has(requestId: string): boolean; claim(requestId: string): boolean };
  /** Send the widget's pending state to the kernel (the applied request id with it), after an applied request. */
  sync?(): void;
}

export class KernelChannel {
  private readonly _options: KernelChannelOptions;

  constructor(options: KernelChannelOptions) {
    this._options = options;
  }

  /**
   * Handle one custom message from the kernel. A `control` message runs
   * `{...its arguments, target}` (its `tool`, else the channel's) through the Dispatcher and is answered with
   * one `result` (`ok: false` with a located error when the Dispatcher
   * refuses or fails); other messages are ignored. Resolves once answered;
   * never rejects.
   */
  async receive(message: unknown): Promise<void> {
    const request = KernelRequest.safeParse(message);
    if (!request.success) {
      if (isControl(message)) {
        console.warn('molspace: ignored a kernel control message without a requestId to answer', message);
      }
      return;
    }
    const { type: _type, requestId, tool: named, ...args } = request.data;
    const { targetId, dispatcher, send, applied } = this._options;
    if (applied?.has(requestId)) {
      return; // another page applied it (and answered)
    }
    const allowed = [this._options.tool, ...(this._options.tools ?? [])];
    const tool = named ?? this._options.tool;
    let answer: KernelResult;
    try {
      if (!allowed.includes(tool)) {
        throw new MolspaceError(
          'INVALID_INPUT',
          `This widget's kernel channel does not run ${tool}.`,
          '/tool',
          `Name one of: ${allowed.join(', ')}.`,
          {
            tool,
            tools: allowed
          }
        );
      }
      const options: DispatchOptions = { source: 'kernel' };
      if (applied) {
        // The claim is sent at once: ipywidgets applies the kernel's echo of this page's previous
        // update to any attribute changed but not yet sent, which would drop this id from it.
        options.claim = () => {
          const claimed = applied.claim(requestId);
          if (claimed) {
            this._sendState(requestId);
          }
          return claimed;
        };
      }
      const result = await dispatcher.execute(tool, { ...args, target: targetId }, options);
      answer = {
        type: 'result',
        requestId,
        ok: true,
        structuredContent: result.structuredContent,
        text: result.text,
        ...(result.images ? { images: result.images } : {})
      };
    } catch (e) {
      if (e instanceof ClaimedElsewhere) {
        return; // another page applied it in the meantime (and answers)
      }
      answer = { type: 'result', requestId, ok: false, error: MolspaceError.from(e, tool).toJSON() };
    }
    this._sendState(requestId);
    try {
      send(answer);
    } catch (e) {
      console.warn(`molspace: could not answer kernel request ${requestId} (the comm may be closed)`, e);
    }
  }

  /** Send the widget's pending state to the kernel (`sync`); a failure is logged, never thrown. */
  private _sendState(requestId: string): void {
    try {
      this._options.sync?.();
    } catch (e) {
      console.warn(`molspace: could not send the state for kernel request ${requestId}`, e);
    }
  }
}

/** What {@link listenToKernel} needs of a widget model. */
export interface KernelChannelModel {
  on(event: 'msg:custom', callback: (msg: unknown) => void): unknown;
  /** ipywidgets' chain of state updates from the kernel (echoes of other pages' updates included). */
  state_change?: Promise<unknown>;
}

/**
 * Hand the model's custom messages to `channel`, each after the state updates
 * that arrived before it are applied (ipywidgets applies updates
 * asynchronously, custom messages at once), so a page reads the state another
 * page's earlier update left before deciding on a request.
 */
export function listenToKernel(model: KernelChannelModel, channel: KernelChannel): void {
  model.on('msg:custom', (msg: unknown) => {
    const before = (model.state_change ?? Promise.resolve()).catch(() => undefined);
    void before.then(() => channel.receive(msg));
  });
}

function isControl(message: unknown): boolean {
  return typeof message === 'object' && message !== null && 'type' in message && message.type === 'control';
}
