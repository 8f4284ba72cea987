/**
 * Binary synced attributes (a structure's bytes, MVSX archives) as
 * ipywidgets hands them over, and their serializer.
 */

/** Bytes as ipywidgets delivers a binary buffer. */
export type Bytes = DataView | ArrayBuffer | Uint8Array;

/** The same bytes as a `Uint8Array` view (no copy). */
export function toBytes(v: Bytes): Uint8Array {
  if (v instanceof Uint8Array) {
    return v;
  }
  if (v instanceof DataView) {
    return new Uint8Array(v.buffer, v.byteOffset, v.byteLength);
  }
  return new Uint8Array(v);
}

/**
 * Keeps bytes binary when ipywidgets serializes the state (e.g. to save it in
 * the notebook): its default serializer JSON-copies, turning bytes into `{}`.
 * Empty bytes serialize as null.
 */
export const bytesSerializer = {
  serialize: (value: Bytes | null): Uint8Array | null => (value && value.byteLength > 0 ? toBytes(value).slice() : null)
};
