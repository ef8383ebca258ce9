/** Who asks for a call, as the cards say it: shared by the core (which records the caller) and the views. */

/** The caller a call of Toolgate's language-model tools is recorded as (cards, audit log): another agent in VS Code. */
export const lmToolCaller = 'vscode-lm-tool';

/** Who asks, as a card says it ("from …"): the caller's id, or what a person calls it. */
export function callerLabel(source: string): string {
  return source === lmToolCaller ? 'a VS Code tool call (another agent)' : source;
}
