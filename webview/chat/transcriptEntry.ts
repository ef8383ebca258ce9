/**
 * One entry of the chat's transcript, by its kind: the person's task, the model's answer (a long one in part), a notice
 * (with its countdown, its commands, Resume or Retry), a tool call with its status and what the person decided, a
 * question of the agent, and the changes of a task.
 */
import type { ChatEntry } from '../../src/shared/messages';
import { button, h, icon } from '../shared/elements';
import type { HostChannel } from '../shared/hostChannel';
import { decisionNote } from './decisionNote';
import type { HostClock } from './hostClock';
import { renderMarkdown } from './markdown';
import { taskChangesEntry } from './taskChanges';

export interface EntryContext {
  channel: HostChannel;
  clock: HostClock;
  /** "Decide below": the waiting cards brought into view, the first focused. */
  showWaiting(): void;
}

/** How much of an answer is drawn at first: a 2 MB answer would otherwise be megabytes of DOM, redrawn as it streams. */
export const answerPreviewChars = 20_000;

const statusIcons: Record<string, string> = { waiting: 'shield', running: 'loading', done: 'pass', denied: 'circle-slash', failed: 'error', interrupted: 'debug-disconnect' };
const statusText: Record<string, string> = { waiting: 'waiting for approval', running: 'running', done: 'done', denied: 'denied', failed: 'failed', interrupted: 'interrupted by a window reload' };

/** What a tool call is about; a write or edit that ran links its file to the diff of what it changed. */
function summaryOf(entry: Extract<ChatEntry, { kind: 'tool' }>, channel: HostChannel): HTMLElement {
  if (entry.change === undefined) {
    return h('span', { class: 'summary' }, entry.summary);
  }
  const link = h('a', { href: '#', class: 'summary', 'data-action': 'open-call-change', title: `Open the diff of what this call changed in ${entry.summary}` }, entry.summary);
  link.addEventListener('click', (event) => {
    event.preventDefault();
    channel.send({ type: 'openCallChange', entryId: entry.id });
  });
  return link;
}

export function renderEntry(entry: ChatEntry, context: EntryContext): HTMLElement {
  const { channel, clock } = context;
  switch (entry.kind) {
    case 'user':
      return h('div', { class: 'entry user', 'data-entry': 'user' }, h('p', {}, entry.text));
    case 'assistant': {
      // A long answer is drawn in part (its start; while it streams, also as it grows): the rest on request.
      const long = entry.text.length > answerPreviewChars;
      const shown = long ? entry.text.slice(0, answerPreviewChars) : entry.text;
      const body = h('div', { class: 'entry assistant', 'data-entry': 'assistant', 'data-streaming': String(entry.streaming) }, ...renderMarkdown(shown));
      if (long) {
        const rest = entry.text.length - answerPreviewChars;
        const more = button({ 'data-action': 'show-whole-answer', secondary: true, ...(entry.streaming ? { disabled: true } : {}) },
          entry.streaming ? `${rest.toLocaleString()} more characters as it streams…` : `Show the whole answer (${rest.toLocaleString()} more characters)`,
        );
        more.addEventListener('click', () => {
          more.replaceWith(...renderMarkdown(entry.text.slice(answerPreviewChars)));
        });
        body.append(h('div', { class: 'actions' }, more));
      }
      body.hidden = entry.text === '' && !entry.streaming;
      if (entry.streaming && entry.text === '' && entry.since !== undefined) {
        // Nothing from the model yet: say that it is being waited for, and for how long.
        body.append(h('p', { class: 'working muted', 'data-field': 'working', 'data-since': String(entry.since), role: 'status' }, icon('loading', { spin: true }), ' ', h('span', { class: 'elapsed' }, clock.workingText(entry.since))));
      }
      return body;
    }
    case 'notice': {
      const notice = h('div', { class: `entry notice ${entry.level === 'error' ? 'error' : ''}`, 'data-entry': 'notice', role: entry.level === 'error' ? 'alert' : 'status' }, h('p', {}, entry.text));
      if (entry.retryAt !== undefined) {
        notice.append(h('p', { class: 'muted', 'data-field': 'retry-countdown', 'data-retry-at': String(entry.retryAt) }, clock.countdownText(entry.retryAt)));
      }
      if (entry.actions !== undefined && entry.actions.length > 0) {
        const buttons = entry.actions.map(({ command, label }) => {
          const action = button({ 'data-action': 'host-command', 'data-command': command, secondary: true }, label);
          action.addEventListener('click', () => channel.command(command));
          return action;
        });
        notice.append(h('div', { class: 'actions' }, ...buttons));
      }
      if (entry.resume === true) {
        const resume = button({ 'data-action': 'resume', 'aria-label': 'Resume the interrupted task' }, icon('debug-continue'), 'Resume');
        resume.addEventListener('click', () => channel.send({ type: 'resume' }));
        notice.append(h('div', { class: 'actions' }, resume));
      }
      if (entry.retry === true) {
        const retry = button({ 'data-action': 'retry', 'aria-label': 'Retry the failed model turn' }, icon('refresh'), 'Retry');
        retry.addEventListener('click', () => channel.send({ type: 'retry' }));
        notice.append(h('div', { class: 'actions' }, retry));
      }
      return notice;
    }
    case 'tool': {
      const card = h('div', { class: `entry tool status-${entry.status}`, 'data-entry': 'tool', 'data-tool': entry.name, 'data-status': entry.status },
        icon(statusIcons[entry.status] ?? 'tools', { spin: entry.status === 'running' }),
        ' ', h('code', {}, entry.name), ' ', summaryOf(entry, channel), ' ',
        h('span', { class: 'tool-status' }, statusText[entry.status] ?? entry.status));
      card.append(...decisionNote(entry, channel));
      if (entry.status === 'waiting') {
        const link = h('a', { href: '#', 'data-action': 'show-waiting' }, 'Decide below');
        link.addEventListener('click', (event) => {
          event.preventDefault();
          context.showWaiting();
        });
        card.append(' · ', link);
      }
      if (entry.status === 'running' && entry.name === 'run_in_terminal') {
        // A long command (a watcher, a dev server): what it has staged so far, before anything lands.
        const link = h('a', { href: '#', 'data-action': 'staged-so-far', title: 'What the command has changed so far, staged (not in your workspace)' }, 'Changes so far');
        link.addEventListener('click', (event) => {
          event.preventDefault();
          channel.command('showStagedChanges');
        });
        card.append(' · ', link);
      }
      if (entry.output !== undefined && entry.status !== 'waiting') {
        const details = h('details', {}, h('summary', {}, 'Result'), h('pre', { class: 'output' }, entry.output));
        if (entry.fullResult !== undefined) {
          // The model got its head and tail; the person can read all of it.
          const open = button({ 'data-action': 'open-result', secondary: true }, `Open the whole result (${entry.fullResult.chars.toLocaleString()} characters)`);
          open.addEventListener('click', () => channel.send({ type: 'openResult', entryId: entry.id }));
          details.append(h('div', { class: 'actions' }, open));
        }
        card.append(details);
      }
      return card;
    }
    case 'question': {
      const box = h('div', { class: 'entry question', 'data-entry': 'question', 'data-question-id': entry.id }, h('p', { class: 'question-text' }, entry.question));
      if (entry.answer !== undefined) {
        box.append(h('p', { class: 'muted', 'data-field': 'answer' }, `Answered: ${entry.answer}`));
        return box;
      }
      const buttons = entry.options.map((option) => {
        const choice = button({ 'data-action': 'answer', 'data-option': option, secondary: true }, option);
        choice.addEventListener('click', () => channel.send({ type: 'answer', questionId: entry.id, answer: option }));
        return choice;
      });
      box.append(h('div', { class: 'actions' }, ...buttons));
      if (entry.allowFreeText) {
        const input = h('input', { type: 'text', 'data-field': 'free-answer', placeholder: 'Or type an answer', 'aria-label': 'Your answer' });
        const answer = button({ 'data-action': 'answer-text' }, 'Answer');
        const go = (): void => {
          if (input.value.trim() !== '') {
            channel.send({ type: 'answer', questionId: entry.id, answer: input.value.trim() });
          }
        };
        answer.addEventListener('click', go);
        input.addEventListener('keydown', (event) => {
          if (event.key === 'Enter') {
            go();
          }
        });
        box.append(h('div', { class: 'actions' }, input, answer));
      }
      return box;
    }
    case 'changes':
      return taskChangesEntry(entry, channel);
  }
}
