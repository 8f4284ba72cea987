/**
 * 3D coordinates for an editor's molecule, from the server: neither Indigo
 * nor Mol* embeds a 2D drawing in 3D, so the page posts the Molfile to
 * `{base_url}molspace/embed3d`, where the server's RDKit answers one SDF
 * record (docs/architecture.md, "Ketcher"). The request carries the page's
 * own Jupyter credentials (cookie and XSRF token); agent tokens do not open it.
 */
import { ServerConnection } from '@jupyterlab/services';
import { endpointRefusal, endpointUrl, notAnAnswer, requestEndpoint } from '../resources/serverEndpoint';

/** What the server answers. */
export interface Embedded {
  /** One SDF record with explicit hydrogens; coordinates in Å. */
  sdf: string;
  /** Atom count, hydrogens included. */
  atoms: number;
  /** True when MMFF94 cleaned up the geometry (else ETKDG's coordinates as embedded). */
  optimized: boolean;
}

/**
 * Embed `molfile` in 3D with the server's RDKit.
 *
 * @param where - the argument to name in errors (e.g. `/ketcher`).
 * @throws MolspaceError the server's located error (`VALIDATION_FAILED`,
 *   `TOO_LARGE`, `UNSUPPORTED_FORMAT` when the server has no RDKit), located
 *   at `where`; `INTERNAL` when the server cannot be reached or answers
 *   something else.
 */
export async function embed3d(molfile: string, where: string, settings = ServerConnection.makeSettings()): Promise<Embedded> {
  const url = endpointUrl(settings, 'molspace/embed3d');
  const response = await requestEndpoint(url, { method: 'POST', body: JSON.stringify({ molfile }) }, '3D endpoint', where, settings);
  const body: unknown = await response.json().catch(() => null);
  if (response.ok && body && typeof (body as Embedded).sdf === 'string') {
    return body as Embedded;
  }
  throw endpointRefusal(body, response.status, () => where) ?? notAnAnswer('3D endpoint', response.status, where, { url });
}
