/**
 * The folders of src/core form a DAG: a folder that imports another must not be imported by it, directly or through
 * others. A cycle between folders is how a layer stops being one (approval and tools importing each other through
 * the tool definitions was one), so it fails here, named, before it grows. Type-only and dynamic imports count: they
 * couple the folders as much as any other.
 */
import * as assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const coreRoot = path.resolve(import.meta.dirname, '../../src/core');
const sharedRoot = path.resolve(import.meta.dirname, '../../src/shared');
/** The host <-> webview contract, as a unit of the graph. */
const sharedUnit = 'src/shared';

/** The unit of layering an import belongs to: its folder under src/core, or a file at the core's root by its name. */
function unitOf(file: string): string {
  const [first, ...rest] = path.relative(coreRoot, file).split(path.sep);
  return rest.length === 0 ? (first ?? '').replace(/\.ts$/, '') : `${first ?? ''}/`;
}

/** Every import between two units of src/core, with a file that makes it (for the message). */
function coreImports(): Map<string, Map<string, string>> {
  const edges = new Map<string, Map<string, string>>();
  const files = readdirSync(coreRoot, { recursive: true, encoding: 'utf8' }).filter((name) => name.endsWith('.ts'));
  for (const name of files) {
    const file = path.join(coreRoot, name);
    const from = unitOf(file);
    for (const imported of ts.preProcessFile(readFileSync(file, 'utf8'), true, true).importedFiles) {
      if (!imported.fileName.startsWith('.')) {
        continue; // a package or node: builtin
      }
      const target = path.resolve(path.dirname(file), imported.fileName);
      const outside = path.relative(coreRoot, target).startsWith('..');
      if (outside && !path.relative(sharedRoot, target).startsWith('..')) {
        // src/shared: a layer of its own, which imports nothing of the core (so in no cycle), recorded for the rules below
        const targets = edges.get(from) ?? new Map<string, string>();
        targets.set(sharedUnit, targets.get(sharedUnit) ?? `${name} imports ${imported.fileName}`);
        edges.set(from, targets);
        continue;
      }
      if (outside) {
        continue;
      }
      const to = unitOf(target);
      if (to !== from) {
        const targets = edges.get(from) ?? new Map<string, string>();
        targets.set(to, targets.get(to) ?? `${name} imports ${imported.fileName}`);
        edges.set(from, targets);
      }
    }
  }
  return edges;
}

/** The cycles of a graph: each strongly connected component of more than one node, as its sorted nodes (Tarjan). */
function cycles(edges: ReadonlyMap<string, ReadonlyMap<string, string>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, index.size);
    low.set(node, index.get(node) ?? 0);
    stack.push(node);
    onStack.add(node);
    for (const next of edges.get(node)?.keys() ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node) ?? 0, low.get(next) ?? 0));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node) ?? 0, index.get(next) ?? 0));
      }
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      let member: string | undefined;
      do {
        member = stack.pop();
        if (member !== undefined) {
          onStack.delete(member);
          component.push(member);
        }
      } while (member !== undefined && member !== node);
      if (component.length > 1) {
        found.push(component.sort());
      }
    }
  };
  for (const node of edges.keys()) {
    if (!index.has(node)) {
      visit(node);
    }
  }
  return found;
}

const graph = (pairs: [string, string][]): Map<string, Map<string, string>> => {
  const edges = new Map<string, Map<string, string>>();
  for (const [from, to] of pairs) {
    edges.set(from, (edges.get(from) ?? new Map<string, string>()).set(to, `${from} -> ${to}`));
  }
  return edges;
};

describe('the layers of src/core', () => {
  const rows: { name: string; pairs: [string, string][]; cycles: string[][] }[] = [
    { name: 'a chain has no cycle', pairs: [['tools/', 'approval/'], ['approval/', 'review/'], ['review/', 'diff/']], cycles: [] },
    { name: 'two folders importing each other', pairs: [['approval/', 'tools/'], ['tools/', 'approval/']], cycles: [['approval/', 'tools/']] },
    { name: 'a cycle through a third folder', pairs: [['diff/', 'tools/'], ['tools/', 'review/'], ['review/', 'diff/'], ['tools/', 'approval/']], cycles: [['diff/', 'review/', 'tools/']] },
    { name: 'a diamond has no cycle', pairs: [['a/', 'b/'], ['a/', 'c/'], ['b/', 'd/'], ['c/', 'd/']], cycles: [] },
  ];
  for (const row of rows) {
    it(`finds cycles: ${row.name}`, () => {
      assert.deepEqual(cycles(graph(row.pairs)), row.cycles);
    });
  }

  it('no two folders of src/core import each other, directly or through others', () => {
    const edges = coreImports();
    assert.ok((edges.get('tools/')?.size ?? 0) > 3, 'the import graph was read');
    const described = cycles(edges).map((component) =>
      component
        .flatMap((from) => component.filter((to) => edges.get(from)?.has(to)).map((to) => `${from} -> ${to} (${edges.get(from)?.get(to) ?? ''})`))
        .join('; '),
    );
    assert.deepEqual(described, [], `folders of src/core in a cycle:\n${described.join('\n')}`);
  });

  // What the README's layout says a folder knows nothing of: the gate neither the contract nor the views drawn from
  // it; the agent decides from the gate's waiting calls, not from their views.
  const apart: { from: string; never: string[] }[] = [
    { from: 'approval/', never: ['views/', sharedUnit] },
    { from: 'agent/', never: ['views/'] },
  ];
  for (const rule of apart) {
    it(`${rule.from} imports nothing of ${rule.never.join(' or ')}`, () => {
      const targets = coreImports().get(rule.from);
      assert.ok((targets?.size ?? 0) > 0, 'the import graph was read');
      const found = rule.never.flatMap((unit) => (targets?.has(unit) === true ? [targets.get(unit) ?? unit] : []));
      assert.deepEqual(found, []);
    });
  }
});
