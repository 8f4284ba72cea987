/**
 * What one tool of the contract is (`ToolSpec`), the arguments tools share by
 * name, and the error codes every tool of a kind can return. The per-tool
 * contract files declare their tools with {@link toolSpec}; `tools.ts` lists
 * them all (docs/architecture.md, "Contract").
 */
import type { z } from 'zod';
import { ERROR_CODES, type ErrorCode } from './errors';
import type { WidgetKind } from './workspace';

/** MCP tool annotations (hints for clients). */
export interface ToolAnnotations {
  title: string;
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

/**
 * The arguments every tool may share, by name. A tool that acts on a widget
 * takes `target`; a mutating one `expectedRevision` and `actionId`.
 */
export interface ToolArgs {
  pageId?: string;
  target?: string;
  expectedRevision?: number;
  actionId?: string;
}

/**
 * One tool of the contract.
 *
 * @typeParam I - input schema; its output is the validated arguments.
 * @typeParam O - output schema; its output is the tool's `structuredContent`.
 * @typeParam K - the widget kind the tool acts on, or null.
 */
export interface ToolSpec<
  I extends z.ZodType<ToolArgs> = z.ZodType<ToolArgs>,
  O extends z.ZodType<Record<string, unknown>> = z.ZodType<Record<string, unknown>>,
  K extends WidgetKind | null = WidgetKind | null
> {
  name: string;
  /**
   * What `tools/list` says of the tool: one or two sentences (every agent
   * pays for it on every connection). Longer usage notes go in `guide`.
   */
  description: string;
  /** Usage notes beyond `description`, returned by `describe` on demand. */
  guide?: string;
  /**
   * Argument objects that call the tool well, returned by `describe` (a part's
   * examples are those holding its tag value). Each must parse with `input`:
   * the manifest build fails otherwise.
   */
  examples?: readonly Record<string, unknown>[];
  /** Who answers it: the page's Dispatcher or the gateway itself. */
  runs: 'page' | 'gateway';
  /**
   * The MCP App (`ui://` resource, src/contract/app.ts) a host that renders Apps shows the
   * result in: `tools/list` gives it as the tool's `_meta.ui.resourceUri`.
   */
  app?: string;
  input: I;
  output: O;
  annotations: ToolAnnotations;
  /**
   * The kind of widget the tool acts on: `target` (or, when omitted, the most
   * recently active widget of this kind) is resolved before the tool runs,
   * and the tool waits until that widget has loaded. Null for tools that act
   * on no single widget.
   */
  target: K;
  /**
   * True for a tool that changes its target: calls on one target run one at a
   * time in arrival order, `expectedRevision` is checked, a retried `actionId`
   * returns the first result, and the page's `lastAction` records it.
   */
  mutating: boolean;
  /**
   * Error codes the tool itself can return, beyond those every tool of its
   * kind can (see {@link errorCodesOf}).
   */
  errors: readonly ErrorCode[];
  /**
   * A read tool the gateway may answer from the page's read mirror (answers
   * the page pushes whenever they change, `src/bridge/readMirror.ts`;
   * docs/architecture.md, "Read mirror"). Only for tools whose answer depends
   * on page state and arguments alone.
   */
  mirrored?: boolean;
}

/** Declare one tool; keeps the literal types of its schemas and target kind. */
export function toolSpec<I extends z.ZodType<ToolArgs>, O extends z.ZodType<Record<string, unknown>>, K extends WidgetKind | null>(
  spec: ToolSpec<I, O, K>
): ToolSpec<I, O, K> {
  return spec;
}

/**
 * Codes any page tool can return: the gateway's own (no page connected,
 * `pageId` not connected, the page did not answer in time, arguments that do
 * not match the input schema, an unexpected failure).
 */
export const PAGE_TOOL_ERRORS: readonly ErrorCode[] = ['NO_PAGE', 'NOT_FOUND', 'TIMEOUT', 'INVALID_INPUT', 'INTERNAL'];
/** Codes any gateway tool can return. */
export const GATEWAY_TOOL_ERRORS: readonly ErrorCode[] = ['INVALID_INPUT', 'INTERNAL'];

/** Every error code `spec` can return, in {@link ERROR_CODES} order. */
export function errorCodesOf(spec: ToolSpec): ErrorCode[] {
  const codes = new Set<ErrorCode>([...(spec.runs === 'page' ? PAGE_TOOL_ERRORS : GATEWAY_TOOL_ERRORS), ...spec.errors]);
  return ERROR_CODES.filter(c => codes.has(c));
}
