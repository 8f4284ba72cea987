/**
 * Files a Ketcher editor saves (`request_persist`): the extension each
 * format is written with, and the format a path's extension names. Writing
 * goes through JupyterLab's contents manager (`../resources/workspaceFiles.ts`),
 * so the server's root confinement and authentication apply.
 */
import { MolspaceError, type KetcherFormat } from '../contract';

/** File name endings per format; the first is the one suggested. */
export const KETCHER_EXTENSIONS: Record<KetcherFormat, readonly string[]> = {
  smiles: ['.smi', '.smiles'],
  molfile: ['.mol'],
  'molfile-v3000': ['.mol'],
  ket: ['.ket'],
  sdf: ['.sdf', '.sd'],
  smarts: ['.sma', '.smarts'],
  inchi: ['.inchi'],
  cml: ['.cml']
};

/**
 * The format to save `path` in: `given`, else the one its extension names.
 *
 * @throws MolspaceError `UNSUPPORTED_FORMAT` at `/path` for an extension no format uses.
 */
export function persistFormat(path: string, given: KetcherFormat | undefined): KetcherFormat {
  if (given) {
    return given;
  }
  const lower = path.toLowerCase();
  for (const [format, endings] of Object.entries(KETCHER_EXTENSIONS) as [KetcherFormat, readonly string[]][]) {
    if (endings.some(e => lower.endsWith(e))) {
      return format;
    }
  }
  const all = [...new Set(Object.values(KETCHER_EXTENSIONS).flat())];
  throw new MolspaceError(
    'UNSUPPORTED_FORMAT',
    `"${path}" does not end with a chemical file extension.`,
    '/path',
    `Name the file with one of ${all.join(', ')}, or pass format.`,
    {
      path,
      extensions: all
    }
  );
}
