/**
 * `panel_export`: a panel's content written as a file under the Jupyter root
 * through JupyterLab's contents manager, with the path rules of Story files
 * (`../resources/workspaceFiles.ts`: FORBIDDEN for absolute, `~`, URL and `..`
 * paths and for an existing file without `overwrite`; UNSUPPORTED_FORMAT at
 * `/path` for an ending other than the panel type's).
 */
import { MolspaceError, PANEL_EXPORT_EXTENSIONS, PANEL_EXPORT_TOOL } from '../contract';
import { checkStoryPath } from '../resources/workspaceFiles';
import { panelFileText } from '../panel/panelFile';
import { defineWidgetTool } from '../dispatcher/pageTool';

export const panelExport = defineWidgetTool(PANEL_EXPORT_TOOL, async ({ args, target, files }) => {
  const state = target.state();
  const content = target.content();
  if (content === null || state.error !== null) {
    throw new MolspaceError(
      'VALIDATION_FAILED',
      `Panel "${state.panelId}" shows no valid content to export${state.error ? ` (${state.error.code}: ${state.error.message})` : ''}.`,
      '/target',
      'Give the panel valid content with render_panel first.',
      { panelId: state.panelId }
    );
  }
  const path = checkStoryPath(args.path, [PANEL_EXPORT_EXTENSIONS[content.type]]);
  const text = panelFileText(content);
  const replaced = await files.writeStoryFile(path, text, args.overwrite);
  const bytes = new TextEncoder().encode(text).length;
  return {
    output: { path, panelId: state.panelId, type: content.type, bytes, replaced },
    text: `panel_export: ${content.type} panel "${state.panelId}" written to ${path} (${bytes} bytes${replaced ? ', replaced' : ''}).`
  };
});
