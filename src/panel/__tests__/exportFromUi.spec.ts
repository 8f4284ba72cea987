/**
 * The docked panel's *Export…* to `.html` (`../exportFromUi.ts`, `../exportHtmlRequest.ts`): the
 * page's `export` answer with the panel's App data (asked once, as for the gateway:
 * `writesHtml`), posted to the server's `molspace/export-html`, which writes the file; a retry
 * with `overwrite` posts the same answer; the server's located refusals pass through, anything
 * else is a located INTERNAL. The real server: tests/gateway/test_export_html_endpoint.py; the
 * real button: ui-tests/tests/exportHtml.spec.ts.
 */
import { ServerConnection } from '@jupyterlab/services';
import { MolspaceError, type PanelContent } from '../../contract';
import type { Dispatcher } from '../../dispatcher/dispatcher';
import { EXPORT_HTML_ENDPOINT, writeHtmlExport } from '../exportHtmlRequest';
import { exportLabel, exportRunner } from '../exportFromUi';

const TABLE: PanelContent = { type: 'table', columns: [{ name: 'ligand', type: 'string' }], rows: [['L1']] };

function fakeDispatcher(): {
  calls: { tool: string; args: Record<string, unknown>; options: Record<string, unknown> }[];
  page: { dispatcher: Dispatcher };
} {
  const calls: { tool: string; args: Record<string, unknown>; options: Record<string, unknown> }[] = [];
  const dispatcher = {
    execute: async (tool: string, args: Record<string, unknown>, options: Record<string, unknown>) => {
      calls.push({ tool, args, options });
      const writesHtml = (options.context as { writesHtml?: boolean } | undefined)?.writesHtml === true;
      return {
        structuredContent: {
          path: args.path,
          target: 'scores',
          kind: 'panel',
          bytes: 0,
          replaced: false,
          ...(writesHtml ? { app: { 'molspace/panel': { panelId: 'scores', title: 'Scores', content: TABLE } } } : {})
        },
        text: 'export'
      };
    }
  } as unknown as Dispatcher;
  return { calls, page: { dispatcher } };
}

function refusal(e: unknown): Record<string, unknown> {
  return MolspaceError.from(e, 'test').toJSON() as unknown as Record<string, unknown>;
}

describe('Export… to .html', () => {
  it('offers .html beside the panel’s own ending', () => {
    expect(exportLabel('.csv')).toBe('Path under the Jupyter root (.csv, or .html: one file that opens offline)');
    expect(exportLabel('')).toContain('(.html: one file');
  });

  it("asks the page for the panel's App data once (as for the gateway) and has the server write it; overwrite posts it again", async () => {
    const { calls, page } = fakeDispatcher();
    const written: { path: string; overwrite: boolean; answer: Record<string, unknown> }[] = [];
    let exists = true;
    const run = exportRunner(page, 'scores', 'share/scores.HTML', async (path, overwrite, answer) => {
      written.push({ path, overwrite, answer });
      if (exists && !overwrite) {
        throw new MolspaceError('FORBIDDEN', "'share/scores.HTML' exists.", '/overwrite', 'Pass overwrite.');
      }
      exists = true;
      return { structuredContent: { path, bytes: 10, replaced: true }, text: 'written' };
    });
    expect(refusal(await run(false).catch(e => e))).toMatchObject({ code: 'FORBIDDEN', where: '/overwrite' });
    await run(true);
    expect(calls).toHaveLength(1);
    expect(calls[0].tool).toBe('export');
    expect(calls[0].args).toEqual({ target: 'scores', path: 'share/scores.HTML' });
    expect(calls[0].options).toMatchObject({ source: 'ui', context: { writesHtml: true } });
    expect(written.map(w => [w.path, w.overwrite])).toEqual([
      ['share/scores.HTML', false],
      ['share/scores.HTML', true]
    ]);
    expect(written[1].answer.app).toEqual({ 'molspace/panel': { panelId: 'scores', title: 'Scores', content: TABLE } });
  });

  it("runs the panel's own endings through the Dispatcher alone, never with the App data", async () => {
    const { calls, page } = fakeDispatcher();
    const write = jest.fn();
    await exportRunner(page, 'scores', 'scores.csv', write)(true);
    expect(write).not.toHaveBeenCalled();
    expect(calls).toEqual([{ tool: 'export', args: { target: 'scores', path: 'scores.csv', overwrite: true }, options: { source: 'ui' } }]);
  });
});

describe("writeHtmlExport (the server's molspace/export-html)", () => {
  const answer = { path: 'a.html', target: 'scores', kind: 'panel', app: {} };
  function settings(
    status: number,
    body: unknown,
    seen: { url?: string; method?: string; body?: string } = {}
  ): ServerConnection.ISettings {
    return ServerConnection.makeSettings({
      baseUrl: 'http://localhost:8888/lab-root/',
      fetch: (async (request: RequestInfo, init?: RequestInit) => {
        const r = new Request(request, init);
        seen.url = r.url;
        seen.method = r.method;
        seen.body = await r.text();
        return new Response(typeof body === 'string' ? body : JSON.stringify(body), { status });
      }) as typeof fetch,
      Request,
      Headers
    });
  }

  it('posts the path, overwrite and answer under base_url and returns what the server wrote', async () => {
    const seen: { url?: string; method?: string; body?: string } = {};
    const written = await writeHtmlExport(
      'a.html',
      true,
      answer,
      settings(200, { structuredContent: { path: 'a.html', bytes: 42, replaced: true }, text: 'written' }, seen)
    );
    expect(written.structuredContent).toEqual({ path: 'a.html', bytes: 42, replaced: true });
    expect(seen.url?.split('?')[0]).toBe(`http://localhost:8888/lab-root/${EXPORT_HTML_ENDPOINT}`);
    expect(seen.method).toBe('POST');
    expect(JSON.parse(String(seen.body))).toEqual({ path: 'a.html', overwrite: true, answer });
  });

  it("throws the server's located error as it is, and a located INTERNAL for any other answer", async () => {
    const error = {
      code: 'FORBIDDEN',
      message: "'a.html' exists.",
      where: '/overwrite',
      fix: 'Pass overwrite.',
      details: { path: 'a.html' }
    };
    const located = await writeHtmlExport('a.html', false, answer, settings(403, { error })).catch(refusal);
    expect(located).toMatchObject({ code: 'FORBIDDEN', where: '/overwrite', details: { path: 'a.html', status: 403 } });
    const other = await writeHtmlExport('a.html', false, answer, settings(404, '<html>Not Found</html>')).catch(refusal);
    expect(other).toMatchObject({ code: 'INTERNAL', where: '/path', details: { status: 404 } });
  });
});
