/**
 * WebMCP: molspace's page tools registered with the browser's model context
 * (`document.modelContext`, or `navigator.modelContext` in earlier Chromium
 * builds; behind `--enable-features=WebMCP`), so browser-side agents call them
 * directly. Same contract, same Dispatcher, same results and located errors as
 * agents over the gateway; calls appear in the activity panel as
 * `agent (WebMCP)`. Off when the API is absent; nothing else in molspace knows
 * about it.
 *
 * A tool that acts on one kind of widget is registered only while a widget of
 * that kind is live, so the tool list follows the page.
 */
import { z } from 'zod';
import { MolspaceError, TOOLS, type ToolSpec } from '../contract';
import { errorResultText } from '../contract/errors';
import type { IMolspacePage } from '../tokens';

/** The slice of the WebMCP API molspace uses. */
interface ModelContextTool {
  name: string;
  description: string;
  inputSchema: object;
  annotations: { readOnlyHint: boolean; untrustedContentHint: boolean };
  execute(input: object): Promise<object>;
}

interface ModelContext {
  /** Chromium 156 returns a promise, which rejects with an AbortError once `signal` aborts. */
  registerTool(tool: ModelContextTool, options?: { signal?: AbortSignal }): unknown;
  unregisterTool?(name: string): unknown;
}

/**
 * Settle what a model context call returned, when it is a promise: an
 * AbortError is the end of a registration that molspace asked for (the
 * widget kind left the page); anything else is logged, located by tool name.
 * Unhandled, the rejection would reach the page as an uncaught error.
 */
function settle(returned: unknown, name: string): void {
  if (typeof (returned as PromiseLike<unknown> | null)?.then === 'function') {
    Promise.resolve(returned).catch((e: unknown) => {
      if ((e as { name?: unknown } | null)?.name !== 'AbortError') {
        console.warn(`molspace: WebMCP could not register or unregister the tool "${name}"`, e);
      }
    });
  }
}

/** The browser's model context, or null where WebMCP is absent. */
export function findModelContext(): ModelContext | null {
  for (const holder of [document, navigator]) {
    if ('modelContext' in holder && isModelContext(holder.modelContext)) {
      return holder.modelContext;
    }
  }
  return null;
}

function isModelContext(value: unknown): value is ModelContext {
  return typeof value === 'object' && value !== null && 'registerTool' in value && typeof value.registerTool === 'function';
}

/** The client name calls made through WebMCP carry (shown in the activity panel). */
export const WEBMCP_CLIENT = { name: 'WebMCP', version: '' };

/**
 * Register the page tools with `context`, following the widget registry.
 *
 * @returns a function that unregisters everything.
 */
export function startWebMcp(page: IMolspacePage, context: ModelContext): () => void {
  const registered = new Map<string, AbortController>();
  const pageTools = TOOLS.filter(t => t.runs === 'page');

  const sync = () => {
    for (const spec of pageTools) {
      const wanted = spec.target === null || page.registry.list().some(w => w.kind === spec.target);
      if (wanted && !registered.has(spec.name)) {
        const controller = new AbortController();
        settle(context.registerTool(toolOf(spec, page), { signal: controller.signal }), spec.name);
        registered.set(spec.name, controller);
      } else if (!wanted && registered.has(spec.name)) {
        unregister(spec.name);
      }
    }
  };
  const unregister = (name: string) => {
    registered.get(name)?.abort();
    registered.delete(name);
    try {
      settle(context.unregisterTool?.(name), name);
    } catch {
      // already gone with the abort signal
    }
  };

  sync();
  page.registry.changed.connect(sync);
  return () => {
    page.registry.changed.disconnect(sync);
    [...registered.keys()].forEach(unregister);
  };
}

function toolOf(spec: ToolSpec, page: IMolspacePage): ModelContextTool {
  return {
    name: spec.name,
    description: spec.description,
    inputSchema: z.toJSONSchema(spec.input, { io: 'input', target: 'draft-2020-12', unrepresentable: 'any' }),
    annotations: {
      readOnlyHint: spec.annotations.readOnlyHint,
      // Story titles and descriptions are written by people and other tools.
      untrustedContentHint: spec.annotations.readOnlyHint
    },
    async execute(input: object) {
      try {
        const result = await page.dispatcher.execute(spec.name, input, {
          source: 'agent',
          context: { pageId: 'webmcp', pages: [], client: WEBMCP_CLIENT }
        });
        const images = (result.images ?? []).map(i => ({ type: 'image', data: i.data, mimeType: i.mimeType }));
        return { content: [{ type: 'text', text: result.text }, ...images], structuredContent: result.structuredContent };
      } catch (e) {
        const error = MolspaceError.from(e, spec.name).toJSON();
        return { content: [{ type: 'text', text: errorResultText(error) }], isError: true };
      }
    }
  };
}
