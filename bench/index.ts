/** `npm run bench`: prints every benchmark table. Nothing here is asserted; read the ratios. */
import { foundationBench } from './foundation';
import { printTable } from './table';
import { closeBrowser } from '../test/e2e/harness/workbench';

async function main(): Promise<void> {
  printTable('Foundation: activation and sizes', await foundationBench());
}

main()
  .then(() => closeBrowser())
  .catch(async (error: unknown) => {
    console.error(error);
    await closeBrowser();
    process.exitCode = 1;
  });
