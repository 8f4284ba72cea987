/**
 * A chart that passed Vega-Lite's JSON schema (`chartSchema.ts`) can still be
 * refused when Vega compiles it: a field access path such as `"a["` (Vega
 * reads `.`, `[` and `]` in field names as nesting), an unknown data
 * reference. That is the spec's fault, so it is a located
 * `VALIDATION_FAILED`, never an `INTERNAL` (docs/architecture.md, "Report panels").
 */
import { MolspaceError } from '../contract/errors';
import { cutText } from '../contract/budget';

/** Characters of Vega's own message carried in the error. */
const VEGA_MESSAGE_CHARS = 300;

/**
 * The located error of a chart Vega refused to render.
 *
 * @param spec - the Vega-Lite spec as given (`content.spec`).
 * @param error - what the renderer threw.
 * @returns `VALIDATION_FAILED` at the `field` whose value Vega's message names
 *   (`/content/spec/encoding/x/field`), else at `/content/spec`; Vega's message
 *   in `details.vegaMessage`.
 */
export function chartRenderError(spec: unknown, error: unknown): MolspaceError {
  const said = cutText(error instanceof Error ? error.message : String(error), VEGA_MESSAGE_CHARS);
  const at = fieldNamed(spec, said, '');
  const where = `/content/spec${at ?? ''}`;
  return new MolspaceError(
    'VALIDATION_FAILED',
    `Vega could not render the chart at ${where}: ${said}`,
    where,
    at === null
      ? 'Correct the chart spec (Vega-Lite v5) as the message says, or show the data as a table.'
      : `Correct the field name at ${where}: Vega reads ".", "[" and "]" in field names as nesting; escape them with "\\\\" or rename the column.`,
    { vegaMessage: said }
  );
}

/** The JSON pointer (under the spec) of a `field` whose value ends Vega's message, or null. */
function fieldNamed(value: unknown, message: string, path: string): string | null {
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = fieldNamed(value[i], message, `${path}/${i}`);
      if (found !== null) {
        return found;
      }
    }
    return null;
  }
  if (typeof value !== 'object' || value === null) {
    return null;
  }
  for (const [key, v] of Object.entries(value)) {
    const here = `${path}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`;
    if (key === 'field' && typeof v === 'string' && v !== '' && message.endsWith(v)) {
      return here;
    }
    const found = fieldNamed(v, message, here);
    if (found !== null) {
      return found;
    }
  }
  return null;
}
