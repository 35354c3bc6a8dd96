// The legend swatch of every series has the colour of its line (the legend item's own text colour is the
// foreground, so a swatch left at currentColor would be black: the bug this guards against).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

const css = readFileSync(join(__dirname, '..', 'style', 'base.css'), 'utf8');

describe('dashboard legend colours', () => {
  it('gives each series swatch the stroke colour of its line', () => {
    const strokes = [...css.matchAll(/^\.wf-series-(\d) \{ stroke: (#[0-9a-f]{6});/gm)].map((m) => [m[1], m[2]]);
    expect(strokes.length).toBe(6);
    for (const [i, colour] of strokes) {
      const swatch = new RegExp(`\\.wf-legend-item\\.wf-series-${i} \\.wf-swatch \\{ background: (#[0-9a-f]{6}); \\}`).exec(css);
      expect(swatch?.[1], `series ${i}`).toBe(colour);
    }
  });
});
