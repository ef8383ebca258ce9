// Mocha's spec reporter, plus one plain closing line that any CI can read: "<label>: N passed, N failed, N skipped".
'use strict';
const Mocha = require('mocha');

const { EVENT_RUN_END } = Mocha.Runner.constants;

class SummaryReporter extends Mocha.reporters.Spec {
  constructor(runner, options) {
    super(runner, options);
    const label = (options.reporterOptions && options.reporterOptions.label) || 'tests';
    runner.once(EVENT_RUN_END, () => {
      const { passes, failures, pending } = this.stats;
      console.log(`${label}: ${passes} passed, ${failures} failed, ${pending} skipped`);
    });
  }
}

module.exports = SummaryReporter;
