/** What the gate judges of a built-in (or another extension's) tool call: its hash, its target, its command analysis. */
import os from 'node:os';
import { callHash } from '../approval/hash';
import type { PathResolver } from '../approval/paths';
import type { GateCall } from '../approval/policy';
import { analyseCommand } from '../shell/analysis';
import { targetPathOf } from '../toolDefinitions';

export interface GateCallOptions {
  /** The hash of the file a write starts from: the approval is bound to it. */
  baseHash?: string;
  /** Another extension's own tool behind the gate. */
  external?: GateCall['external'];
  /** The home folder `~` means in a command (default: this user's). */
  home?: string;
}

/** The folder a command runs in: its `cwd` argument resolved, else the first workspace folder. */
export function commandFolder(call: Pick<GateCall, 'target'>, resolver: PathResolver): string {
  return call.target?.absolute ?? resolver.roots[0] ?? process.cwd();
}

/** Builds the call without I/O beyond resolving paths (the shell parser must be loaded for a command). */
export function gateCall(tool: string, args: unknown, resolver: PathResolver, options: GateCallOptions = {}): GateCall {
  const call: GateCall = { tool, args, argsHash: callHash(tool, args, options.baseHash) };
  const target = targetPathOf({ tool, args });
  if (target !== undefined) {
    call.target = resolver.resolve(target);
  }
  if (tool === 'run_in_terminal') {
    const command = (args as { command: string }).command;
    call.commandAnalysis = analyseCommand(command, commandFolder(call, resolver), options.home ?? os.homedir());
  }
  if (options.external) {
    call.external = options.external;
  }
  return call;
}
