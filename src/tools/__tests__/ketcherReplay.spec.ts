/**
 * ketcher_control keeps the synced record of an agent's change (`_applied_actions`), as `act`,
 * `story_control` and `story_edit` do: a page reloaded after its change reached the kernel but
 * before its answer reached the gateway leaves the record behind, and the reloaded page answers the
 * retry as replayed instead of loading the structure a second time. Reads keep no record: a
 * retried `get_structure` is answered again, with its value. Each page is a real Dispatcher on an
 * in-memory editor with the real `AppliedRequests`; "the kernel" is what the first page sent.
 */
import type { ChangeEntry, ChangeSource, KetcherFormat, KetcherState } from '../../contract';
import { APPLIED_ACTIONS_ATTR, APPLIED_ACTIONS_MEMORY, AppliedRequests } from '../../kernel/appliedRequests';
import type { KetcherTarget } from '../../ketcher/ketcherTarget';
import { WidgetRegistry } from '../../dispatcher/registry';
import { pageDispatcher } from '..';
import { SyncedAttributes } from '../../__tests__/syncedAttributes';

/** What the kernel holds of the editor once a page's update reached it. */
interface KernelState {
  smiles: string;
  structureRevision: number;
  interactionRevision: number;
  applied: unknown;
}

/** An editor in memory: a SMILES is its structure, one atom a character. */
class MemoryKetcher implements KetcherTarget {
  readonly kind = 'ketcher' as const;
  readonly notebook = 'demo.ipynb';
  /** Structures loaded by this page, oldest first. */
  loads: string[] = [];
  highlighted: number[] = [];
  constructor(
    readonly targetId: string,
    public smiles: string,
    public structureRevision: number,
    public interactionRevision: number,
    readonly appliedActions: AppliedRequests
  ) {}
  whenLoaded(): Promise<void> {
    return Promise.resolve();
  }
  state(): KetcherState {
    return {
      target: this.targetId,
      kind: 'ketcher',
      title: 'K',
      ready: true,
      revision: this.structureRevision,
      structureRevision: this.structureRevision,
      interactionRevision: this.interactionRevision,
      dirty: false,
      atoms: this.smiles.length,
      bonds: Math.max(0, this.smiles.length - 1),
      formula: null,
      smiles: this.smiles,
      highlighted: this.highlighted,
      persist: null,
      error: null
    };
  }
  describe(): string {
    return `editor ${this.smiles}`;
  }
  async setStructure(value: string, _format: KetcherFormat | null, source: ChangeSource, summary: string): Promise<ChangeEntry> {
    this.loads.push(value);
    this.smiles = value;
    this.structureRevision += 1;
    return { revision: this.structureRevision, source, summary };
  }
  async highlight(atoms: number[]): Promise<void> {
    this.highlighted = [...atoms];
    this.interactionRevision += 1;
  }
  async export(): Promise<string> {
    return this.smiles;
  }
  persistRequest(): null {
    return null;
  }
  askPersist(): void {}
  whenPersistAnswered(): Promise<void> {
    return Promise.resolve();
  }
}

/** A page showing the editor, started from the kernel's state (a first load or a reload). */
function page(kernel: KernelState) {
  const registry = new WidgetRegistry();
  const attrs = new SyncedAttributes();
  attrs.set(APPLIED_ACTIONS_ATTR, kernel.applied);
  const editor = new MemoryKetcher(
    'k1',
    kernel.smiles,
    kernel.structureRevision,
    kernel.interactionRevision,
    new AppliedRequests(attrs, APPLIED_ACTIONS_ATTR, APPLIED_ACTIONS_MEMORY)
  );
  registry.register(editor);
  const dispatcher = pageDispatcher(registry);
  return {
    editor,
    call: (args: Record<string, unknown>) => dispatcher.execute('ketcher_control', { target: 'k1', ...args }, { source: 'agent' }),
    /** The state update this page sends now (the change and the record together). */
    sent: (): KernelState => ({
      smiles: editor.smiles,
      structureRevision: editor.structureRevision,
      interactionRevision: editor.interactionRevision,
      applied: attrs.get(APPLIED_ACTIONS_ATTR)
    })
  };
}

const START: KernelState = { smiles: 'CCO', structureRevision: 0, interactionRevision: 0, applied: [] };

it('a retried set_structure that reached the kernel unanswered is replayed by the reloaded page, not loaded again', async () => {
  const first = page(START);
  await first.call({ action: 'set_structure', value: 'CCN', actionId: 's1' }); // applied and sent; the answer is lost
  const kernel = first.sent();
  expect(kernel).toMatchObject({ smiles: 'CCN', structureRevision: 1, applied: ['ketcher_control:s1'] });

  const reloaded = page(kernel);
  const retry = await reloaded.call({ action: 'set_structure', value: 'CCN', actionId: 's1' });
  expect(retry.structuredContent).toMatchObject({
    action: 'set_structure',
    replayed: true,
    changed: false,
    status: 'done',
    previousRevision: 1,
    editor: { structureRevision: 1, smiles: 'CCN' }
  });
  expect(retry.text).toMatch(/replayed actionId s1: not applied again/);
  expect(reloaded.editor.loads).toEqual([]);

  // A highlight is a change too: recorded, and its retry on a reloaded page is replayed.
  await reloaded.call({ action: 'highlight_atoms', atoms: [0, 2], actionId: 'h1' });
  const again = page(reloaded.sent());
  const highlightRetry = await again.call({ action: 'highlight_atoms', atoms: [0, 2], actionId: 'h1' });
  expect(highlightRetry.structuredContent).toMatchObject({ action: 'highlight_atoms', replayed: true, changed: false });
  expect(again.editor.interactionRevision).toBe(1);
  expect(again.sent().applied).toEqual(['ketcher_control:s1', 'ketcher_control:h1']);
});

it('a retried get_structure is answered again with its value, and leaves no record', async () => {
  const first = page(START);
  await first.call({ action: 'get_structure', format: 'smiles', actionId: 'g1' });
  expect(first.sent().applied).toEqual([]);
  const reloaded = page(first.sent());
  const retry = await reloaded.call({ action: 'get_structure', format: 'smiles', actionId: 'g1' });
  expect(retry.structuredContent).toMatchObject({ action: 'get_structure', value: 'CCO', replayed: false });
});

it('a change lost with the page (the kernel never had it) is applied by the retry', async () => {
  const first = page(START);
  await first.call({ action: 'set_structure', value: 'CCN', actionId: 's1' });
  const reloaded = page(START); // the update never left the page
  const retry = await reloaded.call({ action: 'set_structure', value: 'CCN', actionId: 's1' });
  expect(retry.structuredContent).toMatchObject({ replayed: false, changed: true, editor: { structureRevision: 1, smiles: 'CCN' } });
  expect(reloaded.editor.loads).toEqual(['CCN']);
});
