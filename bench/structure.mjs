/**
 * Benchmark — the structure Viewer (issue 5): three parts, each against a
 * baseline measured in the same run.
 *
 * 1. Open → first frame of a ~1 MB mmCIF: `molspace.Viewer("data/big.cif")`
 *    (→ `data-molspace-ready="true"`) against nglview's
 *    `nglview.show_file("data/big.cif")` and molviewspec's `molstar_notebook`
 *    of a builder that downloads the same file packed in its MVSX (`data=`),
 *    cartoon + ball-and-stick ligands as molspace's initial view; rotated
 *    order, a new browser each (bench/lib.mjs `compareSubjects`). The file:
 *    `MOLSPACE_BENCH_MMCIF` (a path) if set, else made at bench time from
 *    bench/data/7cfn.cif (633 kB): its atoms plus copies of them, 200 Å
 *    further along x each, chain ids suffixed, until it is ≥ 1,000,000 bytes
 *    (nothing over 1 MB is committed).
 * 2. Kernel → page transfer of a 10 MB structure: a comm opened from the
 *    kernel (`comm.create_comm`) carrying the bytes as a binary buffer (as
 *    the Viewer's `_data` trait does) against the same bytes as base64 in the
 *    JSON content, decoded to bytes in the page (`atob`); page clock from just
 *    before the cell runs to the bytes in hand. Alternating, N each.
 * 3. `act` round trip (official MCP client, Streamable HTTP) against `status`
 *    (answered by the gateway alone), interleaved: `highlight` /
 *    `clear_highlight` (Mol* loci, no rebuild) and `set_color` (a new view
 *    state, rebuilt through `loadMVS`), on a Viewer of 1cbs.cif.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  BENCH,
  PORTS,
  ROOT,
  callTool,
  compareSubjects,
  execCell,
  fmt,
  fmtLoad,
  launchBrowser,
  loadAvg,
  log,
  mcpClient,
  newContext,
  notebookSubject,
  openNotebook,
  printComparison,
  startServer,
  stopOnExit,
  summary,
  waitSettled,
  writeNotebook,
  writeResult
} from './lib.mjs';

const RUNS = Number(process.env.MOLSPACE_BENCH_STRUCTURE_N || 3);
const TRANSFER_N = Number(process.env.MOLSPACE_BENCH_TRANSFER_N || 5);
const ACT_N = Number(process.env.MOLSPACE_BENCH_ACT_N || 20);
const PARTS = (process.env.MOLSPACE_BENCH_STRUCTURE_PARTS || 'open,transfer,act').split(',');

/** ~1 MB mmCIF: MOLSPACE_BENCH_MMCIF, else 7cfn.cif grown by translated copies of its atoms. */
function bigMmcif() {
  if (process.env.MOLSPACE_BENCH_MMCIF) return { text: fs.readFileSync(process.env.MOLSPACE_BENCH_MMCIF, 'utf8'), from: process.env.MOLSPACE_BENCH_MMCIF };
  const lines = fs.readFileSync(path.join(BENCH, 'data', '7cfn.cif'), 'utf8').split('\n');
  const atomRows = lines.filter(l => /^(ATOM|HETATM) /.test(l));
  const lastAtom = lines.findLastIndex(l => /^(ATOM|HETATM) /.test(l));
  const head = lines.slice(0, lastAtom + 1);
  const tail = lines.slice(lastAtom + 1);
  let size = lines.join('\n').length;
  let id = atomRows.length;
  const extra = [];
  for (let copy = 2; size < 1_000_000; copy++) {
    for (const row of atomRows) {
      const f = row.trim().split(/\s+/);
      // group id type atom alt comp label_asym entity seq ins x y z occ B auth_seq auth_asym model
      f[1] = String(++id);
      f[6] = `${f[6]}${copy}`;
      f[16] = `${f[16]}${copy}`;
      f[10] = (Number(f[10]) + 200 * (copy - 1)).toFixed(3);
      const line = f.join(' ');
      extra.push(line);
      size += line.length + 1;
      if (size >= 1_000_000) break;
    }
  }
  return { text: [...head, ...extra, ...tail].join('\n'), from: 'bench/data/7cfn.cif + translated copies' };
}

const server = await startServer({ port: PORTS.a, name: 'structure' });
const stopAll = stopOnExit([server]);
const big = bigMmcif();
fs.writeFileSync(path.join(server.root, 'data', 'big.cif'), big.text);
fs.copyFileSync(path.join(ROOT, 'examples', 'data', '1cbs.cif'), path.join(server.root, 'data', '1cbs.cif'));
const bigBytes = Buffer.byteLength(big.text);
log(`big.cif ${bigBytes} B (${big.from})`);
const hasNglview = (await import('node:child_process')).spawnSync('python', ['-c', 'import nglview'], { encoding: 'utf8' }).status === 0;

const out = { bigBytes, bigFrom: big.from, loadStart: loadAvg() };
let exitCode = 0;
try {
  // ------------------------------------------------------------ 1. open → first frame
  if (PARTS.includes('open')) {
    const subjects = [
      notebookSubject(server, {
        name: 'molspace Viewer',
        setup: 'import molspace',
        cell: 'v = molspace.Viewer("data/big.cif")\nv',
        shown: '.molspace-viewer',
        ready: "el => el.getAttribute('data-molspace-ready') === 'true'"
      }),
      notebookSubject(server, {
        name: 'molviewspec viewer',
        setup: 'import molviewspec as mvs\nfrom molviewspec.molstar_widgets import molstar_notebook',
        cell: [
          'b = mvs.create_builder()',
          's = b.download(url="big.cif").parse(format="mmcif").model_structure()',
          's.component(selector="polymer").representation(type="cartoon")',
          's.component(selector="ligand").representation(type="ball_and_stick")',
          'molstar_notebook(b, data={"big.cif": open("data/big.cif", "rb").read()}, width=834, height=420)'
        ].join('\n'),
        shown: 'iframe[src^="blob:"]',
        ready: "el => !!el.contentWindow && el.contentWindow.__benchMvsReady !== undefined"
      }),
      ...(hasNglview
        ? [notebookSubject(server, { name: 'nglview', setup: 'import nglview', cell: 'view = nglview.show_file("data/big.cif")\nview', shown: '.jupyter-widgets canvas', geometryKey: 'anyDraw' })]
        : [])
    ];
    const { raw, table } = await compareSubjects(subjects, RUNS);
    console.log(`\nOpen → first frame of a ${(bigBytes / 1e6).toFixed(2)} MB mmCIF, p50 of N=${RUNS}, ms (${fmtLoad(loadAvg())} now):`);
    printComparison(table, { floor: null, ref: 'molspace Viewer' });
    out.open = { runs: RUNS, table, raw };
  }

  // ------------------------------------------------------------ 2. kernel → page, 10 MB
  if (PARTS.includes('transfer')) {
    const browser = await launchBrowser();
    try {
      const context = await newContext(browser);
      const page = await context.newPage();
      writeNotebook(server.root, 'transfer.ipynb', ['', '']);
      await openNotebook(page, server, 'transfer.ipynb');
      const setup = [
        'import base64, comm',
        '_src = open("data/big.cif", "rb").read()',
        '_data = (_src * (10_000_000 // len(_src) + 1))[:10_000_000]',
        '_b64 = base64.b64encode(_data).decode("ascii")',
        'print(len(_data), len(_b64))'
      ].join('\n');
      log(`transfer payload: ${await execCell(page, 0, setup)}`.trim());
      await page.evaluate(() => {
        const kernel = window.jupyterapp.shell.currentWidget.sessionContext.session.kernel;
        window.__benchComm = { got: null };
        kernel.registerCommTarget('molspace_bench', (c, msg) => {
          const t = performance.now();
          let bytes;
          if (msg.content.data.kind === 'binary') {
            const b = msg.buffers[0];
            bytes = new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
          } else {
            const s = atob(msg.content.data.b64);
            bytes = new Uint8Array(s.length);
            for (let i = 0; i < s.length; i++) bytes[i] = s.charCodeAt(i);
          }
          window.__benchComm.got = { arrived: t, decoded: performance.now(), bytes: bytes.byteLength };
          c.close();
        });
      });
      const cells = {
        binary: 'comm.create_comm(target_name="molspace_bench", data={"kind": "binary"}, buffers=[_data]); None',
        base64: 'comm.create_comm(target_name="molspace_bench", data={"kind": "b64", "b64": _b64}); None'
      };
      const times = { binary: [], base64: [] };
      const loads = [];
      for (let i = 0; i < TRANSFER_N; i++) {
        for (const kind of i % 2 ? ['base64', 'binary'] : ['binary', 'base64']) {
          loads.push(loadAvg().one);
          const r = await page.evaluate(async source => {
            const nb = window.jupyterapp.shell.currentWidget.content;
            nb.activeCellIndex = 1;
            nb.deselectAll();
            nb.activeCell.model.sharedModel.setSource(source);
            window.__benchComm.got = null;
            const t0 = performance.now();
            await window.jupyterapp.commands.execute('notebook:run-cell');
            while (!window.__benchComm.got) await new Promise(r => setTimeout(r, 5));
            const g = window.__benchComm.got;
            return { arrived: g.arrived - t0, decoded: g.decoded - t0, bytes: g.bytes };
          }, cells[kind]);
          if (r.bytes !== 10_000_000) throw new Error(`${kind}: got ${r.bytes} B`);
          times[kind].push(r);
        }
      }
      const s = k => ({ arrived: summary(times[k].map(r => r.arrived)), decoded: summary(times[k].map(r => r.decoded)) });
      out.transfer = { n: TRANSFER_N, bytes: 10_000_000, binary: s('binary'), base64: s('base64'), loads };
      console.log(`\nKernel → page, 10 MB, N=${TRANSFER_N} each alternating, ms p50 / p95 (load ${loads.map(x => x.toFixed(1)).join(' ')}):`);
      console.log(`  binary buffer:        bytes in hand ${fmt(out.transfer.binary.decoded.p50, 0)} / ${fmt(out.transfer.binary.decoded.p95, 0)}`);
      console.log(`  base64 in JSON:       message in ${fmt(out.transfer.base64.arrived.p50, 0)} / ${fmt(out.transfer.base64.arrived.p95, 0)}, bytes decoded ${fmt(out.transfer.base64.decoded.p50, 0)} / ${fmt(out.transfer.base64.decoded.p95, 0)}`);
      console.log(`  ratio base64 / binary (p50, bytes in hand): ${(out.transfer.base64.decoded.p50 / out.transfer.binary.decoded.p50).toFixed(2)}×`);
      await context.close();
    } finally {
      await browser.close();
    }
  }

  // ------------------------------------------------------------ 3. act vs status
  if (PARTS.includes('act')) {
    const browser = await launchBrowser();
    try {
      const context = await newContext(browser);
      const page = await context.newPage();
      writeNotebook(server.root, 'act.ipynb', ['import molspace', 'v = molspace.Viewer("data/1cbs.cif")\nv']);
      await openNotebook(page, server, 'act.ipynb');
      await execCell(page, 0, 'import molspace');
      await execCell(page, 1, 'v = molspace.Viewer("data/1cbs.cif")\nv');
      await page.waitForSelector('.molspace-viewer[data-molspace-ready="true"]', { timeout: 120_000 });
      await waitSettled(page, 1500, 60_000);
      const client = await mcpClient(server);
      await client.listTools();
      const calls = {
        status: () => callTool(client, 'status', {}),
        highlight: k => callTool(client, 'act', { actions: [k % 2 ? { op: 'clear_highlight' } : { op: 'highlight', selector: 'ligand' }] }),
        set_color: k => callTool(client, 'act', { actions: [{ op: 'set_color', selector: 'ligand', color: k % 2 ? '#ff0000' : '#00aa00' }] })
      };
      for (let k = 0; k < 4; k++) for (const f of Object.values(calls)) await f(k); // warm-up, not counted
      const times = { status: [], highlight: [], set_color: [] };
      const loads = [];
      for (let k = 0; k < ACT_N; k++) {
        loads.push(loadAvg().one);
        const order = Object.keys(calls);
        for (let j = 0; j < order.length; j++) {
          const name = order[(j + k) % order.length];
          const t0 = performance.now();
          await calls[name](k);
          times[name].push(performance.now() - t0);
        }
      }
      await client.close();
      out.act = { n: ACT_N, status: summary(times.status), highlight: summary(times.highlight), set_color: summary(times.set_color), loads };
      console.log(`\nMCP round trip, N=${ACT_N} each interleaved, ms p50 / p95 (load ${Math.min(...loads).toFixed(1)}–${Math.max(...loads).toFixed(1)}):`);
      for (const name of ['status', 'highlight', 'set_color']) {
        const x = out.act[name];
        console.log(`  ${name.padEnd(10)} ${fmt(x.p50, 1).padStart(8)} / ${fmt(x.p95, 1).padStart(8)}   ${(x.p50 / out.act.status.p50).toFixed(2)}× status (p50), ${(x.p95 / out.act.status.p95).toFixed(2)}× (p95)`);
      }
      await context.close();
    } finally {
      await browser.close();
    }
  }
  out.loadEnd = loadAvg();
  writeResult('structure', out);
} catch (e) {
  console.error(e);
  exitCode = 1;
} finally {
  await stopAll();
}
process.exit(exitCode);
