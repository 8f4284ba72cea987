/**
 * pdbDownload: allow-listed mirrors only (the final URL after redirects is
 * checked again), byte and line caps, refusals that name the cap, the host
 * and the reason. The "mirror" is a fetch that serves the local 1CBS file.
 */
import { readFileSync } from 'fs';
import { join } from 'path';
import { LIMITS } from '../../contract';
import { expectFailure } from '../../__tests__/expectFailure';
import { downloadPdbEntry, PDB_MIRRORS } from '../pdbDownload';

const CIF = new Uint8Array(readFileSync(join(__dirname, '..', '..', '..', 'tests', 'data', 'structures', '1cbs.cif')));

/** A fetch that answers `body` as if from `finalUrl` (a redirect when it differs from the request). */
function mirror(body: Uint8Array | string, opts: { finalUrl?: string; status?: number; headers?: Record<string, string> } = {}) {
  const requested: string[] = [];
  const fetchImpl = async (url: string) => {
    requested.push(url);
    const response = new Response(body as BodyInit, { status: opts.status ?? 200, headers: opts.headers });
    Object.defineProperty(response, 'url', { value: opts.finalUrl ?? url });
    return response;
  };
  return { fetchImpl, requested };
}

test('an entry comes from the chosen mirror, whole', async () => {
  const m = mirror(CIF);
  const bytes = await downloadPdbEntry('1cbs', 'rcsb', m.fetchImpl);
  expect(bytes).toEqual(CIF);
  expect(m.requested).toEqual(['https://files.rcsb.org/download/1CBS.cif']);
  expect(PDB_MIRRORS.pdbe('1CBS')).toBe('https://www.ebi.ac.uk/pdbe/entry-files/download/1cbs.cif');
});

test('a redirect off the allow-list is refused, naming the host', async () => {
  const m = mirror(CIF, { finalUrl: 'https://evil.example.org/1cbs.cif' });
  const e = await expectFailure(downloadPdbEntry('1cbs', 'rcsb', m.fetchImpl));
  expect(e).toMatchObject({ code: 'FORBIDDEN', where: '/pdbId', details: { host: 'evil.example.org' } });
  expect(e.message).toContain('evil.example.org');
  // a redirect between allowed mirrors is fine
  expect(await downloadPdbEntry('1cbs', 'rcsb', mirror(CIF, { finalUrl: 'https://www.ebi.ac.uk/x.cif' }).fetchImpl)).toEqual(CIF);
});

test('the byte and line caps, declared or streamed, are named in the refusal', async () => {
  const declared = await expectFailure(
    downloadPdbEntry('1cbs', 'rcsb', mirror(CIF, { headers: { 'content-length': String(LIMITS.pdbDownloadBytes + 1) } }).fetchImpl)
  );
  expect(declared).toMatchObject({ code: 'TOO_LARGE', details: { host: 'files.rcsb.org', maxBytes: LIMITS.pdbDownloadBytes } });
  expect(declared.message).toContain(`${LIMITS.pdbDownloadBytes}-byte cap`);
  const big = new Uint8Array(LIMITS.pdbDownloadBytes + 10).fill(65);
  const streamed = await expectFailure(downloadPdbEntry('1cbs', 'pdbe', mirror(big).fetchImpl));
  expect(streamed).toMatchObject({ code: 'TOO_LARGE', details: { host: 'www.ebi.ac.uk' } });
  const lines = await expectFailure(downloadPdbEntry('1cbs', 'rcsb', mirror('\n'.repeat(LIMITS.pdbDownloadLines + 1)).fetchImpl));
  expect(lines.message).toContain(`${LIMITS.pdbDownloadLines}-line cap`);
});

test('an unknown entry and a network failure are NOT_FOUND with the host', async () => {
  const missing = await expectFailure(downloadPdbEntry('9zzz', 'rcsb', mirror('not found', { status: 404 }).fetchImpl));
  expect(missing).toMatchObject({ code: 'NOT_FOUND', where: '/pdbId', details: { status: 404, host: 'files.rcsb.org' } });
  const down = await expectFailure(
    downloadPdbEntry('1cbs', 'pdbj', async () => {
      throw new TypeError('Failed to fetch');
    })
  );
  expect(down).toMatchObject({ code: 'NOT_FOUND', details: { host: 'pdbj.org' } });
});
