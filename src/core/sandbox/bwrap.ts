/**
 * The Linux sandbox: bubblewrap (the `bwrap` of Debian's and Ubuntu's `bubblewrap` package, what Flatpak, Claude
 * Code's and VS Code's terminal sandboxes run on) started with an argument list built here from a SandboxPolicy.
 * Chosen over @anthropic-ai/sandbox-runtime because that library wraps the same bwrap with its own policy format
 * and a network proxy in every start, while Toolgate needs its own policy verbatim and, for the staging of the next
 * issue, its own overlay of the workspace; bwrap itself starts in a few milliseconds.
 *
 * What the argument list does, in order (later mounts cover earlier ones):
 * - every namespace new (`--unshare-all`): its own PIDs (so nothing it starts outlives it: when the sandbox's first
 *   process ends the kernel ends the rest), its own `/proc` and `/dev` (`/dev/fd` is the command's), no network but
 *   its own loopback unless the policy says `host`;
 * - a user namespace always (`--unshare-user`, not bwrap's "if it can"), every capability dropped (`--cap-drop ALL`)
 *   and no further user namespace inside (`--disable-userns`): bwrap drops capabilities by itself only when the
 *   sandbox's uid is not 0, so run as root (VS Code in a container, and the staged path, where bwrap is root of
 *   `unshare --map-root-user`) a command kept them all and could unmount what hides a credential or remount `/`
 *   writable; a nested user namespace would give it a full set again, over its own mounts (./sandbox probes all this);
 * - the whole file system read-only, a private empty `/tmp` (holding the filtering proxy's socket when
 *   toolgate.sandbox.allowedDomains lists any: ./domainProxy);
 * - the writable folders bound read-write at their own paths, then the folders the policy pins bound onto themselves
 *   (a mount point cannot be renamed or removed, so no folder above a protected path can be swapped for a planted
 *   one), then the protected paths read-only again, then a protected file the person allowed this command to write
 *   on its card read-write again (by the descriptor Toolgate opened, never by a path bwrap would follow);
 * - hidden folders covered by an empty read-only folder, hidden files by /dev/null;
 * - `--die-with-parent`: if Toolgate's side of it is killed, so is the sandbox.
 */
import { proxySocketInSandbox } from './networkBridge';
import type { SandboxPolicy } from './policy';

/** What the network bridge needs in the private /tmp: the proxy's socket, and a Node binary the sandbox cannot see. */
export interface BridgeMounts {
  /** The filtering proxy's Unix socket on the host. */
  proxySocket: string;
  /** A Node binary to show at `nodeInSandbox` (it lives under the host's /tmp or a hidden path). */
  node?: string;
}

/** Where a Node binary the sandbox cannot otherwise see is shown for the bridge. */
export const nodeInSandbox = '/tmp/.toolgate-node';

/** What keeps the sandbox a sandbox whoever starts it: see the list above. */
export const confinement: readonly string[] = ['--unshare-user', '--cap-drop', 'ALL', '--disable-userns'];

export function bwrapArgs(policy: SandboxPolicy, cwd: string, bridge?: BridgeMounts): string[] {
  const args = ['--unshare-all', ...confinement, ...(policy.network === 'host' ? ['--share-net'] : []), '--die-with-parent'];
  args.push('--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp', '--tmpfs', '/dev/shm');
  if (bridge !== undefined) {
    args.push('--bind', bridge.proxySocket, proxySocketInSandbox);
    if (bridge.node !== undefined) {
      args.push('--ro-bind', bridge.node, nodeInSandbox);
    }
  }
  for (const folder of policy.writable) {
    args.push('--bind', folder, folder);
  }
  for (const folder of policy.pinned) {
    args.push('--bind', folder, folder);
  }
  for (const entry of policy.readOnly) {
    args.push('--ro-bind', entry, entry);
  }
  // On top of the read-only entries: the one protected file the person allowed this command to write, and no more.
  for (const entry of policy.writableOnce ?? []) {
    args.push(...(entry.fd === undefined ? ['--bind', entry.path, entry.path] : ['--bind-fd', String(entry.fd), entry.path]));
  }
  for (const entry of policy.hidden) {
    if (entry.kind === 'dir') {
      args.push('--tmpfs', entry.path, '--remount-ro', entry.path);
    } else {
      args.push('--ro-bind', '/dev/null', entry.path);
    }
  }
  args.push('--chdir', cwd);
  return args;
}
