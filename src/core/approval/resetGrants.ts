/**
 * Toolgate: Reset Workspace Approvals: every "always allow" grant of the workspace removed, once the person confirmed
 * it (unless the command was given `true`), and said.
 */
import type { GrantStore } from './grants';

/** What the editor says and asks around a reset. */
export interface ResetPrompts {
  info(text: string): void;
  /** A modal question with a Remove button; resolves with whether it was pressed. */
  confirmRemove(question: string): PromiseLike<boolean>;
}

/** Resolves with how many grants were removed (0 when there were none, or the person did not confirm). */
export async function resetWorkspaceGrants(grants: Pick<GrantStore, 'workspaceGrants' | 'resetWorkspace'>, confirm: boolean | undefined, prompts: ResetPrompts): Promise<number> {
  const count = grants.workspaceGrants().length;
  if (count === 0) {
    prompts.info('Toolgate: there are no workspace grants to reset.');
    return 0;
  }
  if (confirm !== true && !(await prompts.confirmRemove(`Remove all ${count} "always allow" grant${count === 1 ? '' : 's'} of this workspace?`))) {
    return 0;
  }
  const removed = await grants.resetWorkspace();
  prompts.info(`Toolgate: removed ${removed} workspace grant${removed === 1 ? '' : 's'}.`);
  return removed;
}
