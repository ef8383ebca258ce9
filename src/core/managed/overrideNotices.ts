/**
 * The person's settings the managed file overrides (./managedOverrides), each told once in a window: which notes are
 * new, and the one notification that lists them.
 */
export class OverrideNotices {
  private readonly said = new Set<string>();

  /** The notes not told before (now told), and the notification for them; nothing new, no notification. */
  told(notes: readonly string[]): { fresh: string[]; notification?: string } {
    const fresh = notes.filter((note) => !this.said.has(note));
    fresh.forEach((note) => this.said.add(note));
    if (fresh.length === 0) {
      return { fresh };
    }
    const which = fresh.length === 1 ? 'a setting of yours' : `${fresh.length} settings of yours`;
    return { fresh, notification: `Toolgate: your organisation's managed settings override ${which}: ${fresh.join(' · ')}` };
  }
}
