// Bundle the renderer without JupyterLab into dist/webflow-graph.js (+ dist/webflow-graph.css):
// one IIFE file that sets window.webflowGraph, for static pages.
import { build } from 'esbuild';
import { copyFileSync, mkdirSync } from 'node:fs';

mkdirSync('dist', { recursive: true });
await build({
  entryPoints: ['src/standalone.ts'],
  bundle: true,
  format: 'iife',
  target: 'es2020',
  outfile: 'dist/webflow-graph.js',
  legalComments: 'none',
  logLevel: 'warning'
});
copyFileSync('style/base.css', 'dist/webflow-graph.css');
console.log('standalone bundle: dist/webflow-graph.js, dist/webflow-graph.css');
