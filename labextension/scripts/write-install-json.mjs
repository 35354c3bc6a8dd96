// install.json tells `jupyter labextension list` how the prebuilt extension was installed (by pip, package webflow).
import { writeFileSync } from 'node:fs';

const out = '../webflow/lab/labextension/install.json';
writeFileSync(out, JSON.stringify({ packageManager: 'python', packageName: 'webflow', uninstallInstructions: 'pip uninstall webflow' }, null, 2) + '\n');
console.log(`wrote ${out}`);
