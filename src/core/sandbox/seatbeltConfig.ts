/**
 * The one mapping from Toolgate's SandboxPolicy to the configuration of the library's Seatbelt profile (./seatbelt):
 * the policy stays the only source, as bubblewrap's argument list is made from it on Linux (./bwrap). Each entry:
 * - `writable` folders: allowed for writes, as literal paths (a folder name with `[` or `*` is never read as a glob);
 * - `readOnly` entries (the protected paths, and in each `.git` only git's control entries): denied for writes as
 *   literal paths; the profile also denies rename and removal of each and of every folder above it
 *   (`file-write-unlink`, `file-write-create`), which on Linux the pinned folders do;
 * - `readOnlyPatterns` (protected globs outside `.git`, anchored at each workspace folder): denied for writes by
 *   pattern, so a protected file made after the command starts is read-only too (bubblewrap can mount only over what
 *   exists). Never a `.git` pattern: the library's glob for `**\/.git` covers every file git writes on a commit;
 * - `hidden` paths: denied for reads as literal paths (with their ancestors kept from rename);
 * - `network: 'none'`: no network but the filtering proxy's loopback port; `'host'`: the network;
 * - `pinned` needs no entry (see `readOnly`), `env` is set by the launch, not the profile; `writableOnce` cannot be
 *   expressed (Seatbelt has no descriptor binds), so it is refused before the policy gets here (./commandSandbox).
 */
import type { SandboxPolicy } from './policy';
import type { SeatbeltConfig } from './seatbelt';

/** What a shell needs to write on macOS whatever the policy: its standard streams, the terminal, the null device. */
export const seatbeltDeviceFiles: readonly string[] = ['/dev/stdout', '/dev/stderr', '/dev/null', '/dev/tty', '/dev/dtracehelper', '/dev/autofs_nowait'];

export function seatbeltConfig(policy: SandboxPolicy, proxyPort?: number): SeatbeltConfig {
  return {
    readConfig: { denyOnly: [], literalDenyOnly: policy.hidden.map((entry) => entry.path) },
    writeConfig: {
      allowOnly: [],
      literalAllowOnly: [...policy.writable, ...seatbeltDeviceFiles],
      denyWithinAllow: [...(policy.readOnlyPatterns ?? [])],
      literalDenyWithinAllow: [...policy.readOnly],
    },
    needsNetworkRestriction: policy.network === 'none',
    ...(policy.network === 'none' && proxyPort !== undefined ? { httpProxyPort: proxyPort } : {}),
    allowLocalBinding: false,
    allowAllUnixSockets: false,
    allowPty: false,
    allowGitConfig: false,
    enableWeakerNetworkIsolation: false,
    allowAppleEvents: false,
  };
}
