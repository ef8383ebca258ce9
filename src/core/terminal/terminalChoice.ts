/**
 * Which terminal a chat's command runs in: the chat's own terminal, reused, unless it is busy (a command of the same
 * chat still runs there) or the person closed it; then a new one. Terminals are named after their chat.
 */

/** What the choice needs to know of one open terminal. */
export interface TerminalSlot {
  chatId: string;
  busy: boolean;
  closed: boolean;
}

/** The index in `slots` of the terminal to reuse for `chatId`, or `undefined` when a new one must be created. */
export function chooseTerminal(slots: readonly TerminalSlot[], chatId: string): number | undefined {
  const index = slots.findIndex((slot) => slot.chatId === chatId && !slot.busy && !slot.closed);
  return index >= 0 ? index : undefined;
}

/** The indexes of the terminals whose chat is gone (not in `liveChatIds`): they are disposed. */
export function orphanedTerminals(slots: readonly TerminalSlot[], liveChatIds: ReadonlySet<string>): number[] {
  return slots.flatMap((slot, index) => (liveChatIds.has(slot.chatId) ? [] : [index]));
}

const maxTitleChars = 40;

/** The terminal's name: "Toolgate: <the chat's title>", the title shortened to one short line. */
export function terminalName(chatTitle: string | undefined): string {
  const title = (chatTitle ?? '').replace(/\s+/g, ' ').trim();
  if (title === '') {
    return 'Toolgate';
  }
  return `Toolgate: ${title.length > maxTitleChars ? `${title.slice(0, maxTitleChars - 1)}…` : title}`;
}
