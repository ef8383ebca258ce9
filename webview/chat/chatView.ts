/**
 * The chat view, mounted in a root element with its channel to the host: the transcript and its entries, the agent's
 * waiting calls inline, the composer with the model chip, the chat history and the model setup. `mount` returns what
 * the host's messages reach (the channel's handlers); a DOM test mounts it with a fake channel and plays the host.
 */
import type { ChatState } from '../../src/shared/messages';
import { button, focusCard, h, icon, markConnected } from '../shared/elements';
import type { HostChannel, HostHandlers } from '../shared/hostChannel';
import { HostClock } from './hostClock';
import { InlineCards } from './inlineCards';
import { ModelSetupForm } from './modelSetup';
import { renderEntry, type EntryContext } from './transcriptEntry';
import { TurnUndos } from './turnUndo';

/** Example tasks the empty chat offers: a click puts one in the prompt, to send or change. */
const examples = [
  'Explain how this project is laid out and where to start reading',
  'Add a section to the README on how to run the tests',
  'Find a failing test, then fix it',
];

/** The mounted chat: the host's messages for it, and its clock and observers stopped. */
export interface ChatView extends Required<Pick<HostHandlers, 'onState' | 'onFocus' | 'onFocusCall' | 'onResult'>> {
  dispose(): void;
}

export function mount(root: HTMLElement, channel: HostChannel): ChatView {
  let updates = 0;
  let latest: ChatState | undefined;
  const rendered = new Map<string, { v: number; element: HTMLElement }>();
  const clock = new HostClock();

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
  const inline = new InlineCards(channel, () => prompt.focus());
  transcript.append(inline.element);

  // The model setup takes the place of the transcript and the prompt while it is open (the side bar is narrow); Close
  // (or Escape) gives them back, with the focus on the model chip.
  const setup = new ModelSetupForm(channel, () => {
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
    channel.send({ type: 'submit', prompt: text });
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
  stop.addEventListener('click', () => channel.send({ type: 'stop' }));
  history.addEventListener('change', () => {
    if (latest && history.value !== latest.chatId) {
      channel.send({ type: 'openChat', chatId: history.value });
    }
  });

  /** Whether the transcript shows its end: it then stays there as entries grow and as the view is resized. */
  let pinnedToBottom = true;
  const isAtBottom = (): boolean => transcript.scrollHeight - transcript.scrollTop - transcript.clientHeight < 40;
  transcript.addEventListener('scroll', () => {
    pinnedToBottom = isAtBottom();
  });
  const resizes = new ResizeObserver(() => {
    if (pinnedToBottom) {
      transcript.scrollTop = transcript.scrollHeight;
    }
  });
  resizes.observe(transcript);

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

  // One clock for every live time in the transcript.
  const ticking = setInterval(() => clock.tick(transcript), 1000);

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
        channel.command(command);
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
  const turnUndos = new TurnUndos(channel);
  const entryContext: EntryContext = {
    channel,
    clock,
    showWaiting: () => {
      inline.element.scrollIntoView({ block: 'nearest' });
      inline.focusFirst();
    },
  };

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
        const fresh = renderEntry(entry, entryContext);
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
    clock.tick(transcript);
    const added = inline.render(state.pending);
    if (nearBottom || switched || added) {
      // Again after layout: custom elements and fonts can grow the entries after this frame.
      transcript.scrollTop = transcript.scrollHeight;
      requestAnimationFrame(() => {
        transcript.scrollTop = transcript.scrollHeight;
      });
    }
  }

  return {
    onState(state, _reason, sentAt) {
      if (state.view !== 'chat') {
        return;
      }
      clock.sync(sentAt);
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
    dispose() {
      clearInterval(ticking);
      resizes.disconnect();
    },
  };
}
