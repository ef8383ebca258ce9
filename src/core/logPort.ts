/**
 * Where the core writes what a person may want to read later (VS Code: the Toolgate output channel). A file of its own,
 * at the core's root, so that any folder of the core may log without importing another's ports.
 */
export interface LogPort {
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}
