/**
 * Writes `contributes.languageModelTools` of package.json from the tools' zod schemas (src/core/tools/lmTools.ts).
 * Run after changing a built-in tool's schema or description: `node --import tsx scripts/languageModelTools.ts`.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { lmToolContributions } from '../src/core/tools/lmTools';

const file = path.join(import.meta.dirname, '..', 'package.json');
const manifest = JSON.parse(readFileSync(file, 'utf8')) as { contributes: Record<string, unknown> };
manifest.contributes['languageModelTools'] = lmToolContributions();
writeFileSync(file, `${JSON.stringify(manifest, null, 2)}\n`);
console.log(`wrote ${lmToolContributions().length} language-model tools to package.json`);
