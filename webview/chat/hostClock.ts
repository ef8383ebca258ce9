/**
 * The transcript's live times in the host's clock (the host may run on another machine): "Working… waiting for the
 * model, 12 s" from when an attempt was sent, and "Trying again in 5 s" until the next one is. One tick updates them all.
 */
function seconds(ms: number): string {
  const total = Math.max(0, Math.round(ms / 1000));
  return total < 60 ? `${total} s` : `${Math.floor(total / 60)} min ${total % 60} s`;
}

export class HostClock {
  /** Host clock minus this view's: times the host sends are shown in ours. */
  private offset = 0;

  /** A message the host posted at `sentAt` (its clock) arrives now. */
  sync(sentAt: number): void {
    this.offset = sentAt - Date.now();
  }

  now(): number {
    return Date.now() + this.offset;
  }

  workingText(since: number): string {
    return `Working… waiting for the model, ${seconds(this.now() - since)}`;
  }

  countdownText(retryAt: number): string {
    return `Trying again in ${seconds(retryAt - this.now())}.`;
  }

  /** Each live time in `container` as it is now: a countdown shows until its attempt is sent, "Working…" from when it was sent. */
  tick(container: HTMLElement): void {
    for (const element of container.querySelectorAll<HTMLElement>('[data-since]')) {
      const since = Number(element.dataset['since']);
      element.hidden = this.now() < since;
      const elapsed = element.querySelector('.elapsed');
      if (elapsed) {
        elapsed.textContent = this.workingText(since);
      }
    }
    for (const element of container.querySelectorAll<HTMLElement>('[data-retry-at]')) {
      const retryAt = Number(element.dataset['retryAt']);
      element.hidden = this.now() >= retryAt;
      element.textContent = this.countdownText(retryAt);
    }
  }
}
