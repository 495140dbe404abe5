// src/drawing.js's readers of computed styles and text, without a browser:
// each expected value is worked out by hand from what Chrome's computed
// style gives (colours as rgb(), rgba() and, for color-mix(), color(srgb));
// the whole drawing is tested in embed.test.mjs ("plain SVG").
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { paint, pieces, stripes } from '../../src/drawing.js';

test('colours become SVG 1.1 paint: hex, with an opacity when translucent, nothing when transparent', () => {
  assert.equal(paint('fill', 'rgb(19, 20, 24)'), 'fill="#131418"');
  assert.equal(paint('fill', 'rgba(255, 0, 128, 0.5)'), 'fill="#ff0080" fill-opacity="0.5"');
  assert.equal(paint('fill', 'rgba(0, 0, 0, 0)'), '');
  // color-mix() computes to color(srgb r g b / a), each channel from 0 to 1.
  assert.equal(paint('stroke', 'color(srgb 1 0.5 0 / 0.25)'), 'stroke="#ff8000" stroke-opacity="0.25"');
  assert.equal(paint('fill', 'none'), '');
});

test("the memory bar's hatching is read from its computed gradient: two-position stops come as two stops", () => {
  const css = 'repeating-linear-gradient(135deg, rgb(1, 2, 3) 0px, rgb(1, 2, 3) 6px, color(srgb 0.1 0.2 0.3) 6px, color(srgb 0.1 0.2 0.3) 9px)';
  assert.deepEqual(stripes(css), {
    angle: 135,
    stops: [['rgb(1, 2, 3)', 0], ['rgb(1, 2, 3)', 6], ['color(srgb 0.1 0.2 0.3)', 6], ['color(srgb 0.1 0.2 0.3)', 9]],
  });
  assert.equal(stripes('linear-gradient(rgb(1, 2, 3), rgb(4, 5, 6))'), null);
  assert.equal(stripes('none'), null);
});

test('text is cut where a line may break, in UTF-16 units as a DOM range counts: after spaces and after a hyphen', () => {
  // "𝑥" is two UTF-16 units; a no-break space joins "8" and "GPUs".
  assert.deepEqual(pieces('  8 × 𝑥 tensor-parallel 8\u00a0GPUs'), [
    { start: 2, end: 3, text: '8', spaced: true },
    { start: 4, end: 5, text: '×', spaced: true },
    { start: 6, end: 8, text: '𝑥', spaced: true },
    { start: 9, end: 16, text: 'tensor-', spaced: true },
    { start: 16, end: 24, text: 'parallel', spaced: false },
    { start: 25, end: 31, text: '8\u00a0GPUs', spaced: true },
  ]);
});
