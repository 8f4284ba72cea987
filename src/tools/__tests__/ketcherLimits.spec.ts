/**
 * ketcher_control's declared bounds are the limits it applies to agents and cells
 * (`LIMITS.ketcherInlineBytes`, `ketcherHighlightAtoms`; the manifest side is
 * tests/gateway/test_schema_limits.py), while a person's own drawing (source `ui`)
 * may be larger, up to `ketcherStructureChars`.
 */
import { KetcherControlInput, KetcherControlUiInput, LIMITS } from '../../contract';
import { ketcherControl } from '../ketcherControl';

const big = 'C'.repeat(LIMITS.ketcherInlineBytes + 1);

test('agents and cells: value and atoms bounded by the limits the tool states', () => {
  expect(KetcherControlInput.safeParse({ action: 'set_structure', value: 'C'.repeat(LIMITS.ketcherInlineBytes) }).success).toBe(true);
  expect(() => ketcherControl.parse({ action: 'set_structure', value: big }, 'agent')).toThrow(
    expect.objectContaining({ code: 'INVALID_INPUT', where: '/value' })
  );
  expect(() => ketcherControl.parse({ action: 'set_structure', value: big }, 'kernel')).toThrow(
    expect.objectContaining({ code: 'INVALID_INPUT' })
  );
  const atoms = Array.from({ length: LIMITS.ketcherHighlightAtoms + 1 }, (_, i) => i);
  expect(() => ketcherControl.parse({ action: 'highlight_atoms', atoms }, 'agent')).toThrow(
    expect.objectContaining({ code: 'INVALID_INPUT', where: '/atoms' })
  );
});

test("the editor's own UI may send a larger drawing, and nothing else changes", () => {
  expect(() => ketcherControl.parse({ action: 'set_structure', value: big, format: 'ket' }, 'ui')).not.toThrow();
  expect(KetcherControlUiInput.safeParse({ action: 'set_structure', value: big, bogus: 1 }).success).toBe(false); // still strict
  expect(KetcherControlUiInput.safeParse({ action: 'set_structure', value: 'C'.repeat(LIMITS.ketcherStructureChars + 1) }).success).toBe(
    false
  );
});
