/** Plain data as the JSON a comm message carries. */
import type { JSONObject, JSONValue } from '@lumino/coreutils';

/**
 * `value` as JSON, as `JSON.stringify` would write it: `undefined` and
 * functions in objects are left out (in arrays they become null),
 * non-finite numbers become null.
 */
export function toJSONValue(value: unknown): JSONValue {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') {
    return value;
  }
  if (typeof value === 'number') {
    return Number.isFinite(value) ? value : null;
  }
  if (Array.isArray(value)) {
    return value.map(toJSONValue);
  }
  if (typeof value === 'object') {
    const out: JSONObject = {};
    for (const [key, item] of Object.entries(value)) {
      if (item !== undefined && typeof item !== 'function') {
        out[key] = toJSONValue(item);
      }
    }
    return out;
  }
  return null;
}
