import * as assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Frame } from 'playwright-core';
import { HostToWebview, type ViewKind } from '../../src/shared/messages';
import { ChatDriver } from './harness/chat';
import { until } from './harness/until';
import { panelAllowAll } from './harness/panel';
import { useSession } from './harness/session';

type Init = Extract<HostToWebview, { type: 'init' }>;

/**
 * A frame other than VS Code's cannot paint a Toolgate view. Another extension's webview, or a page in the Simple
 * Browser, reaches every frame of the window through `window.top.frames` and can post into the panel's frame; so can a
 * script of the panel's own frame. A held-out run did both: the panel said "No calls are waiting" while three waited,
 * then showed a benign card in place of a waiting `touch forged-ran.txt`. Here the same forgeries, shaped exactly as
 * the host's (a real `init` taken from the view, then changed), are posted while three calls really wait.
 */
describe('messages posted into a view by a frame other than VS Code\'s', function () {
  this.timeout(240_000);
  const session = useSession({ model: true });
  const { model, panel } = session;
  const chat = (): ChatDriver => new ChatDriver(session.workbench);

  const commands = ['touch forged-ran.txt', 'touch second.txt', 'touch third.txt'];
  /** What the forged card shows in place of the waiting `touch forged-ran.txt`. */
  const benign = 'echo benign';
  const cards: Record<'chat' | 'approvals', string> = { approvals: 'article.call[data-call-id]', chat: 'article.inline-call[data-call-id]' };
  const frameOf = async (view: 'chat' | 'approvals'): Promise<Frame> =>
    view === 'chat' ? await chat().frame() : await session.workbench.webviewFrame('body[data-view="approvals"] main#root[data-state="connected"]');

  /** The waiting calls a view shows: their ids (sorted) and the cards' text. */
  async function shown(view: 'chat' | 'approvals'): Promise<{ ids: string[]; text: string }> {
    const frame = await frameOf(view);
    const ids = await frame.locator(cards[view]).evaluateAll((found) => found.map((card) => card.getAttribute('data-call-id') ?? ''));
    return { ids: ids.sort(), text: (await frame.locator(cards[view]).allInnerTexts()).join('\n') };
  }

  /**
   * A real `init` of the view: VS Code's own bridge of its frame asks the host for the whole state again (`ready`), and
   * the host's answer is read as it arrives in the view's frame (listened to from VS Code's frame, which holds it).
   */
  async function realInit(view: ViewKind, content: Frame): Promise<Init> {
    const host = content.parentFrame();
    assert.ok(host, 'the view has VS Code\'s frame around it');
    const raw = await host.evaluate(async ({ view, requestId }) => {
      const frame = [...document.querySelectorAll('iframe')].find((candidate) => candidate.contentDocument?.querySelector(`body[data-view="${view}"]`));
      const target = frame?.contentWindow;
      if (!target) {
        throw new Error(`no frame of the ${view} view`);
      }
      const post = (window as unknown as Record<string, (channel: string, data: unknown) => void>)['__vscode_post_message__'];
      if (!post) {
        throw new Error('the webview bridge is not there');
      }
      // No named function in here: the test's build would wrap it in a helper that the page does not have.
      const heard = new AbortController();
      return await new Promise<unknown>((resolve) => {
        target.addEventListener('message', (event: MessageEvent<{ type?: string; requestId?: string }>) => {
          if (event.data.type === 'init' && event.data.requestId === requestId) {
            heard.abort();
            resolve(event.data);
          }
        }, { signal: heard.signal });
        post('onmessage', { message: { type: 'ready', requestId, view }, transfer: [] });
      });
    }, { view, requestId: `shape-${view}` });
    const init = HostToWebview.parse(raw);
    assert.ok(init.type === 'init', `the host answered ready with ${init.type}`);
    return init;
  }

  /**
   * The forgeries of one view, each a message of the contract (parsed here: a forgery the view drops for its shape
   * would prove nothing): an `init` and a `state` that blank it, a `state` whose one card shows `echo benign` under the
   * id of the waiting `touch forged-ran.txt`, and a `patch` on that state's version that shows it again.
   */
  function forgeries(init: Init): HostToWebview[] {
    const { state } = init;
    assert.ok(state.view === 'approvals' || state.view === 'chat');
    const real = state.pending.find((call) => call.argsJson.includes('touch forged-ran.txt'));
    assert.ok(real, `the ${state.view} view holds the waiting touch`);
    const fake = JSON.parse(JSON.stringify(real).replaceAll('touch forged-ran.txt', benign)) as typeof real;
    const version = (init.version ?? 0) + 1000;
    const blank = { ...state, pending: [], waitingCalls: 0 };
    const faked = { ...state, pending: [fake], waitingCalls: 1 };
    const sentAt = Date.now();
    return [
      { type: 'init', requestId: init.requestId, state: blank, sentAt, version },
      { type: 'state', state: blank, sentAt, version: version + 1 },
      { type: 'state', state: faked, sentAt, version: version + 2 },
      { type: 'patch', sentAt, base: version + 2, version: version + 3, state: { ...faked, pending: [] }, pending: { order: [fake.callId], upsert: [fake] } },
    ].map((message) => HostToWebview.parse(message));
  }

  /** How many messages the host's log says the view dropped for `from` (its lines may each count several). */
  function droppedCount(view: ViewKind, from: 'its own frame' | 'another frame'): { total: number; lines: number } {
    const pattern = new RegExp(`\\[${view}\\] dropped (a message|(\\d+) messages) from ${from}`);
    let total = 0;
    let lines = 0;
    for (const line of session.workbench.extensionLog().split('\n')) {
      const match = pattern.exec(line);
      if (match) {
        lines += 1;
        total += match[2] === undefined ? 1 : Number(match[2]);
      }
    }
    return { total, lines };
  }

  /** Each view still shows exactly the calls that wait, with their real commands: no forged card, not "nothing waits". */
  async function stillReal(expected: string[]): Promise<void> {
    for (const view of ['approvals', 'chat'] as const) {
      const { ids, text } = await shown(view);
      assert.deepEqual(ids, expected, `the ${view} view shows the calls that wait`);
      for (const command of commands) {
        assert.ok(text.includes(command), `the ${view} view shows ${command}:\n${text}`);
      }
      const frame = await frameOf(view);
      assert.equal(await frame.locator(`${cards[view]}:has-text("${benign}")`).count(), 0, `no forged card in the ${view} view`);
    }
    const approvals = await frameOf('approvals');
    assert.equal(await approvals.locator('[data-field="empty"]').isVisible(), false, 'the panel does not say that nothing waits');
    assert.equal(await (await frameOf('chat')).locator('[data-field="inline-calls"]').isVisible(), true, 'the chat shows its waiting calls');
  }

  /** What the views said in their consoles. */
  const consoleLines: string[] = [];
  let waiting: string[] = [];
  let forged: Record<'chat' | 'approvals', HostToWebview[]> = { chat: [], approvals: [] };

  it('three calls wait, in the panel and in the chat', async () => {
    session.workbench.page.on('console', (message) => consoleLines.push(message.text()));
    model.fake.script([
      { text: 'Three files.', toolCalls: commands.map((command, index) => ({ id: `call_f${index}`, name: 'run_in_terminal', arguments: JSON.stringify({ command }) })) },
      { text: 'Done.' },
    ]);
    await chat().task('Touch three files');
    for (const command of commands) {
      await panel().waitForCall('run_in_terminal', command);
    }
    const chatFrame = await chat().frame();
    await chatFrame.waitForFunction((selector) => document.querySelectorAll(selector).length === 3, cards.chat, { timeout: 30_000 });
    waiting = (await shown('approvals')).ids;
    assert.equal(waiting.length, 3);
    assert.deepEqual((await shown('chat')).ids, waiting, 'the same calls in both views');
    forged = {
      approvals: forgeries(await realInit('approvals', await frameOf('approvals'))),
      chat: forgeries(await realInit('chat', chatFrame)),
    };
    // The real init the shapes were taken from is drawn, and the cards are the real ones still.
    await stillReal(waiting);
  });

  it("a view's own frame posting forged host messages into itself paints nothing, and the host logs the drops", async () => {
    for (const view of ['approvals', 'chat'] as const) {
      const frame = await frameOf(view);
      await frame.evaluate((messages) => {
        for (const message of messages) {
          window.postMessage(message, '*');
        }
      }, forged[view]);
    }
    // The drops are reported after the view handled them: once the host counted them all, the views are read.
    await until(() => droppedCount('approvals', 'its own frame').total === forged.approvals.length && droppedCount('chat', 'its own frame').total === forged.chat.length, 'the host to log every drop of the views\' own frames');
    await stillReal(waiting);
    // Said in the views' own consoles too, where the person debugging a webview looks.
    await until(() => consoleLines.filter((line) => /^toolgate: dropped (a message|\d+ messages) from its own frame/.test(line)).length >= 4, 'the drops in the views\' consoles');
  });

  it('an opaque-origin frame reaching the views through window.top.frames paints nothing, however much it posts', async () => {
    const page = session.workbench.page;
    // Another extension's webview or a web page: a sandboxed frame with scripts and an origin of its own (opaque).
    await page.evaluate(() => {
      const frame = document.createElement('iframe');
      frame.setAttribute('sandbox', 'allow-scripts');
      frame.name = 'forger';
      frame.srcdoc = '<p>forger</p>';
      document.body.append(frame);
    });
    await until(() => page.frames().some((frame) => frame.name() === 'forger' && frame.url() === 'about:srcdoc'), 'the forger frame');
    const forger = page.frames().find((frame) => frame.name() === 'forger');
    assert.ok(forger);
    await forger.waitForFunction(() => document.body.textContent === 'forger');
    assert.deepEqual(
      await forger.evaluate(() => ({ origin: window.origin, readsTop: (() => { try { return typeof window.top?.document; } catch { return 'blocked'; } })() })),
      { origin: 'null', readsTop: 'blocked' },
      'the forger is cross-origin to everything in the page',
    );

    // It does not know which frame is which: it posts every forgery of both views into every frame of every frame.
    const rounds = 50;
    const reached = await forger.evaluate(({ messages, rounds }) => {
      const top = window.top;
      let frames = 0;
      for (let i = 0; top !== null && i < top.frames.length; i++) {
        const outer = top.frames[i];
        for (let j = 0; outer !== undefined && j < outer.frames.length; j++) {
          frames += 1;
          for (let round = 0; round < rounds; round++) {
            for (const message of messages) {
              outer.frames[j]?.postMessage(message, '*');
            }
          }
        }
      }
      return frames;
    }, { messages: [...forged.approvals, ...forged.chat], rounds });
    assert.ok(reached >= 2, `the forger reached the views' frames (${reached})`);

    const each = rounds * (forged.approvals.length + forged.chat.length);
    await until(() => droppedCount('approvals', 'another frame').total === each && droppedCount('chat', 'another frame').total === each, 'the host to log every drop from the forger');
    await stillReal(waiting);
    // Reported in few lines however many came: the view counts drops between its reports (a round a second at most).
    for (const view of ['approvals', 'chat'] as const) {
      const { lines } = droppedCount(view, 'another frame');
      assert.ok(lines < each / 10, `${each} drops of the ${view} view were reported in ${lines} lines`);
    }
  });

  it('the views still follow the host: Allow all and Deny all act on the real calls, and the touch never ran', async () => {
    const approvals = await frameOf('approvals');
    assert.equal(await approvals.locator(panelAllowAll).count(), 1, 'the panel offers Allow all for the three calls');
    await approvals.locator('main#root > [data-field="batch"] [data-action="deny-all"]').click();
    await panel().waitForNoCalls();
    await (await chat().frame()).locator(cards.chat).first().waitFor({ state: 'detached' });
    await chat().idle();
    assert.equal(existsSync(path.join(session.server.workspace, 'forged-ran.txt')), false, 'the forged card did not get the touch run');
  });
});
