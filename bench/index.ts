/** `npm run bench`: prints every benchmark table. Nothing here is asserted; read the ratios. */
import { agentBench } from './agent';
import { burstBench } from './burst';
import { callersBench } from './callers';
import { diffBench } from './diff';
import { foundationBench } from './foundation';
import { gateBench } from './gate';
import { mcpBench } from './mcp';
import { reviewBench } from './review';
import { sandboxBench } from './sandbox';
import { shellBench } from './shell';
import { printTable } from './table';
import { closeBrowser } from '../test/e2e/harness/workbench';

async function main(): Promise<void> {
  printTable('Diff: 10,000-line files against git diff --no-index', await diffBench());
  printTable('Review and undo: per-hunk apply, checkpoints and undo plans for a 10,000-line file', await reviewBench());
  printTable('Gate: policy and panel', await gateBench());
  printTable('Burst: calls arriving at once into the real panel', await burstBench());
  printTable('Shell: analysis against a naive split on operators', await shellBench());
  printTable('Sandbox: cost per command against the same command unconfined', await sandboxBench());
  printTable('Agent: loop overhead and streaming', await agentBench());
  printTable('MCP: calls through the manager and the gate', await mcpBench());
  printTable('Other agents: a gated call allowed by a grant, per caller', await callersBench());
  printTable('Foundation: activation and sizes', await foundationBench());
}

main()
  .then(() => closeBrowser())
  .catch(async (error: unknown) => {
    console.error(error);
    await closeBrowser();
    process.exitCode = 1;
  });
