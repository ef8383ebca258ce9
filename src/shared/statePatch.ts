/**
 * A view's state sent as changes: after the whole state once (`init`), each push carries the state without its keyed
 * lists (the waiting calls, the chat's entries), the order of their keys, and only the items that are new or changed.
 * The host keeps what it sent (`PatchWriter`), the webview what it got (`PatchReader`); a patch that does not follow
 * the version the webview holds is refused, and the webview asks for the whole state again. So 500 waiting calls cost
 * one small message per change instead of the whole list, validated and re-rendered, every time.
 *
 * Written here rather than with a JSON-patch library: the lists are keyed by ids the contract already has, and the
 * webview must rebuild exactly the state the host built (validated by the same schemas), which a generic patch of
 * arbitrary paths would not give.
 */
import type { ChatEntry, ViewState } from './messages';
import type { PendingCallView } from './approvals';

/** The keyed lists a state may hold, and how an item is known and when it changed. */
const keyedLists = ['pending', 'entries'] as const;
type KeyedList = (typeof keyedLists)[number];

type Item = PendingCallView | ChatEntry;

function keyOf(list: KeyedList, item: Item): string {
  return list === 'pending' ? (item as PendingCallView).callId : (item as ChatEntry).id;
}

/**
 * Whether an item changed: a chat entry by its version (its text can be megabytes), a waiting call by its content,
 * serialised once per view object (the gate hands out the same object until the call changes).
 */
const serialised = new WeakMap<object, string>();
function fingerprintOf(list: KeyedList, item: Item): string {
  if (list === 'entries') {
    return String((item as ChatEntry).v);
  }
  let json = serialised.get(item);
  if (json === undefined) {
    json = JSON.stringify(item);
    serialised.set(item, json);
  }
  return json;
}

export interface StatePatchData {
  base: number;
  version: number;
  /** The state with its keyed lists empty. */
  state: ViewState;
  pending?: { order: string[]; upsert: PendingCallView[] } | undefined;
  entries?: { order: string[]; upsert: ChatEntry[] } | undefined;
}

function listsOf(state: ViewState): Partial<Record<KeyedList, Item[]>> {
  const lists: Partial<Record<KeyedList, Item[]>> = {};
  for (const list of keyedLists) {
    if (list in state) {
      lists[list] = (state as unknown as Record<KeyedList, Item[]>)[list];
    }
  }
  return lists;
}

function withoutLists(state: ViewState): ViewState {
  const rest: Record<string, unknown> = { ...state };
  for (const list of keyedLists) {
    if (list in rest) {
      rest[list] = [];
    }
  }
  return rest as unknown as ViewState;
}

/** The host's end: what it sent last, and the patch that brings the webview from there to a new state. */
export class PatchWriter {
  private version = 0;
  private sent = new Map<KeyedList, Map<string, string>>();

  /** A whole state is sent (`init`): what the webview holds from now on, and its version. */
  full(state: ViewState): number {
    this.version += 1;
    this.sent = new Map();
    for (const [list, items] of Object.entries(listsOf(state)) as [KeyedList, Item[]][]) {
      this.sent.set(list, new Map(items.map((item) => [keyOf(list, item), fingerprintOf(list, item)])));
    }
    return this.version;
  }

  patch(state: ViewState): StatePatchData {
    const base = this.version;
    this.version += 1;
    const patch: StatePatchData = { base, version: this.version, state: withoutLists(state) };
    for (const [list, items] of Object.entries(listsOf(state)) as [KeyedList, Item[]][]) {
      const before = this.sent.get(list) ?? new Map<string, string>();
      const now = new Map<string, string>();
      const upsert: Item[] = [];
      for (const item of items) {
        const key = keyOf(list, item);
        const fingerprint = fingerprintOf(list, item);
        now.set(key, fingerprint);
        if (before.get(key) !== fingerprint) {
          upsert.push(item);
        }
      }
      this.sent.set(list, now);
      (patch as unknown as Record<KeyedList, { order: string[]; upsert: Item[] }>)[list] = { order: [...now.keys()], upsert };
    }
    return patch;
  }
}

/** The webview's end: the state it holds, and that state with a patch applied (or `resync` when it cannot be). */
export class PatchReader {
  private version: number | undefined;
  private state: ViewState | undefined;

  full(state: ViewState, version: number | undefined): void {
    this.state = state;
    this.version = version;
  }

  apply(patch: StatePatchData): ViewState | 'resync' {
    const held = this.state;
    if (held === undefined || this.version === undefined || patch.base !== this.version || held.view !== patch.state.view) {
      return 'resync';
    }
    const heldLists = listsOf(held);
    const next: Record<string, unknown> = { ...patch.state };
    for (const list of keyedLists) {
      const change = (patch as unknown as Partial<Record<KeyedList, { order: string[]; upsert: Item[] }>>)[list];
      if (change === undefined) {
        continue;
      }
      const items = new Map((heldLists[list] ?? []).map((item) => [keyOf(list, item), item]));
      for (const item of change.upsert) {
        items.set(keyOf(list, item), item);
      }
      const rebuilt: Item[] = [];
      for (const key of change.order) {
        const item = items.get(key);
        if (item === undefined) {
          // An id the webview never got: its copy is not the host's.
          return 'resync';
        }
        rebuilt.push(item);
      }
      next[list] = rebuilt;
    }
    this.state = next as unknown as ViewState;
    this.version = patch.version;
    return this.state;
  }
}
