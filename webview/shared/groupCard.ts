/**
 * The card of a group of waiting calls decided together: the files a staged command changed that ask ("`npm run
 * format` changed 12 files"). One card in the approvals panel and the chat alike: each file with its diff, accepted or
 * rejected whole or hunk by hunk (the host holds every choice, as for an edit), and one Allow that lands what is
 * accepted and one Deny that discards it all. The host settles every member from either (see the gate's group).
 */
import type { CallGroupView, DiffMode, PendingCallView } from '../../src/shared/approvals';
import { loadWholeDiff, renderDiff } from '../approvals/diffView';
import { hunkReviewOf, type HunkReview } from '../approvals/hunkReview';
import { h, icon, type Bridge } from './bridge';
import { actionButton, denyWithReason, isTextEntry, reasonLine, warningNotes } from './callParts';
import { EditNote, shownEditRevision } from './heldEdit';
import { KeyedList } from './keyedList';

/** What a list of waiting calls shows: a call's own card, or a group's one card (where its first member was). */
export type PendingItem = { key: string; call: PendingCallView } | { key: string; group: CallGroupView; members: PendingCallView[] };

/** The waiting calls as cards, in order: a group's members together, at the place of the first of them. */
export function pendingItems(pending: readonly PendingCallView[]): PendingItem[] {
  const items: PendingItem[] = [];
  const groups = new Map<string, PendingCallView[]>();
  for (const call of pending) {
    if (call.group === undefined) {
      items.push({ key: call.callId, call });
      continue;
    }
    const members = groups.get(call.group.id);
    if (members) {
      members.push(call);
    } else {
      const fresh = [call];
      groups.set(call.group.id, fresh);
      items.push({ key: `group:${call.group.id}`, group: call.group, members: fresh });
    }
  }
  return items;
}

interface FileSection {
  element: HTMLElement;
  review?: HunkReview;
  /** A file of the group edited in the diff editor: it lands as edited. */
  editNote: EditNote;
}

export interface GroupCardOptions {
  bridge: Pick<Bridge, 'send'>;
  /** The card's element class: the panel's `call`, the chat's `inline-call`. */
  className: string;
  /** Rows of each file's diff shown before it scrolls. */
  maxRows?: number;
  modeMemory?: { get(): DiffMode | undefined; set(mode: DiffMode): void };
  /** This view sent the group's decision (the chat moves the focus on once the group is gone). */
  onDecided?: () => void;
}

const plural = (count: number, one: string, many = `${one}s`): string => `${count.toLocaleString('en-US')} ${count === 1 ? one : many}`;

export class GroupCard {
  readonly element: HTMLElement;
  /** Where a keyboard user arriving lands. */
  readonly allow: HTMLElement;
  private readonly files: KeyedList<PendingCallView, FileSection>;
  private readonly list: HTMLElement;
  private readonly status: HTMLElement;
  private readonly intro: HTMLElement;
  private members: PendingCallView[] = [];

  constructor(
    private readonly group: CallGroupView,
    private readonly options: GroupCardOptions,
  ) {
    const which = `the changes of \`${group.command}\``;
    this.allow = actionButton('allow-once', 'Allow accepted', 'check', { 'aria-label': `Allow the accepted changes of ${group.command}` });
    this.allow.addEventListener('click', () => {
      if (!this.allow.hasAttribute('disabled')) {
        this.decide('allow-once');
      }
    });
    const { deny, reasonArea } = denyWithReason(which, (reason) => this.decide('deny', reason));
    deny.setAttribute('title', 'Discards every change listed here: none of them lands');
    this.status = h('p', { class: 'hunk-status', role: 'status', 'data-field': 'group-summary' });
    this.intro = h('p', { class: 'muted', 'data-field': 'group-intro' });
    this.list = h('div', { class: 'group-files', role: 'list', 'aria-label': `Files changed by ${group.command}` });
    this.files = new KeyedList<PendingCallView, FileSection>(this.list, (call) => call.callId, (call) => this.fileSection(call), (section, call) => {
      if (section.review && call.hunkChoices) {
        section.review.apply(call.hunkChoices);
      }
      section.editNote.update(call);
    });
    this.element = h('article', {
      class: `${options.className} call-group`,
      role: 'listitem',
      'data-group-id': group.id,
      'aria-label': `Changes of the command ${group.command}: waiting for your approval`,
      tabindex: '-1',
    },
    h('header', { class: 'call-header' },
      icon('terminal'),
      h('span', { class: 'group-title', 'data-field': 'group-title' }, h('code', {}, group.command), ` changed ${plural(group.changed, 'file')}`)),
    reasonLine('Staged in the sandbox: these changes are not in your workspace. Allow lands the files and hunks you accept; Deny discards them all.'),
    this.intro,
    this.list,
    h('div', { class: 'decision' },
      this.status,
      h('div', { class: 'actions' }, this.allow, deny),
      reasonArea));
    // The keyboard commands (Allow Once / Deny) decide the focused card: any member stands for the group.
    this.element.addEventListener('focusin', () => {
      const first = this.members[0];
      if (first) {
        options.bridge.send({ type: 'focusCall', callId: first.callId });
      }
    });
    this.element.addEventListener('focusout', (event) => {
      if (!(event.relatedTarget instanceof Node && this.element.contains(event.relatedTarget))) {
        options.bridge.send({ type: 'focusCall', callId: null });
      }
    });
  }

  private decide(action: 'allow-once' | 'deny', reason?: string): void {
    const first = this.members[0];
    if (!first) {
      return;
    }
    this.element.dataset['sent'] = 'true';
    this.options.onDecided?.();
    // The edits this card shows (a file edited in the diff editor), by their latest revision: one made since is refused.
    const editRevision = Math.max(0, ...this.members.map(shownEditRevision));
    this.options.bridge.send({ type: 'decide', callId: first.callId, argsHash: first.argsHash, action, editRevision, ...(reason !== undefined ? { reason } : {}) });
  }

  /** Shows exactly these members, in order, with the host's hunk choices. */
  update(members: PendingCallView[]): void {
    this.members = members;
    this.files.render(members);
    const landed = this.group.changed - members.length;
    this.intro.textContent = `${plural(members.length, 'file')} ${members.length === 1 ? 'waits' : 'wait'} for you${landed > 0 ? `; the other ${plural(landed, 'change')} landed by your rules or as files git ignores, or could not land (the model is told which)` : ''}.`;
    this.sync();
  }

  /** The count of accepted files and hunks; Allow is off, with the host's reason, when every member's allow is. */
  private sync(): void {
    let hunks = 0;
    let accepted = 0;
    let acceptedFiles = 0;
    const sections = this.files.values();
    for (const section of sections) {
      const review = section.review;
      if (review === undefined) {
        acceptedFiles += 1;
        continue;
      }
      hunks += review.count;
      accepted += review.acceptedCount;
      acceptedFiles += review.allRejected ? 0 : 1;
    }
    const none = acceptedFiles === 0;
    this.status.textContent = `${acceptedFiles} of ${plural(sections.length, 'file')} accepted${hunks > 0 ? ` (${accepted} of ${plural(hunks, 'hunk')})` : ''}${none ? ': use Deny to refuse them all' : ''}`;
    const off = this.members.length > 0 && this.members.every((member) => member.off?.allow !== undefined);
    this.allow.toggleAttribute('disabled', off);
    if (off) {
      this.allow.title = 'Every change is rejected: use Deny';
    } else {
      this.allow.removeAttribute('title');
    }
  }

  private fileSection(call: PendingCallView): FileSection {
    const preview = call.preview;
    const path = preview.kind === 'diff' ? preview.path : call.tool;
    const review = hunkReviewOf(call, this.options.bridge);
    const element = h('section', {
      class: 'group-file',
      role: 'listitem',
      'data-call-id': call.callId,
      'data-tool': call.tool,
      'data-args-hash': call.argsHash,
      'data-path': path,
      'aria-label': path,
    });
    const editNote = new EditNote(() => this.options.bridge.send({ type: 'openDiff', callId: call.callId }));
    editNote.update(call);
    const section: FileSection = { element, editNote, ...(review ? { review } : {}) };
    const extras: HTMLElement[] = [];
    if (review) {
      const state = h('span', { class: 'hunk-state', 'data-field': 'file-state' });
      const toggle = (accepted: boolean): HTMLElement => {
        const button = actionButton(accepted ? 'accept-file' : 'reject-file', accepted ? 'Accept file' : 'Reject file', accepted ? 'check-all' : 'close-all', {
          secondary: true,
          'aria-label': `${accepted ? 'Accept' : 'Reject'} every hunk of ${path}`,
        });
        button.addEventListener('click', () => {
          for (let index = 0; index < review.count; index++) {
            review.set(index, accepted);
          }
        });
        return button;
      };
      const accept = toggle(true);
      const reject = toggle(false);
      const syncFile = (): void => {
        const all = review.acceptedCount === review.count;
        element.dataset['state'] = review.allRejected ? 'rejected' : all ? 'accepted' : 'partial';
        accept.setAttribute('aria-pressed', String(all));
        reject.setAttribute('aria-pressed', String(review.allRejected));
        state.textContent = review.allRejected ? 'rejected: it stays as it is' : all ? '' : review.summary();
        this.sync();
      };
      review.onDidChange(syncFile);
      syncFile();
      extras.push(state, h('span', { class: 'file-actions' }, accept, reject));
    }
    let diffEl: HTMLElement | string = '';
    if (preview.kind === 'diff') {
      // A change with no text has nothing to show in the diff editor.
      const text = preview.hunks.some((hunk) => hunk.rows.length > 0 || (hunk.rowCount ?? 0) > 0);
      const diff = renderDiff(preview, text ? () => this.options.bridge.send({ type: 'openDiff', callId: call.callId }) : undefined, review, this.options.maxRows, this.options.modeMemory, extras);
      diffEl = diff.element;
      loadWholeDiff(call, this.options.bridge, (whole) => diff.setPreview(whole));
      element.addEventListener('keydown', (event) => {
        if (!isTextEntry(event.target) && diff.handleKey(event)) {
          event.preventDefault();
        }
      });
    }
    // Why this file asks (a protected path, changed meanwhile…), then what is true of it alone, then its diff.
    element.append(reasonLine(call.reason), ...warningNotes(call.warnings), diffEl, editNote.element);
    return section;
  }
}
