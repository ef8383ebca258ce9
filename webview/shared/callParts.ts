/**
 * Pieces of a waiting call's card that the approvals panel and the chat's inline cards both show: the decision
 * buttons, the warnings, the command with its analysis. Rendering only; what a click sends is the card's business.
 */
import type { CommandPreview } from '../../src/shared/approvals';
import { h, type Bridge } from './bridge';

/** A button of the contract: `data-action` on it, an icon before its label. */
export function actionButton(action: string, label: string, icon: string, attrs: Record<string, string | boolean> = {}): HTMLElement {
  return h('vscode-button', { 'data-action': action, ...attrs }, h('vscode-icon', { name: icon, slot: 'content-before' }), label);
}

/**
 * Tells the host when this call's card gets the keyboard focus and when it loses it (to somewhere outside the card):
 * Toolgate: Allow Once / Deny then decide the focused call instead of the oldest.
 */
export function reportFocus(card: HTMLElement, callId: string, bridge: Pick<Bridge, 'send'>): void {
  card.addEventListener('focusin', () => bridge.send({ type: 'focusCall', callId }));
  card.addEventListener('focusout', (event) => {
    if (!(event.relatedTarget instanceof Node && card.contains(event.relatedTarget))) {
      bridge.send({ type: 'focusCall', callId: null });
    }
  });
}

export function warningNotes(warnings: string[]): HTMLElement[] {
  return warnings.map((warning) => h('p', { class: 'notice warning', role: 'note', 'data-field': 'warning' },
    h('vscode-icon', { name: 'warning', 'aria-hidden': 'true' }), ' ', warning));
}

const verdictIcons: Record<CommandPreview['analysis'][number]['verdict'], string> = { allow: 'pass', info: 'info', deny: 'error', ask: 'question' };

/** The command exactly as it would run, its working folder and one line per finding of the analysis. */
export function commandPreview(preview: CommandPreview): HTMLElement {
  return h('section', { class: 'command', 'data-field': 'command' },
    h('div', { class: 'label' }, 'Command'),
    h('pre', { class: 'command-text' }, preview.command),
    h('div', { class: 'label' }, 'Working folder'),
    h('pre', { class: 'cwd' }, preview.cwd),
    h('ul', { class: 'analysis', 'data-field': 'analysis' },
      ...preview.analysis.map((line) => h('li', { class: `verdict-${line.verdict}` },
        h('vscode-icon', { name: verdictIcons[line.verdict], 'aria-hidden': 'true' }), ' ', line.text))));
}
