/**
 * `messageOf` (`../frame/engineQueue.ts`) is total: whatever an engine call
 * throws, the frame gets a string of bounded length to answer the request
 * with. Were it to throw (a cycle, a BigInt, a throwing `toString`), the
 * request in the editor frame would never be answered and the page would wait
 * out its deadline. Fast-check with a fixed seed over arbitrary thrown values.
 */
import fc from 'fast-check';
import { MESSAGE_CHARS, messageOf } from '../frame/engineQueue';
import { fuzzParams } from '../../__tests__/fuzzKit';

function cycle(): unknown {
  const o: Record<string, unknown> = { name: 'cycle' };
  o.self = o;
  return o;
}

function revoked(): unknown {
  const { proxy, revoke } = Proxy.revocable({}, {});
  revoke();
  return proxy;
}

/** Values whose every reading throws: getters, toJSON, toString, valueOf, Symbol.toPrimitive. */
const hostile = fc.constantFrom<() => unknown>(
  () => ({
    toJSON() {
      throw new Error('toJSON');
    },
    toString() {
      throw new Error('toString');
    }
  }),
  () => {
    const e = new Error('x');
    Object.defineProperty(e, 'message', {
      get() {
        throw new Error('message getter');
      }
    });
    return e;
  },
  () => {
    const e = new Error('x');
    Object.defineProperty(e, 'message', { value: 10n });
    return e;
  },
  () =>
    Object.assign(Object.create(null) as object, {
      [Symbol.toPrimitive]() {
        throw new Error('toPrimitive');
      }
    }),
  () =>
    new Proxy(
      {},
      {
        get: () => {
          throw new Error('trap');
        },
        getPrototypeOf: () => {
          throw new Error('trap');
        }
      }
    ),
  revoked,
  cycle,
  () => ({ big: 10n, self: cycle() }),
  () => Symbol('thrown'),
  () => 'x'.repeat(1_000_000),
  () => new Error('y'.repeat(100_000)),
  () => ['z'.repeat(10_000)].concat(Array.from({ length: 1000 }, () => 'w'))
);

/** A maker of the thrown value (fast-check itself would read a hostile value while generating it). */
const thrown: fc.Arbitrary<() => unknown> = fc.oneof(
  fc
    .anything({
      withBigInt: true,
      withBoxedValues: true,
      withDate: true,
      withMap: true,
      withSet: true,
      withNullPrototype: true,
      withObjectString: true,
      withSparseArray: true,
      withTypedArray: true,
      withUnicodeString: true
    })
    .map(v => () => v),
  fc.string({ unit: 'binary' }).map(m => () => new Error(m)),
  fc.bigInt().map(b => () => b),
  hostile
);

describe('messageOf: the message of whatever an engine call throws', () => {
  it('never throws, and answers a string of at most MESSAGE_CHARS characters', () => {
    let runs = 0;
    fc.assert(
      fc.property(thrown, make => {
        runs++;
        const text = messageOf(make());
        expect(typeof text).toBe('string');
        expect(text.length).toBeLessThanOrEqual(MESSAGE_CHARS);
      }),
      fuzzParams(5000)
    );
    expect(runs).toBe(5000);
  });

  it('keeps what it can read: an Error its message, a string itself, a cycle or a BigInt a name of its kind', () => {
    expect(messageOf(new Error('Indigo: bad SMILES'))).toBe('Indigo: bad SMILES');
    expect(messageOf('plain')).toBe('plain');
    expect(messageOf({ a: 1 })).toBe('{"a":1}');
    expect(messageOf(10n)).toBe('10');
    expect(messageOf(cycle())).toBe('[object Object]');
    expect(messageOf(revoked())).toBe('unknown error');
    const long = messageOf('x'.repeat(1_000_000));
    expect(long).toMatch(/ … \[cut \d+ characters\]$/);
  });
});
