/** `npm run bench`: prints every benchmark table. Nothing here is asserted; read the ratios. */
import { agentBench } from './agent';
import { burstBench } from './burst';
import { callersBench } from './callers';
import { diffBench } from './diff';
import { exportBench } from './export';
import { foundationBench } from './foundation';
import { gateBench } from './gate';
import { mcpBench } from './mcp';
import { reviewBench } from './review';
import { sandboxBench } from './sandbox';
import { shellBench } from './shell';
import { printTable, type Row } from './table';
import { closeBrowser } from '../test/e2e/harness/workbench';

/** Every table, by the name `npm run bench -- <name> …` picks it with (all of them when none is named). */
const tables: { name: string; title: string; run: () => Promise<Row[]> }[] = [
  { name: 'diff', title: 'Diff: 10,000-line files against git diff --no-index', run: diffBench },
  { name: 'review', title: 'Review and undo: per-hunk apply, checkpoints and undo plans for a 10,000-line file', run: reviewBench },
  { name: 'gate', title: 'Gate: policy and panel', run: gateBench },
  { name: 'burst', title: 'Burst: calls arriving at once into the real panel', run: burstBench },
  { name: 'shell', title: 'Shell: analysis against a naive split on operators', run: shellBench },
  { name: 'sandbox', title: 'Sandbox: cost per command against the same command unconfined', run: sandboxBench },
  { name: 'agent', title: 'Agent: loop overhead and streaming', run: agentBench },
  { name: 'mcp', title: 'MCP: calls through the manager and the gate', run: mcpBench },
  { name: 'callers', title: 'Other agents: a gated call allowed by a grant, per caller', run: callersBench },
  { name: 'foundation', title: 'Foundation: activation and sizes', run: foundationBench },
  { name: 'export', title: 'Audit export: cost per decision on the host against the audit record alone', run: exportBench },
];

async function main(): Promise<void> {
  const named = process.argv.slice(2);
  const unknown = named.filter((name) => !tables.some((table) => table.name === name));
  if (unknown.length > 0) {
    throw new Error(`no benchmark table named ${unknown.join(', ')}; the tables are ${tables.map((table) => table.name).join(', ')}`);
  }
  for (const table of tables.filter((candidate) => named.length === 0 || named.includes(candidate.name))) {
    printTable(table.title, await table.run());
  }
}

main()
  .then(() => closeBrowser())
  .catch(async (error: unknown) => {
    console.error(error);
    await closeBrowser();
    process.exitCode = 1;
  });
