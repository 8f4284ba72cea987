/**
 * Vega-Lite specs checked against Vega-Lite's own JSON schema
 * (`vega-lite/build/vega-lite-schema.json`, bundled at build time) with Ajv,
 * and the first issue reduced to one located property. Loaded on the first
 * chart, so JupyterLab's start path carries neither the schema nor Ajv.
 */
import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import schema from 'vega-lite/build/vega-lite-schema.json';
import { version as vegaLiteVersion } from 'vega-lite/package.json';

/** One problem of a spec, at a JSON pointer into the spec. */
export interface ChartIssue {
  /** JSON pointer into the spec, e.g. `/encoding/x/type` ('' for the spec itself). */
  path: string;
  /** The property named by the issue (the unknown one, the bad one), or null. */
  property: string | null;
  keyword: string;
  message: string;
  fix: string;
  /** Allowed values, for an enum or const issue. */
  allowed: unknown[] | null;
  /** The Vega-Lite schema version checked against. */
  schemaVersion: string;
}

const SCHEMA_VERSION = `v${vegaLiteVersion}`;

let validator: ValidateFunction | null = null;

function validate(): ValidateFunction {
  if (validator === null) {
    // The Vega-Lite schema uses keywords and formats Ajv's strict mode refuses; they are annotations.
    const ajv = new Ajv({ strict: false, allErrors: false, validateFormats: false });
    validator = ajv.compile(schema);
  }
  return validator;
}

/** Rank an Ajv error: deeper first; then the most specific keyword. */
function rank(e: ErrorObject): number {
  const depth = e.instancePath === '' ? 0 : e.instancePath.split('/').length - 1;
  const keyword: Record<string, number> = { additionalProperties: 5, enum: 4, const: 3, type: 2, required: 1 };
  return depth * 10 + (keyword[e.keyword] ?? 0);
}

/** The issue of the spec's first failing check, or null when the spec is valid Vega-Lite. */
export function vegaLiteIssue(spec: unknown): ChartIssue | null {
  const check = validate();
  if (check(spec)) {
    return null;
  }
  const errors = check.errors ?? [];
  if (errors.length === 0) {
    return {
      path: '',
      property: null,
      keyword: 'schema',
      message: 'not a Vega-Lite spec',
      fix: 'Pass a Vega-Lite v5 spec.',
      allowed: null,
      schemaVersion: SCHEMA_VERSION
    };
  }
  const best = errors.reduce((a, b) => (rank(b) > rank(a) ? b : a));
  const params = best.params as Record<string, unknown>;
  const last = best.instancePath.split('/').pop() ?? '';
  const parent = best.instancePath === '' ? 'the spec' : best.instancePath.slice(1).replace(/\//g, '.');
  switch (best.keyword) {
    case 'additionalProperties': {
      const property = String(params.additionalProperty);
      return {
        path: `${best.instancePath}/${property.replace(/~/g, '~0').replace(/\//g, '~1')}`,
        property,
        keyword: best.keyword,
        message: `${parent} has no property "${property}"`,
        fix: `Remove "${property}" or correct its name (Vega-Lite ${SCHEMA_VERSION}).`,
        allowed: null,
        schemaVersion: SCHEMA_VERSION
      };
    }
    case 'required': {
      const property = String(params.missingProperty);
      return {
        path: `${best.instancePath}/${property}`,
        property,
        keyword: best.keyword,
        message: `${parent} needs "${property}"`,
        fix: `Add "${property}" to ${parent}.`,
        allowed: null,
        schemaVersion: SCHEMA_VERSION
      };
    }
    case 'enum':
    case 'const': {
      const allowed = (best.keyword === 'enum' ? (params.allowedValues as unknown[]) : [params.allowedValue]) ?? [];
      // Several branches of an anyOf each allow some values: gather them at this path.
      const all = new Set<unknown>(allowed);
      for (const e of errors) {
        if (e.instancePath === best.instancePath && (e.keyword === 'enum' || e.keyword === 'const')) {
          const p = e.params as Record<string, unknown>;
          for (const v of e.keyword === 'enum' ? (p.allowedValues as unknown[]) : [p.allowedValue]) {
            all.add(v);
          }
        }
      }
      const list = [...all].slice(0, 40);
      return {
        path: best.instancePath,
        property: last || null,
        keyword: best.keyword,
        message: `${parent} must be one of ${list.map(v => JSON.stringify(v)).join(', ')}`,
        fix: `Use one of the allowed values for "${last}".`,
        allowed: list,
        schemaVersion: SCHEMA_VERSION
      };
    }
    default:
      return {
        path: best.instancePath,
        property: last || null,
        keyword: best.keyword,
        message: `${parent} ${best.message ?? 'is invalid'}`,
        fix: `Correct ${parent} (Vega-Lite ${SCHEMA_VERSION}).`,
        allowed: null,
        schemaVersion: SCHEMA_VERSION
      };
  }
}
