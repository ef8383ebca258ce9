/** The key-value store the core keeps state in (VS Code's workspace state in the product, a Map in tests). */
export interface KeyValueStore {
  get(key: string): unknown;
  update(key: string, value: unknown): PromiseLike<void>;
}
