import * as assert from 'node:assert/strict';
import { planQuestionAnswer } from '../../src/core/agent/userQuestions';

describe('what typed text answers to a waiting question', () => {
  const choose = { options: ['Keep the old API', 'Rename it', 'Ask me later'], allowFreeText: false };
  const free = { options: ['Yes', 'No'], allowFreeText: true };
  const rows: [string, typeof choose, string | RegExp][] = [
    ['rename it', choose, 'Rename it'],
    ['Rename it.', choose, 'Rename it'],
    ['2', choose, 'Rename it'],
    ['#3', choose, 'Ask me later'],
    ['option 1', choose, 'Keep the old API'],
    ['keep', choose, 'Keep the old API'],
    ['later', choose, 'Ask me later'],
    ['it', choose, /^The agent asks you to choose: 1: Keep the old API; 2: Rename it; 3: Ask me later\./],
    ['4', choose, /choose/],
    ['something else entirely', choose, /choose/],
    ['yes', free, 'Yes'],
    ['2', free, 'No'],
    ['no, use tabs instead', free, 'no, use tabs instead'],
    ['   ', free, /choose/],
  ];
  for (const [typed, question, expected] of rows) {
    it(`${JSON.stringify(typed)} with ${question.allowFreeText ? 'free text' : 'options only'}`, () => {
      const plan = planQuestionAnswer(typed, question);
      if (typeof expected === 'string') {
        assert.deepEqual(plan, { kind: 'answer', answer: expected });
      } else {
        assert.equal(plan.kind, 'notice');
        assert.match(plan.text, expected);
      }
    });
  }
});
