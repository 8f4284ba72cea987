/** Types of harness.js (the helpers the Galata tests and the benchmarks share); see there. */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';

export declare const MCP_PATH: string;
export declare const KERNELSPEC: { display_name: string; language: string; name: string };
export declare function notebookJson(sources?: string[]): string;
export declare function waitForServer(
  url: string,
  token: string,
  opts?: { timeoutMs?: number; stillStarting?: () => string | null }
): Promise<number>;
export declare function connectMcp(opts: { server: string; token: string | null; name: string; listTools?: boolean }): Promise<Client>;
export declare function readToolResult(result: { isError?: boolean; structuredContent?: unknown; content?: unknown }): [any, boolean];
