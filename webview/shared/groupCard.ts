/**
 * The card of a group of waiting calls decided together: the files a staged command changed that ask ("`npm run
 * format` changed 12 files"). One card in the approvals panel and the chat alike: each file with its diff, accepted or
 * rejected whole or hunk by hunk (the host holds every choice, as for an edit), and one Allow that lands what is
 * accepted and one Deny that discards it all. The host settles every member from either (see the gate's group).
 *
 * Built to stay usable with many files: the command on one line in the header (the whole of it on request), one reason
 * line for the group (a file says its own only where it differs), the files as a compact list at the top (name, +/−,
 * accepted or rejected; a name opens that file's diff), each file's diff shown for the first few and collapsed past
 * them, and the header and the decision bar (Allow accepted, Deny, the counts) held in view while the card is.
 *
 * Built from the call card's parts (callParts): the focus reported to the host, the diff with its review keys, Deny
 * with its reason, the decision bar and the decision sent, and the one wording of "use Deny".
 */
import type { CallGroupView, DiffMode, PendingCallView } from '../../src/shared/approvals';
import { hunkReviewOf, type HunkReview } from './hunkReview';
import { button, h, icon } from './elements';
import type { HostChannel } from './hostChannel';
import { actionButton, allRejected, cardDiff, decisionBar, denyWithReason, reasonLine, reportFocus, reviewKeys, sendDecision, warningNotes } from './callParts';
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
  /** The file's line in the list at the top of the card. */
  entry: HTMLElement;
  review?: HunkReview;
  /** A file of the group edited in the diff editor: it lands as edited. */
  editNote: EditNote;
  /** Shows or hides the file's diff. */
  expand(open: boolean): void;
}

export interface GroupCardOptions {
  channel: Pick<HostChannel, 'send'>;
  /** The card's element class: the panel's `call`, the chat's `inline-call`. */
  className: string;
  /** Rows of each file's diff shown before it scrolls. */
  maxRows?: number;
  modeMemory?: { get(): DiffMode | undefined; set(mode: DiffMode): void };
  /** This view sent the group's decision (the chat moves the focus on once the group is gone). */
  onDecided?: () => void;
}

/** The files whose diffs show when the card comes; the others show their line and open on request. */
export const filesOpenAtFirst = 3;

/** A command longer than this, or of several lines, is cut in the header and offered whole on request. */
const headerCommandChars = 60;

const plural = (count: number, one: string, many = `${one}s`): string => `${count.toLocaleString('en-US')} ${count === 1 ? one : many}`;

/** The command on one line: its first line, marked as cut when there is more. */
export function commandHeadline(command: string): { text: string; cut: boolean } {
  const lines = command.trim().split('\n');
  const first = lines[0] ?? '';
  return { text: lines.length > 1 ? `${first} …` : first, cut: lines.length > 1 || first.length > headerCommandChars };
}

export class GroupCard {
  readonly element: HTMLElement;
  /** Where a keyboard user arriving lands. */
  readonly allow: HTMLElement;
  private readonly files: KeyedList<PendingCallView, FileSection>;
  private readonly entries: KeyedList<PendingCallView, { element: HTMLElement }>;
  private readonly sections = new Map<string, FileSection>();
  private readonly status: HTMLElement;
  private readonly intro: HTMLElement;
  private readonly why: HTMLElement;
  private members: PendingCallView[] = [];
  private shownReason: string | undefined;

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
    this.why = h('div', { class: 'group-why' });
    const list = h('div', { class: 'group-files', role: 'list', 'aria-label': `Files changed by ${group.command}` });
    this.files = new KeyedList<PendingCallView, FileSection>(list, (call) => call.callId, (call) => this.fileSection(call), (section, call) => {
      if (section.review && call.hunkChoices) {
        section.review.apply(call.hunkChoices);
      }
      section.editNote.update(call);
    }, (section) => {
      this.sections.delete(section.element.dataset['callId'] ?? '');
    });
    const index = h('ul', { class: 'group-index', 'data-field': 'group-files', 'aria-label': `The ${plural(group.changed, 'file')} ${group.command} changed: open one's diff` });
    this.entries = new KeyedList<PendingCallView, { element: HTMLElement }>(index, (call) => call.callId, (call) => ({ element: this.sections.get(call.callId)?.entry ?? h('li') }), () => undefined);

    const headline = commandHeadline(group.command);
    const whole = h('pre', { class: 'group-command-full', 'data-field': 'group-command', hidden: true }, group.command);
    const showWhole = headline.cut
      ? button({ secondary: true, class: 'icon-only', 'data-action': 'show-command', 'aria-expanded': 'false', 'aria-label': `Show the whole command: ${group.command}`, title: 'Show the whole command' }, icon('unfold'))
      : '';
    if (showWhole !== '') {
      showWhole.addEventListener('click', () => {
        whole.hidden = !whole.hidden;
        showWhole.setAttribute('aria-expanded', String(!whole.hidden));
      });
    }
    this.element = h('article', {
      class: `${options.className} call-group`,
      role: 'listitem',
      'data-group-id': group.id,
      'aria-label': `Changes of the command ${group.command}: waiting for your approval`,
      tabindex: '-1',
    },
    h('header', { class: 'call-header group-header' },
      icon('terminal'),
      h('span', { class: 'group-title', 'data-field': 'group-title' },
        h('code', { class: 'group-command', title: group.command }, headline.text),
        h('span', { class: 'group-count' }, ` changed ${plural(group.changed, 'file')}`)),
      showWhole),
    whole,
    this.why,
    this.intro,
    index,
    list,
    decisionBar(this.status, [this.allow, deny], reasonArea, 'group-decision'));
    // The keyboard commands (Allow Once / Deny) decide the focused card: any member stands for the group.
    reportFocus(this.element, () => this.members[0]?.callId, options.channel);
  }

  private decide(action: 'allow-once' | 'deny', reason?: string): void {
    const first = this.members[0];
    if (!first) {
      return;
    }
    // The edits this card shows (a file edited in the diff editor), by their latest revision: one made since is refused.
    const editRevision = Math.max(0, ...this.members.map(shownEditRevision));
    sendDecision(this.element, this.options, { callId: first.callId, argsHash: first.argsHash, action, editRevision, ...(reason !== undefined ? { reason } : {}) });
  }

  /** Shows exactly these members, in order, with the host's hunk choices. */
  update(members: PendingCallView[]): void {
    this.members = members;
    this.files.render(members);
    this.entries.render(members);
    const landed = this.group.changed - members.length;
    this.intro.textContent = `${plural(members.length, 'file')} ${members.length === 1 ? 'waits' : 'wait'} for you${landed > 0 ? `; the other ${plural(landed, 'change')} landed by your rules or as files git ignores, or could not land (the model is told which)` : ''}.`;
    // One reason line for the group: the reason its files share (the host's), then that the changes are staged.
    const reason = members[0]?.group?.reason;
    if (reason !== this.shownReason || this.why.childElementCount === 0) {
      this.shownReason = reason;
      this.why.replaceChildren(reasonLine(`${reason === undefined ? '' : `${reason} `}Staged in the sandbox: these changes are not in your workspace yet. Allow accepted lands the files and hunks you accept; Deny discards them all.`));
    }
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
    this.status.textContent = `${acceptedFiles} of ${plural(sections.length, 'file')} accepted${hunks > 0 ? ` (${accepted} of ${plural(hunks, 'hunk')})` : ''}${none ? `: ${allRejected('group').advice}` : ''}`;
    const off = this.members.length > 0 && this.members.every((member) => member.off?.allow !== undefined);
    this.allow.toggleAttribute('disabled', off);
    if (off) {
      this.allow.title = allRejected('group').sentence;
    } else {
      this.allow.removeAttribute('title');
    }
  }

  private fileSection(call: PendingCallView): FileSection {
    const preview = call.preview;
    const path = preview.kind === 'diff' ? preview.path : call.tool;
    const review = hunkReviewOf(call, this.options.channel);
    const element = h('section', {
      class: 'group-file',
      role: 'listitem',
      'data-call-id': call.callId,
      'data-tool': call.tool,
      'data-args-hash': call.argsHash,
      'data-path': path,
      'aria-label': path,
      tabindex: '-1',
    });
    const bodyId = `group-file-${call.callId}`;
    element.id = bodyId;
    // The file's line in the list at the top: its name (which opens its diff), its counts, its state.
    const entryState = h('span', { class: 'entry-state', 'data-field': 'entry-state' });
    const counts = preview.kind === 'diff'
      ? h('span', { class: 'counts' }, h('span', { class: 'added' }, `+${preview.added}`), ' ', h('span', { class: 'removed' }, `−${preview.removed}`))
      : '';
    const link = h('button', { type: 'button', class: 'file-link', 'data-action': 'show-file', 'data-path': path, 'aria-controls': bodyId, 'aria-label': `Show the diff of ${path}`, title: path },
      icon(preview.kind === 'diff' && preview.isNewFile ? 'new-file' : 'file'), h('span', { class: 'file-name' }, path));
    const entry = h('li', { class: 'group-entry', 'data-call-id': call.callId, 'data-path': path }, link, counts, entryState);
    const editNote = new EditNote(() => this.options.channel.send({ type: 'openDiff', callId: call.callId }));
    editNote.update(call);
    const toggle = button({ secondary: true, class: 'file-toggle', 'data-action': 'toggle-file', 'aria-controls': bodyId, 'aria-expanded': 'true' }, icon('chevron-up'), 'Hide diff');
    const expand = (open: boolean): void => {
      element.toggleAttribute('data-collapsed', !open);
      toggle.setAttribute('aria-expanded', String(open));
      toggle.replaceChildren(icon(open ? 'chevron-up' : 'chevron-down'), open ? 'Hide diff' : 'Show diff');
      toggle.setAttribute('aria-label', `${open ? 'Hide' : 'Show'} the diff of ${path}`);
      // A long diff paints its rows as it scrolls: shown again, it paints the window it is at.
      if (open) {
        for (const body of element.querySelectorAll('.diff-body')) {
          body.dispatchEvent(new Event('scroll'));
        }
      }
    };
    toggle.addEventListener('click', () => expand(element.hasAttribute('data-collapsed')));
    link.addEventListener('click', () => {
      expand(true);
      element.scrollIntoView({ block: 'start' });
      element.focus({ preventScroll: true });
    });
    const section: FileSection = { element, entry, editNote, expand, ...(review ? { review } : {}) };
    const extras: HTMLElement[] = [toggle];
    if (review) {
      const state = h('span', { class: 'hunk-state', 'data-field': 'file-state' });
      const choose = (accepted: boolean): HTMLElement => {
        const choice = actionButton(accepted ? 'accept-file' : 'reject-file', accepted ? 'Accept file' : 'Reject file', accepted ? 'check-all' : 'close-all', {
          secondary: true,
          'aria-label': `${accepted ? 'Accept' : 'Reject'} every hunk of ${path}`,
        });
        choice.addEventListener('click', () => {
          for (let index = 0; index < review.count; index++) {
            review.set(index, accepted);
          }
        });
        return choice;
      };
      const accept = choose(true);
      const reject = choose(false);
      const syncFile = (): void => {
        const all = review.acceptedCount === review.count;
        const fileState = review.allRejected ? 'rejected' : all ? 'accepted' : 'partial';
        element.dataset['state'] = fileState;
        entry.dataset['state'] = fileState;
        accept.setAttribute('aria-pressed', String(all));
        reject.setAttribute('aria-pressed', String(review.allRejected));
        state.textContent = review.allRejected ? 'rejected: it stays as it is' : all ? '' : review.summary();
        entryState.textContent = review.allRejected ? 'rejected' : all ? 'accepted' : `${review.acceptedCount} of ${review.count} hunks`;
        this.sync();
      };
      review.onDidChange(syncFile);
      syncFile();
      extras.push(state, h('span', { class: 'file-actions' }, accept, reject));
    } else {
      entryState.textContent = 'lands whole';
    }
    let diffEl: HTMLElement | string = '';
    if (preview.kind === 'diff') {
      // A change with no text has nothing to show in the diff editor.
      const text = preview.hunks.some((hunk) => hunk.rows.length > 0 || (hunk.rowCount ?? 0) > 0);
      const diff = cardDiff(call, preview, {
        channel: this.options.channel,
        review,
        onOpenDiff: text ? () => this.options.channel.send({ type: 'openDiff', callId: call.callId }) : undefined,
        maxRows: this.options.maxRows,
        modeMemory: this.options.modeMemory,
        toolbarExtras: extras,
      });
      diffEl = diff.element;
      reviewKeys(element, diff);
    }
    // Why this file asks where it is not the group's reason (a protected path, changed meanwhile…), then what is true
    // of it alone, then its diff.
    element.append(call.reasonShared === true ? '' : reasonLine(call.reason), ...warningNotes(call.warnings), diffEl, editNote.element);
    // The first few files show their diff; past them a file shows its line, and its diff on request.
    expand(this.sections.size < filesOpenAtFirst);
    this.sections.set(call.callId, section);
    return section;
  }
}
