/**
 * src/vscode translates between VS Code and the core, and every file there does: a file that does not import `vscode`
 * holds something else (a rule, a list, a type) that belongs in the core or in src/shared. Type-only imports count:
 * a port implemented over a VS Code type is still a translation.
 */
import * as assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const vscodeRoot = path.resolve(import.meta.dirname, '../../src/vscode');

const importsVscode = (source: string): boolean => ts.preProcessFile(source, true, true).importedFiles.some((imported) => imported.fileName === 'vscode');

describe('the layer of src/vscode', () => {
  const rows: { name: string; source: string; imports: boolean }[] = [
    { name: 'a value import', source: "import * as vscode from 'vscode';", imports: true },
    { name: 'a type import', source: "import type * as vscode from 'vscode';", imports: true },
    { name: 'only the core', source: "import { x } from '../core/x';", imports: false },
    { name: 'a folder named vscode is not the module', source: "import { y } from './vscode';", imports: false },
  ];
  for (const row of rows) {
    it(`reads ${row.name}`, () => {
      assert.equal(importsVscode(row.source), row.imports);
    });
  }

  it('every file in src/vscode imports vscode', () => {
    const files = readdirSync(vscodeRoot, { recursive: true, encoding: 'utf8' }).filter((name) => name.endsWith('.ts'));
    assert.ok(files.length > 10, 'the folder was read');
    const without = files.filter((name) => !importsVscode(readFileSync(path.join(vscodeRoot, name), 'utf8')));
    assert.deepEqual(without, [], `files of src/vscode that do not import vscode (move them to the core or src/shared):\n${without.join('\n')}`);
  });

  // What translates stays small: a layer that grows past this has taken on decisions that belong in the core.
  it('src/vscode holds at most 3,000 lines', () => {
    const files = readdirSync(vscodeRoot, { recursive: true, encoding: 'utf8' }).filter((name) => name.endsWith('.ts'));
    const lines = files.map((name) => ({ name, lines: readFileSync(path.join(vscodeRoot, name), 'utf8').split('\n').length - 1 }));
    const total = lines.reduce((sum, file) => sum + file.lines, 0);
    const largest = [...lines].sort((a, b) => b.lines - a.lines).slice(0, 5).map((file) => `${file.name} ${file.lines}`);
    assert.ok(total <= 3000, `src/vscode holds ${total} lines (largest: ${largest.join(', ')}): move what decides into the core`);
  });
});
