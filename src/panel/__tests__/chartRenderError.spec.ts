/** A chart Vega refuses after the schema passed it: located at the field Vega names. */
import { chartRenderError } from '../chartRenderError';

const spec = {
  mark: 'line',
  encoding: { x: { field: 't', type: 'quantitative' }, y: { field: 'a[', type: 'quantitative' } }
};

describe('chartRenderError', () => {
  it('is VALIDATION_FAILED at the field whose name Vega could not read', () => {
    const err = chartRenderError(spec, new Error('Access path missing closing bracket: a['));
    expect(err.code).toBe('VALIDATION_FAILED');
    expect(err.where).toBe('/content/spec/encoding/y/field');
    expect(err.fix).toContain('escape');
    expect(err.details).toEqual({ vegaMessage: 'Access path missing closing bracket: a[' });
  });

  it('is located at the spec when no field is named, and keeps Vega message bounded', () => {
    const err = chartRenderError(spec, new Error(`Undefined data set name: ${'x'.repeat(5000)}`));
    expect(err.code).toBe('VALIDATION_FAILED');
    expect(err.where).toBe('/content/spec');
    expect(String(err.details.vegaMessage).length).toBeLessThanOrEqual(300);
    expect(chartRenderError(spec, 'not an Error').message).toContain('not an Error');
  });
});
