/**
 * Emit the tool manifest the MCP gateway serves: `molspace/contract/manifest.json`.
 *
 * Run at build time (`npm run build:manifest`). The manifest holds JSON Schema
 * (draft 2020-12) for each tool's input and output and the error codes it can
 * return, generated from the zod contract in `src/contract`; the shared
 * `limits`; each widget kind's synced state (`widgets`); the `wire` messages of the bridge (page <-> gateway) and of a
 * widget's comm (kernel <-> page); versions and the server instructions.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import {
  APP_EXTENSION,
  APP_MIME_TYPE,
  APP_PART_PREFIX,
  APP_DEPICTION_META,
  APP_PANEL_META,
  APP_STORY_META,
  APP_STRUCTURE_META,
  AppDepiction,
  AppPanel,
  AppStory,
  AppStructure,
  VIEWER_APP_URI,
  PANEL_APP_URI,
  BRIDGE_CLOSE_CODES,
  BRIDGE_PROTOCOL_VERSION,
  ERROR_CODES,
  GatewayMessage,
  KernelControl,
  KernelResult,
  LIMITS,
  LocatedError,
  PageMessage,
  TOOLS,
  errorCodesOf,
  STRUCTURE_EXTENSIONS,
  StructureFormat,
  BINARY_STRUCTURE_FORMATS,
  COORDINATES_EXTENSIONS,
  CoordinatesFormat,
  TOPOLOGY_FORMATS,
  ViewerKernelControl,
  WIDGETS,
  syncedDefaults
} from '../src/contract';
import { STATIC_FALLBACK_MIME } from '../src/contract/staticFallback';
import { DEFAULT_RESOURCE_HOSTS } from '../src/resources/resourcePolicy';
import { INSTRUCTIONS } from '../src/contract/instructions';
import { compactJsonSchema, listedJsonSchema, schemaParts } from '../src/contract/jsonSchema';

const root = join(__dirname, '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const molstarPkg = JSON.parse(readFileSync(join(root, 'node_modules/molstar/package.json'), 'utf8'));
// The MVS major version the bundled Mol* reads (`MVSData.SupportedVersion`).
const mvsVersion = readFileSync(join(root, 'node_modules/molstar/lib/extensions/mvs/mvs-data.js'), 'utf8').match(
  /SupportedVersion:\s*(\d+)/
)?.[1];
if (!mvsVersion) {
  throw new Error('emit-manifest: SupportedVersion not found in molstar/lib/extensions/mvs/mvs-data.js');
}

function schema(t: z.ZodType, io: 'input' | 'output'): Record<string, unknown> {
  return z.toJSONSchema(t, { io, target: 'draft-2020-12', unrepresentable: 'any' });
}

const manifest = {
  manifestVersion: 1,
  bridgeProtocol: BRIDGE_PROTOCOL_VERSION,
  bridgeCloseCodes: BRIDGE_CLOSE_CODES,
  staticFallbackMime: STATIC_FALLBACK_MIME,
  versions: {
    molspace: pkg.version,
    molstar: molstarPkg.version,
    mvsSpec: mvsVersion,
    // Every other bundled library (and the JupyterLab built against), from its own package.json at build time.
    ...Object.fromEntries(
      Object.entries({
        ketcher: 'ketcher-core',
        ketcherReact: 'ketcher-react',
        indigo: 'indigo-ketcher',
        vegaLite: 'vega-lite',
        jupyterlab: '@jupyterlab/application'
      }).map(([key, name]) => [key, JSON.parse(readFileSync(join(root, 'node_modules', name, 'package.json'), 'utf8')).version as string])
    )
  },
  instructions: INSTRUCTIONS,
  errorCodes: ERROR_CODES,
  errorSchema: schema(LocatedError, 'output'),
  limits: LIMITS,
  // The MCP App (src/contract/app.ts): what the gateway declares and serves.
  app: {
    extension: APP_EXTENSION,
    mimeType: APP_MIME_TYPE,
    viewer: VIEWER_APP_URI,
    panel: PANEL_APP_URI,
    partPrefix: APP_PART_PREFIX,
    structureMeta: APP_STRUCTURE_META,
    storyMeta: APP_STORY_META,
    depictionMeta: APP_DEPICTION_META,
    panelMeta: APP_PANEL_META,
    structure: schema(AppStructure, 'output'),
    story: schema(AppStory, 'output'),
    depiction: schema(AppDepiction, 'output'),
    panelSchema: schema(AppPanel, 'output'),
    // What a Story in the App may fetch: the default resource hosts (src/resources/resourcePolicy.ts),
    // as the CSP origins its resources declare (connectDomains); nothing else. A `.x` entry allows x
    // itself and its subdomains (`hostAllowed`), and a CSP `*.x` matches subdomains only: both are listed.
    connectDomains: DEFAULT_RESOURCE_HOSTS.flatMap(h => (h.startsWith('.') ? [`https://${h.slice(1)}`, `https://*${h}`] : [`https://${h}`]))
  },
  structureFormats: {
    formats: StructureFormat.options,
    extensions: STRUCTURE_EXTENSIONS,
    binary: BINARY_STRUCTURE_FORMATS,
    topology: TOPOLOGY_FORMATS,
    coordinates: CoordinatesFormat.options,
    coordinatesExtensions: COORDINATES_EXTENSIONS
  },
  wire: {
    bridge: {
      pageToGateway: schema(PageMessage, 'output'),
      gatewayToPage: schema(GatewayMessage, 'output')
    },
    kernel: {
      kernelToPage: schema(z.union([KernelControl, ViewerKernelControl]), 'input'),
      pageToKernel: schema(KernelResult, 'output')
    }
  },
  // Each page widget kind's ipywidgets names and synced state (src/contract/widgetState.ts): the Python
  // tests check every kernel widget's sync=True traits against these names and defaults.
  widgets: Object.fromEntries(
    Object.entries(WIDGETS).map(([kind, spec]) => [
      kind,
      { model: spec.model, view: spec.view, defaults: syncedDefaults(kind as keyof typeof WIDGETS), state: schema(spec.state, 'output') }
    ])
  ),
  tools: TOOLS.map(t => {
    const inputSchema = compactJsonSchema(t.input, 'input');
    for (const [i, example] of (t.examples ?? []).entries()) {
      const parsed = t.input.safeParse(example);
      if (!parsed.success) {
        throw new Error(`emit-manifest: ${t.name} examples[${i}] does not parse: ${parsed.error.message}`);
      }
    }
    return {
      name: t.name,
      // What tools/list hands every agent on every connection (docs/architecture.md, "The contract"):
      // the short description, the listed input schema and the annotations; no output schema.
      description: t.description,
      listedInputSchema: listedJsonSchema(inputSchema),
      annotations: t.annotations,
      // What the gateway validates against, and `describe` returns on demand.
      runs: t.runs,
      inputSchema,
      outputSchema: compactJsonSchema(t.output, 'output'),
      parts: schemaParts(inputSchema),
      guide: t.guide ?? '',
      examples: t.examples ?? [],
      errors: errorCodesOf(t),
      ...(t.app ? { app: t.app } : {}),
      ...(t.mirrored ? { mirrored: true } : {})
    };
  })
};

const out = join(root, 'molspace/contract/manifest.json');
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, JSON.stringify(manifest, null, 2) + '\n');
console.log(`emit-manifest: ${TOOLS.length} tools -> ${out}`);
