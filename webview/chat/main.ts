import type { ChatEntry, ChatState, ViewState } from '../../src/shared/messages';
import { button, connect, h, icon, markConnected, requireElement, focusCard } from '../shared/bridge';
import { decisionNote } from './decisionNote';
import { InlineCards } from './inlineCards';
import { renderMarkdown } from './markdown';
import { ModelSetupForm } from './modelSetup';
import { taskChangesEntry } from './taskChanges';
import { TurnUndos } from './turnUndo';

const root = requireElement('root');
let updates = 0;
let latest: ChatState | undefined;
const rendered = new Map<string, { v: number; element: HTMLElement }>();

/** Host clock minus this view's (the host may run on another machine): times the host sends are shown in ours. */
let hostClockOffset = 0;

const bridge = connect('chat', {
  onState(state: ViewState, _reason, sentAt: number) {
    if (state.view !== 'chat') {
      return;
    }
    hostClockOffset = sentAt - Date.now();
    updates += 1;
    render(state);
    markConnected(root, updates);
  },
  onFocus(field) {
    if (field === 'model-setup') {
      openSetup();
    } else {
      closeSetup();
      prompt.focus();
    }
  },
  onFocusCall(callId) {
    focusCard(callId);
  },
  onResult(_requestId, ok, error) {
    if (!ok) {
      errorBar.hidden = false;
      errorBar.textContent = error ?? 'refused';
    }
  },
});

// The model as a chip in the composer (the endpoint in its tooltip and accessible name): a click opens the model setup.
const modelChip = button({ secondary: true, class: 'chip', 'data-field': 'model', 'data-action': 'setup-open' });
modelChip.addEventListener('click', () => (setup.isOpen ? closeSetup() : openSetup()));
const waitingLine = h('p', { class: 'waiting-line', 'data-field': 'waiting', role: 'status', hidden: true });
// One line: the transcript keeps the height (the whole sentence is its tooltip).
const trustLine = h('p', { class: 'notice warning one-line', role: 'note', hidden: true, title: 'This workspace is not trusted: every gated call asks, whatever the rules say.' },
  'Untrusted workspace: every gated call asks.');
const errorBar = h('p', { class: 'notice error', role: 'alert', hidden: true });
const transcript = h('div', { class: 'transcript', 'data-field': 'transcript', role: 'log', 'aria-live': 'polite' });
// Two rows at most: what to type while calls wait is said by the waiting line.
const defaultPlaceholder = 'Describe a task (Enter sends, Shift+Enter adds a line)';
const promptRows = { min: 2, max: 10 };
const prompt = h('textarea', {
  'data-field': 'prompt',
  rows: String(promptRows.min),
  placeholder: defaultPlaceholder,
  'aria-label': 'Task for the agent',
});
const send = button({ 'data-action': 'send' }, icon('send'), 'Send');
const stop = button({ 'data-action': 'stop', secondary: true, hidden: true }, icon('debug-stop'), 'Stop');
const history = h('select', { 'data-field': 'history', 'aria-label': 'Chats of this workspace' });
// The waiting calls of this chat, decided in place: the last thing in the transcript, just above the prompt.
const inline = new InlineCards(bridge, () => prompt.focus());
transcript.append(inline.element);

// The model setup takes the place of the transcript and the prompt while it is open (the side bar is narrow); Close
// (or Escape) gives them back, with the focus on the model chip.
const setup = new ModelSetupForm(bridge, () => {
  transcript.hidden = false;
  composer.classList.remove('setup-open');
  modelChip.setAttribute('aria-expanded', 'false');
  modelChip.focus();
});
function openSetup(): void {
  if (latest === undefined) {
    return;
  }
  transcript.hidden = true;
  composer.classList.add('setup-open');
  modelChip.setAttribute('aria-expanded', 'true');
  setup.open(latest.model);
}
function closeSetup(): void {
  if (setup.isOpen) {
    setup.close();
  }
}

const submit = (): void => {
  const text = prompt.value.trim();
  if (text === '') {
    return;
  }
  errorBar.hidden = true;
  bridge.send({ type: 'submit', prompt: text });
  prompt.value = '';
  fitPrompt();
};
/** The prompt grows with what is typed, from two rows to ten, then scrolls: short by default, the transcript keeps the room. */
function fitPrompt(): void {
  const lines = prompt.value.split('\n').length;
  prompt.rows = Math.min(promptRows.max, Math.max(promptRows.min, lines));
}
prompt.addEventListener('input', fitPrompt);
send.addEventListener('click', submit);
prompt.addEventListener('keydown', (event) => {
  if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
    event.preventDefault();
    submit();
  }
});
stop.addEventListener('click', () => bridge.send({ type: 'stop' }));
history.addEventListener('change', () => {
  if (latest && history.value !== latest.chatId) {
    bridge.send({ type: 'openChat', chatId: history.value });
  }
});

/** Whether the transcript shows its end: it then stays there as entries grow and as the view is resized. */
let pinnedToBottom = true;
const isAtBottom = (): boolean => transcript.scrollHeight - transcript.scrollTop - transcript.clientHeight < 40;
transcript.addEventListener('scroll', () => {
  pinnedToBottom = isAtBottom();
});
new ResizeObserver(() => {
  if (pinnedToBottom) {
    transcript.scrollTop = transcript.scrollHeight;
  }
}).observe(transcript);

const composer = h('div', { class: 'composer' }, prompt, h('div', { class: 'actions composer-actions' }, send, stop, h('span', { class: 'spacer' }), modelChip));
// A new chat, the Approvals panel, the audit log and the rest are in the view's title bar: the body keeps the room
// for the transcript (at 900x700, at least half the view).
root.replaceChildren(
  h('header', { class: 'chat-header' }, history),
  trustLine,
  setup.element,
  transcript,
  waitingLine,
  errorBar,
  composer,
);

const hostNow = (): number => Date.now() + hostClockOffset;

/** How much of an answer is drawn at first: a 2 MB answer would otherwise be megabytes of DOM, redrawn as it streams. */
const answerPreviewChars = 20_000;

function seconds(ms: number): string {
  const total = Math.max(0, Math.round(ms / 1000));
  return total < 60 ? `${total} s` : `${Math.floor(total / 60)} min ${total % 60} s`;
}

const workingText = (since: number): string => `Working… waiting for the model, ${seconds(hostNow() - since)}`;

function countdownText(retryAt: number): string {
  return `Trying again in ${seconds(retryAt - hostNow())}.`;
}

/** Each live time as it is now: a countdown shows until its attempt is sent, "Working…" from when it was sent. */
function tick(): void {
  for (const element of transcript.querySelectorAll<HTMLElement>('[data-since]')) {
    const since = Number(element.dataset['since']);
    element.hidden = hostNow() < since;
    const elapsed = element.querySelector('.elapsed');
    if (elapsed) {
      elapsed.textContent = workingText(since);
    }
  }
  for (const element of transcript.querySelectorAll<HTMLElement>('[data-retry-at]')) {
    const retryAt = Number(element.dataset['retryAt']);
    element.hidden = hostNow() >= retryAt;
    element.textContent = countdownText(retryAt);
  }
}
// One clock for every live time in the transcript.
setInterval(tick, 1000);

/** Example tasks the empty chat offers: a click puts one in the prompt, to send or change. */
const examples = [
  'Explain how this project is laid out and where to start reading',
  'Add a section to the README on how to run the tests',
  'Find a failing test, then fix it',
];

/** What an empty chat shows a person: what this chat is, something to start from, and where the rules are. */
function welcome(): HTMLElement {
  const tryButtons = examples.map((example) => {
    // Its text wraps in a narrow side bar (`.welcome .button.example`).
    const exampleButton = button({ secondary: true, class: 'example', 'data-action': 'example', 'data-example': example }, example);
    exampleButton.addEventListener('click', () => {
      prompt.value = example;
      prompt.focus();
    });
    return exampleButton;
  });
  const rule = (command: 'openTerminalRules' | 'openEditRules' | 'openGatedTools', label: string): HTMLElement => {
    const link = h('a', { href: '#', 'data-action': 'host-command', 'data-command': command }, label);
    link.addEventListener('click', (event) => {
      event.preventDefault();
      bridge.command(command);
    });
    return link;
  };
  return h(
    'section',
    { class: 'welcome', 'data-field': 'welcome', 'aria-label': 'Welcome' },
    h('p', {}, "Toolgate's agent works in this folder. Every file it writes or edits, every command and every MCP call it makes waits for your approval, here or in the Approvals panel, with the exact diff or arguments."),
    h('p', { class: 'muted' }, 'Only this chat is gated: calls of VS Code\'s own chat and other agents are not, unless they use Toolgate\'s tools.'),
    h('p', { class: 'welcome-heading' }, 'Try:'),
    h('div', { class: 'actions examples' }, ...tryButtons),
    h('p', { class: 'muted' }, 'What runs without asking: ', rule('openTerminalRules', 'terminal rules'), ', ', rule('openEditRules', 'edit rules'), ', ', rule('openGatedTools', 'gated tools'), '.'),
    h('p', { class: 'welcome-model' }, welcomeModel, ' ', setUp),
  );
}
/** The welcome's model line: which model answers, and the setup one click away (a new user's first stop). */
const welcomeModel = h('span', { 'data-field': 'welcome-model' });
const setUp = button({ secondary: true, 'data-action': 'setup-open' }, icon('settings-gear'), 'Set up the model');
setUp.addEventListener('click', openSetup);

const welcomeBlock = welcome();
const turnUndos = new TurnUndos(bridge);

const statusIcons: Record<string, string> = { waiting: 'shield', running: 'loading', done: 'pass', denied: 'circle-slash', failed: 'error', interrupted: 'debug-disconnect' };
const statusText: Record<string, string> = { waiting: 'waiting for approval', running: 'running', done: 'done', denied: 'denied', failed: 'failed', interrupted: 'interrupted by a window reload' };

/** What a tool call is about; a write or edit that ran links its file to the diff of what it changed. */
function summaryOf(entry: Extract<ChatEntry, { kind: 'tool' }>): HTMLElement {
  if (entry.change === undefined) {
    return h('span', { class: 'summary' }, entry.summary);
  }
  const link = h('a', { href: '#', class: 'summary', 'data-action': 'open-call-change', title: `Open the diff of what this call changed in ${entry.summary}` }, entry.summary);
  link.addEventListener('click', (event) => {
    event.preventDefault();
    bridge.send({ type: 'openCallChange', entryId: entry.id });
  });
  return link;
}

function renderEntry(entry: ChatEntry): HTMLElement {
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
        body.append(h('p', { class: 'working muted', 'data-field': 'working', 'data-since': String(entry.since), role: 'status' }, icon('loading', { spin: true }), ' ', h('span', { class: 'elapsed' }, workingText(entry.since))));
      }
      return body;
    }
    case 'notice': {
      const notice = h('div', { class: `entry notice ${entry.level === 'error' ? 'error' : ''}`, 'data-entry': 'notice', role: entry.level === 'error' ? 'alert' : 'status' }, h('p', {}, entry.text));
      if (entry.retryAt !== undefined) {
        notice.append(h('p', { class: 'muted', 'data-field': 'retry-countdown', 'data-retry-at': String(entry.retryAt) }, countdownText(entry.retryAt)));
      }
      if (entry.actions !== undefined && entry.actions.length > 0) {
        const buttons = entry.actions.map(({ command, label }) => {
          const action = button({ 'data-action': 'host-command', 'data-command': command, secondary: true }, label);
          action.addEventListener('click', () => bridge.command(command));
          return action;
        });
        notice.append(h('div', { class: 'actions' }, ...buttons));
      }
      if (entry.resume === true) {
        const resume = button({ 'data-action': 'resume', 'aria-label': 'Resume the interrupted task' }, icon('debug-continue'), 'Resume');
        resume.addEventListener('click', () => bridge.send({ type: 'resume' }));
        notice.append(h('div', { class: 'actions' }, resume));
      }
      if (entry.retry === true) {
        const retry = button({ 'data-action': 'retry', 'aria-label': 'Retry the failed model turn' }, icon('refresh'), 'Retry');
        retry.addEventListener('click', () => bridge.send({ type: 'retry' }));
        notice.append(h('div', { class: 'actions' }, retry));
      }
      return notice;
    }
    case 'tool': {
      const card = h('div', { class: `entry tool status-${entry.status}`, 'data-entry': 'tool', 'data-tool': entry.name, 'data-status': entry.status },
        icon(statusIcons[entry.status] ?? 'tools', { spin: entry.status === 'running' }),
        ' ', h('code', {}, entry.name), ' ', summaryOf(entry), ' ',
        h('span', { class: 'tool-status' }, statusText[entry.status] ?? entry.status));
      card.append(...decisionNote(entry, bridge));
      if (entry.status === 'waiting') {
        const link = h('a', { href: '#', 'data-action': 'show-waiting' }, 'Decide below');
        link.addEventListener('click', (event) => {
          event.preventDefault();
          inline.element.scrollIntoView({ block: 'nearest' });
          inline.focusFirst();
        });
        card.append(' · ', link);
      }
      if (entry.status === 'running' && entry.name === 'run_in_terminal') {
        // A long command (a watcher, a dev server): what it has staged so far, before anything lands.
        const link = h('a', { href: '#', 'data-action': 'staged-so-far', title: 'What the command has changed so far, staged (not in your workspace)' }, 'Changes so far');
        link.addEventListener('click', (event) => {
          event.preventDefault();
          bridge.command('showStagedChanges');
        });
        card.append(' · ', link);
      }
      if (entry.output !== undefined && entry.status !== 'waiting') {
        const details = h('details', {}, h('summary', {}, 'Result'), h('pre', { class: 'output' }, entry.output));
        if (entry.fullResult !== undefined) {
          // The model got its head and tail; the person can read all of it.
          const open = button({ 'data-action': 'open-result', secondary: true }, `Open the whole result (${entry.fullResult.chars.toLocaleString()} characters)`);
          open.addEventListener('click', () => bridge.send({ type: 'openResult', entryId: entry.id }));
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
        choice.addEventListener('click', () => bridge.send({ type: 'answer', questionId: entry.id, answer: option }));
        return choice;
      });
      box.append(h('div', { class: 'actions' }, ...buttons));
      if (entry.allowFreeText) {
        const input = h('input', { type: 'text', 'data-field': 'free-answer', placeholder: 'Or type an answer', 'aria-label': 'Your answer' });
        const answer = button({ 'data-action': 'answer-text' }, 'Answer');
        const go = (): void => {
          if (input.value.trim() !== '') {
            bridge.send({ type: 'answer', questionId: entry.id, answer: input.value.trim() });
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
      return taskChangesEntry(entry, bridge);
  }
}

function render(state: ChatState): void {
  const switched = latest?.chatId !== state.chatId;
  latest = state;
  const endpoint = state.model.provider === 'vscode-lm' ? 'a VS Code language model' : state.model.baseUrl;
  modelChip.replaceChildren(icon('hubot'), h('span', { class: 'chip-text' }, state.model.name));
  modelChip.title = `Model ${state.model.name} at ${endpoint}: click to set up the model`;
  modelChip.setAttribute('aria-label', `Model ${state.model.name} at ${endpoint}. Set up the model`);
  welcomeModel.textContent = `Model: ${state.model.name} at ${endpoint}.`;
  setup.update(state.setup);
  trustLine.hidden = state.trusted;
  waitingLine.hidden = state.waitingCalls === 0;
  waitingLine.textContent = state.waitingCalls === 0 ? '' : `${state.waitingCalls} call${state.waitingCalls === 1 ? '' : 's'} waiting for approval: decide on their cards, or type "yes" or "no, because …".`;
  stop.hidden = !state.running;
  const asking = state.running && state.entries.some((entry) => entry.kind === 'question' && entry.answer === undefined);
  prompt.placeholder = asking ? 'The agent asks a question: type your answer (or an option or its number) and press Enter.' : defaultPlaceholder;
  send.textContent = '';
  send.append(icon('send'), state.running ? 'Reply' : 'Send');
  root.dataset['running'] = String(state.running);
  history.replaceChildren(...state.chats.map((chat) => h('option', { value: chat.id, ...(chat.id === state.chatId ? { selected: true } : {}) }, chat.title)));

  if (switched) {
    rendered.clear();
    transcript.replaceChildren(inline.element);
  }
  const ids = new Set(state.entries.map((entry) => entry.id));
  for (const [id, item] of rendered) {
    if (!ids.has(id)) {
      item.element.remove();
      rendered.delete(id);
    }
  }
  const nearBottom = pinnedToBottom;
  let previous: HTMLElement | undefined;
  for (const entry of state.entries) {
    const existing = rendered.get(entry.id);
    let element = existing?.element;
    if (!existing || existing.v !== entry.v) {
      const fresh = renderEntry(entry);
      fresh.dataset['entryId'] = entry.id;
      if (existing) {
        existing.element.replaceWith(fresh);
      } else if (previous) {
        previous.after(fresh);
      } else {
        transcript.prepend(fresh);
      }
      rendered.set(entry.id, { v: entry.v, element: fresh });
      element = fresh;
    }
    previous = element;
  }
  turnUndos.render(state, rendered);
  // The empty chat says what it is and offers a start; the first entry replaces it.
  if (state.entries.length === 0 && !state.running) {
    if (!welcomeBlock.isConnected) {
      transcript.prepend(welcomeBlock);
    }
  } else {
    welcomeBlock.remove();
  }
  tick();
  const added = inline.render(state.pending);
  if (nearBottom || switched || added) {
    // Again after layout: custom elements and fonts can grow the entries after this frame.
    transcript.scrollTop = transcript.scrollHeight;
    requestAnimationFrame(() => {
      transcript.scrollTop = transcript.scrollHeight;
    });
  }
}
