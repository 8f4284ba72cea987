/**
 * The handoff of an exported file (one HTML file a cell or an agent wrote: `molspace/app/export.py`):
 * the one tool result the file carries in `<script type="application/json" id="molspace-export">`,
 * handed to the App (`./viewerApp.ts`), which runs next in the same file. No host, no model, no
 * network: it runs before the App's script and sets {@link HANDOFF_KEY}.
 */
import type { CallToolResult } from '@modelcontextprotocol/client';

import { HANDOFF_KEY, type AppHandoff } from './appHandoff';

/** The id of the data block an exported file carries. */
export const EXPORT_DATA_ID = 'molspace-export';

interface ExportData {
  result: CallToolResult;
  dark?: boolean;
}

function exported(): ExportData | null {
  const text = document.getElementById(EXPORT_DATA_ID)?.textContent ?? '';
  try {
    const data = JSON.parse(text) as ExportData;
    return data && typeof data === 'object' && data.result && typeof data.result === 'object' ? data : null;
  } catch {
    return null;
  }
}

const data = exported();
if (data) {
  const handoff: AppHandoff = {
    dark: () => data.dark ?? matchMedia('(prefers-color-scheme: dark)').matches,
    tell: () => undefined,
    onResult: listener => listener(data.result)
  };
  (globalThis as Record<string, unknown>)[HANDOFF_KEY] = handoff;
} else {
  // Located, without the App's code (which has not run yet): the App then reports it started without a handoff.
  document.documentElement.dataset.molspaceApp = 'error';
  const box = document.getElementById('molspace-app-error');
  if (box) {
    box.hidden = false;
    box.textContent = `INVALID_INPUT at #${EXPORT_DATA_ID}: this file's data block is missing or not JSON. Fix: export it again (to_html).`;
  }
}
