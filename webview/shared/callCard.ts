/**
 * The card of one waiting call, the same component in the approvals panel (`full`) and the chat (`dense`): what the
 * call is (tool, target, the host's reason, the MCP tool's description and annotations, warnings), what it would do
 * (the diff, decided hunk by hunk, or the command with its analysis, and the exact arguments), the person's edit held
 * by the host, and every decision: Allow once (or Run without sandbox), Edit then allow, Deny with a reason, and the
 * grants for the session, the task, some minutes or always. The layouts differ only in density: the dense card caps
 * the diff's height, names the target in its header and links to the panel.
 *
 * The card renders the host's view model and decides nothing: which actions are off, and why, comes from the view's
 * `off` (the host's rules of a person's choice); every click is a message the host checks again.
 */
import type { DecideMessage, DiffMode, PendingCallView } from '../../src/shared/approvals';
import { editOfProposal } from './editPreview';
import type { DiffView } from './diffView';
import { hunkReviewOf, type HunkReview } from './hunkReview';
import { h, icon } from './elements';
import type { HostChannel } from './hostChannel';
import { actionButton, allRejected, remedyButtons, allowButton, cardDiff, commandPreview, decisionBar, denyWithReason, grantControls, reasonLine, reportFocus, reviewKeys, sendDecision, warningNotes } from './callParts';
import { EditNote, editAnalysis, labelAllowForEdit, shownEditRevision } from './heldEdit';

export type CardLayout = 'full' | 'dense';

export interface CallCardOptions {
  channel: Pick<HostChannel, 'send' | 'command'>;
  layout: CardLayout;
  /** Rows of the diff shown before it scrolls (the dense card's cap). */
  maxRows?: number;
  /** The person's unified / side-by-side choice, where the view offers it. */
  modeMemory?: { get(): DiffMode | undefined; set(mode: DiffMode): void };
  /** This card sent a decision (its view moves the focus on once the call is gone). */
  onDecided?: () => void;
}

type Decision = Pick<DecideMessage, 'action'> & Partial<Pick<DecideMessage, 'reason' | 'grantOption' | 'edited' | 'minutes' | 'remedy'>>;

/** What the card names as the call's target: the file, the command, else the compact arguments. */
export function callTarget(call: PendingCallView): string {
  switch (call.preview.kind) {
    case 'diff':
      return call.preview.path;
    case 'command':
      return call.preview.command;
    case 'none': {
      const compact = call.argsJson.replace(/\s+/g, ' ');
      return compact.length > 80 ? `${compact.slice(0, 79)}…` : compact;
    }
  }
}

/** Where a command runs, as the host says (`sandbox`): in the sandbox, and whether the files it changes are reviewed. */
export function sandboxLine(call: Pick<PendingCallView, 'sandbox'>): HTMLElement | string {
  if (call.sandbox === undefined) {
    return '';
  }
  return h('p', { class: 'sandbox-line', 'data-field': 'sandbox', 'data-sandbox': call.sandbox }, icon('shield'), ' ',
    call.sandbox === 'reviewed'
      ? 'Runs in the sandbox. The files it changes are held there and wait for your review before they land in the workspace.'
      : 'Runs in the sandbox.');
}

/** Turns a button off with the host's reason as its tooltip, or on again. */
function setOff(button: HTMLElement, why: string | undefined): void {
  button.toggleAttribute('disabled', why !== undefined);
  if (why !== undefined) {
    button.title = why;
  } else {
    button.removeAttribute('title');
  }
}

export class CallCard {
  readonly element: HTMLElement;
  /** Where a keyboard user arriving lands: Allow once, or Deny when the allow would lift the sandbox. */
  readonly landing: HTMLElement;
  /** A diff decided hunk by hunk: the host's hunk choices, shared with the other views and the diff editor. */
  readonly review: HunkReview | undefined;
  private latest: PendingCallView;
  private readonly allow: { element: HTMLElement; action: 'allow-once' | 'allow-unconfined' };
  private readonly grantButtons: HTMLElement[] = [];
  private readonly editNote: EditNote;
  private readonly hunkStatus: { summary: HTMLElement; hint: HTMLElement } | undefined;
  private edit: { area: HTMLElement; follow(next: PendingCallView): void } | undefined;

  constructor(call: PendingCallView, private readonly options: CallCardOptions) {
    this.latest = call;
    const dense = options.layout === 'dense';
    const target = callTarget(call);
    const which = dense ? `${call.tool} ${target}` : call.tool;
    const openDiff = (): void => void options.channel.send({ type: 'openDiff', callId: call.callId });
    this.review = hunkReviewOf(call, options.channel);

    this.allow = allowButton(call, which);
    this.allow.element.addEventListener('click', () => !this.allow.element.hasAttribute('disabled') && this.decide({ action: this.allow.action }));
    const { deny, reasonArea } = denyWithReason(which, (reason) => this.decide({ action: 'deny', ...(reason === undefined ? {} : { reason }) }));
    // The narrow fixes the host offers, before the wide allow: each sends its own id.
    const remedies = remedyButtons(call, which, (remedy) => this.decide({ action: 'allow-remedy', remedy }));
    this.landing = this.allow.action === 'allow-unconfined' ? deny : this.allow.element;

    let grants: HTMLElement | string = '';
    if (call.grantable) {
      const controls = grantControls(call, which, (action, grantOption, minutes) => {
        if (this.latest.off?.grant === undefined) {
          this.decide({ action, grantOption, ...(minutes !== undefined ? { minutes } : {}) });
        }
      });
      grants = controls.element;
      this.grantButtons.push(...controls.buttons);
    } else if (!dense) {
      // Shown off, with why, so the person learns that no grant can cover such a call.
      this.grantButtons.push(
        actionButton('allow-session', 'Allow for session', 'history', { secondary: true }),
        ...(call.grantLimits?.workspace === false ? [] : [actionButton('allow-workspace', 'Always allow in workspace', 'workspace-trusted', { secondary: true })]),
      );
      grants = h('div', { class: 'grant-group' }, ...this.grantButtons);
    }

    const editButton = this.editControls(call, which);
    this.editNote = new EditNote(call.editable?.kind === 'content' ? openDiff : undefined);

    const preview = call.preview;
    let diff: DiffView | undefined;
    let previewEl: HTMLElement | string = '';
    if (preview.kind === 'diff') {
      diff = cardDiff(call, preview, { channel: options.channel, review: this.review, onOpenDiff: openDiff, maxRows: options.maxRows, modeMemory: options.modeMemory });
      previewEl = diff.element;
    } else if (preview.kind === 'command') {
      previewEl = commandPreview(preview);
    }
    if (this.review) {
      this.hunkStatus = {
        summary: h('span', { 'data-field': 'hunk-summary' }),
        hint: h('span', { class: 'hunk-hint', 'data-field': 'hunk-hint' }, ` ${allRejected('call').sentence}.`),
      };
      this.review.onDidChange(() => this.syncHunks());
    }

    this.element = h('article', {
      class: dense ? 'inline-call' : 'call',
      role: 'listitem',
      'data-call-id': call.callId,
      'data-tool': call.tool,
      'data-args-hash': call.argsHash,
      'data-layout': options.layout,
      'aria-label': dense ? `${which}: waiting for your approval` : `${call.tool} waiting for approval`,
      tabindex: '-1',
    },
    this.header(call, target),
    reasonLine(call.reason),
    sandboxLine(call),
    this.toolInfo(call),
    ...warningNotes(call.warnings),
    previewEl,
    this.editNote.element,
    this.args(call, preview.kind === 'none'),
    // The decision bar (held in view while the card is, with the header) and, after it, the grants.
    decisionBar(this.hunkStatus ? h('p', { class: 'hunk-status', role: 'status' }, this.hunkStatus.summary, this.hunkStatus.hint) : '',
      [...remedies, this.allow.element, editButton, deny], reasonArea),
    grants,
    this.edit?.area ?? '',
    dense ? this.panelLink() : '');
    reportFocus(this.element, () => call.callId, options.channel);
    if (diff) {
      reviewKeys(this.element, diff);
    }
    this.update(call);
  }

  /** Takes the host's newer state of the call: its hunk choices, its edit, which actions are off. */
  update(next: PendingCallView): void {
    this.latest = next;
    if (this.review && next.hunkChoices) {
      this.review.apply(next.hunkChoices);
    }
    this.edit?.follow(next);
    const boxOpen = this.edit !== undefined && !this.edit.area.hidden;
    // While the box is open, the box's own diff shows the edit.
    this.editNote.update(boxOpen ? { ...next, edit: { revision: shownEditRevision(next) } } : next);
    labelAllowForEdit(this.allow.element, next, this.allow.action === 'allow-unconfined' ? 'Run without sandbox' : 'Allow once');
    setOff(this.allow.element, next.off?.allow);
    for (const button of this.grantButtons) {
      setOff(button, next.off?.grant);
    }
    this.syncHunks();
  }

  private decide(decision: Decision): void {
    // The edit this card shows, by revision: the host refuses an Allow for an edit made elsewhere since.
    sendDecision(this.element, this.options, { callId: this.latest.callId, argsHash: this.latest.argsHash, editRevision: shownEditRevision(this.latest), ...decision });
  }

  /** "2 of 3 hunks accepted", as the person chooses (the host's `off` then turns the buttons off). */
  private syncHunks(): void {
    if (this.review && this.hunkStatus) {
      this.hunkStatus.summary.textContent = this.review.summary();
      this.hunkStatus.hint.hidden = !this.review.allRejected;
    }
  }

  private header(call: PendingCallView, target: string): HTMLElement {
    if (this.options.layout === 'dense') {
      return h('header', { class: 'call-header' },
        h('code', { class: 'tool' }, call.tool),
        h('span', { class: 'target', 'data-field': 'target', title: target }, target));
    }
    return h('header', { class: 'call-header' },
      h('span', { class: 'tool' }, call.tool),
      h('span', { class: 'source' }, `from ${call.callerLabel}`),
      h('span', { class: 'spacer' }),
      h('time', { dateTime: call.waitingSince }, `waiting since ${new Date(call.waitingSince).toLocaleTimeString()}`),
      call.timesOutAt !== undefined ? h('span', { class: 'muted' }, ` · denied at ${new Date(call.timesOutAt).toLocaleTimeString()} if unanswered`) : '');
  }

  /**
   * The exact arguments; long ones with their long values cut (the host sends only their start), and a way to open
   * them whole in an editor.
   */
  private args(call: PendingCallView, open: boolean): HTMLElement {
    if (call.argsCut === undefined) {
      return h('details', { class: 'args', open }, h('summary', {}, 'Arguments (exact)'), h('pre', { 'data-field': 'args' }, call.argsJson));
    }
    const whole = actionButton('open-args', 'Open all arguments', 'json', { secondary: true, title: `All ${call.argsCut.toLocaleString('en-US')} characters, in an editor` });
    whole.addEventListener('click', () => this.options.channel.send({ type: 'openArgs', callId: call.callId }));
    return h('details', { class: 'args', open },
      h('summary', {}, 'Arguments (long values cut)'),
      h('p', { class: 'muted', 'data-field': 'args-cut' }, 'Values over 2,000 characters show their start here, marked "… (N more characters)". ', whole),
      h('pre', { class: 'cut', 'data-field': 'args' }, call.argsJson));
  }

  /** An MCP call: its server, the tool's description and annotations, shown as the server's words, never trusted. */
  private toolInfo(call: PendingCallView): HTMLElement | string {
    const info = call.toolInfo;
    if (!info) {
      return '';
    }
    const body = [
      h('pre', { class: 'description' }, info.description === '' ? '(no description)' : info.description),
      info.annotations.length > 0 ? h('p', { class: 'muted' }, `Annotations (shown only, they never allow anything): ${info.annotations.join(', ')}`) : '',
    ];
    const label = `MCP server ${info.server} · tool description (from the server, not verified)`;
    return this.options.layout === 'dense'
      ? h('details', { class: 'tool-info', 'data-field': 'tool-info' }, h('summary', { class: 'label' }, label), ...body)
      : h('section', { class: 'tool-info', 'data-field': 'tool-info' }, h('div', { class: 'label' }, label), ...body);
  }

  private panelLink(): HTMLElement {
    const link = h('a', { href: '#', class: 'open-panel', 'data-action': 'open-approvals' }, 'Open in the Approvals panel');
    link.addEventListener('click', (event) => {
      event.preventDefault();
      this.options.channel.command('openApprovals');
    });
    return h('p', { class: 'more' }, link);
  }

  /**
   * Edit then allow: a box with the proposed content or command. Its text is the call's edit, held by the host for
   * every view (closing the box undoes it); an edit made elsewhere comes into the box unless the person is typing in it.
   */
  private editControls(call: PendingCallView, which: string): HTMLElement | string {
    const editable = call.editable;
    if (!editable) {
      return '';
    }
    const { channel } = this.options;
    const openDiff = (): void => void channel.send({ type: 'openDiff', callId: call.callId });
    if (!('text' in editable)) {
      // A large file is edited in VS Code's diff editor: its proposed side is this call's edit, shown here once made.
      const button = actionButton('edit', 'Edit in diff editor', 'edit', { secondary: true, 'aria-label': `Edit in VS Code's diff editor, then allow: ${which}` });
      button.addEventListener('click', openDiff);
      return button;
    }
    const editor = h('textarea', {
      'data-field': 'edited',
      rows: editable.kind === 'command' ? '3' : this.options.layout === 'dense' ? '8' : '16',
      spellcheck: 'false',
      'aria-label': editable.kind === 'command' ? 'Edit the command' : 'Edit the proposed content',
    });
    editor.value = editable.text;
    const allowEdited = actionButton('allow-edited', editable.kind === 'command' ? 'Run edited command' : 'Write edited content', 'check');
    allowEdited.addEventListener('click', () => this.decide({ action: 'allow-edited', edited: editor.value }));
    const shown = h('div', { class: 'edit-diff', 'data-field': 'edit-diff', 'aria-live': 'polite' });
    // The host's analysis of the command as typed, once it has it (a stale one, of an earlier text, is not shown).
    const analysed = h('div', { class: 'edit-analysis', 'aria-live': 'polite' });
    const showAnalysis = (next: PendingCallView): void => {
      const current = next.edit?.text !== undefined && next.edit.text === editor.value ? next.edit.analysis : undefined;
      analysed.replaceChildren(...editAnalysis(current));
    };
    const area = h('div', { class: 'edit-area', hidden: true });
    const showEdit = (text: string): void => {
      shown.replaceChildren(...(text !== editable.text ? [editOfProposal(call, editable, text, openDiff)] : []));
    };
    const sync = (): void => {
      const text = area.hidden ? undefined : editor.value;
      const held = this.latest.edit?.text;
      if ((text ?? editable.text) !== (held ?? editable.text)) {
        channel.send({ type: 'setEdit', callId: call.callId, argsHash: call.argsHash, text: text === undefined || text === editable.text ? null : text });
      }
      showEdit(text ?? editable.text);
    };
    let timer: ReturnType<typeof setTimeout> | undefined;
    editor.addEventListener('input', () => {
      clearTimeout(timer);
      timer = setTimeout(sync, 150);
    });
    area.append(h('p', { class: 'muted' }, editable.kind === 'command'
      ? 'Edit the command. What runs is your version, and the model is told so.'
      : 'Edit the content to write. What is written is your version, and the model is told so.'), editor, shown, analysed, allowEdited);
    const button = actionButton('edit', 'Edit then allow', 'edit', { secondary: true, 'aria-label': `Edit, then allow: ${which}`, 'aria-expanded': 'false' });
    button.addEventListener('click', () => {
      area.hidden = !area.hidden;
      button.setAttribute('aria-expanded', String(!area.hidden));
      sync();
      this.update(this.latest);
      if (!area.hidden) {
        editor.focus();
      }
    });
    this.edit = {
      area,
      follow: (next) => {
        showAnalysis(next);
        const held = next.edit?.text ?? editable.text;
        if (editor.ownerDocument.activeElement === editor || editor.value === held) {
          return;
        }
        editor.value = held;
        // Edited elsewhere while the box is closed: the note shows it; the box holds it for a further edit here.
        if (!area.hidden || next.edit?.text === undefined) {
          showEdit(held);
        }
      },
    };
    return button;
  }
}
