/** A minimal disposable contract shared by core and host code (structurally compatible with vscode.Disposable). */
export interface Disposable {
  dispose(): void;
}

/** One store per owner: everything added is disposed once, in reverse order, when the owner is disposed. */
export class DisposableStore implements Disposable {
  private readonly items: Disposable[] = [];
  private disposed = false;

  get isDisposed(): boolean {
    return this.disposed;
  }

  add<T extends Disposable>(item: T): T {
    if (this.disposed) {
      item.dispose();
    } else {
      this.items.push(item);
    }
    return item;
  }

  dispose(): void {
    if (this.disposed) {
      return;
    }
    this.disposed = true;
    const errors: unknown[] = [];
    for (const item of this.items.splice(0).reverse()) {
      try {
        item.dispose();
      } catch (error) {
        errors.push(error);
      }
    }
    if (errors.length > 0) {
      throw new AggregateError(errors, `${errors.length} disposable(s) failed to dispose`);
    }
  }
}

/** A tiny typed event emitter (`onDidX` style) usable outside the vscode module. */
export class Emitter<T> implements Disposable {
  private listeners = new Set<(value: T) => void>();

  readonly event = (listener: (value: T) => void): Disposable => {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  };

  fire(value: T): void {
    for (const listener of [...this.listeners]) {
      listener(value);
    }
  }

  dispose(): void {
    this.listeners.clear();
  }
}

/** `run` after `ms`, unless disposed first: a timer an owner's store ends with it. */
export function disposableTimeout(run: () => void, ms: number): Disposable {
  const timer = setTimeout(run, ms);
  return { dispose: () => clearTimeout(timer) };
}
