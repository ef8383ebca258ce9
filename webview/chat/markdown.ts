/**
 * Markdown from the model, rendered safely: marked only tokenises; every node is built with createElement and
 * textContent, so no HTML from the model ever reaches the DOM as markup. Raw HTML in the text is shown as text;
 * links are plain http(s)/mailto only.
 */
import { Lexer, type Token, type Tokens } from 'marked';
import { h } from '../shared/elements';

function safeHref(href: string): string | undefined {
  try {
    const url = new URL(href);
    return ['http:', 'https:', 'mailto:'].includes(url.protocol) ? url.toString() : undefined;
  } catch {
    return undefined;
  }
}

function inline(tokens: Token[] | undefined, fallback: string): Node[] {
  if (!tokens) {
    return [document.createTextNode(fallback)];
  }
  return tokens.map((token): Node => {
    switch (token.type) {
      case 'strong':
        return h('strong', {}, ...inline((token as Tokens.Strong).tokens, (token as Tokens.Strong).text));
      case 'em':
        return h('em', {}, ...inline((token as Tokens.Em).tokens, (token as Tokens.Em).text));
      case 'del':
        return h('del', {}, ...inline((token as Tokens.Del).tokens, (token as Tokens.Del).text));
      case 'codespan':
        return h('code', {}, (token as Tokens.Codespan).text);
      case 'br':
        return h('br');
      case 'link': {
        const link = token as Tokens.Link;
        const href = safeHref(link.href);
        return href === undefined
          ? h('span', {}, ...inline(link.tokens, link.text))
          : h('a', { href, title: href }, ...inline(link.tokens, link.text));
      }
      case 'image': {
        const image = token as Tokens.Image;
        return document.createTextNode(`[image: ${image.text}]`);
      }
      case 'text': {
        const text = token as Tokens.Text;
        return text.tokens ? h('span', {}, ...inline(text.tokens, text.text)) : document.createTextNode(decodeEntities(text.text));
      }
      case 'escape':
        return document.createTextNode((token as Tokens.Escape).text);
      default:
        // html and anything unknown: shown as the text it is.
        return document.createTextNode(token.raw);
    }
  });
}

/** marked escapes &, <, > in text tokens; undo that because we set text, not markup. */
function decodeEntities(text: string): string {
  return text.replace(/&(amp|lt|gt|quot|#39);/g, (_, name: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" })[name] ?? _);
}

function block(token: Token): Node {
  switch (token.type) {
    case 'heading': {
      const heading = token as Tokens.Heading;
      return h(`h${Math.min(6, Math.max(3, heading.depth + 2))}`, {}, ...inline(heading.tokens, heading.text));
    }
    case 'paragraph':
      return h('p', {}, ...inline((token as Tokens.Paragraph).tokens, (token as Tokens.Paragraph).text));
    case 'code': {
      const code = token as Tokens.Code;
      return h('pre', { class: 'code' }, h('code', code.lang ? { 'data-lang': code.lang } : {}, code.text));
    }
    case 'blockquote':
      return h('blockquote', {}, ...(token as Tokens.Blockquote).tokens.map(block));
    case 'list': {
      const list = token as Tokens.List;
      return h(list.ordered ? 'ol' : 'ul', {}, ...list.items.map((item) => h('li', {}, ...item.tokens.map(block))));
    }
    case 'text': {
      const text = token as Tokens.Text;
      return h('span', {}, ...inline(text.tokens, text.text));
    }
    case 'space':
      return document.createTextNode('');
    case 'hr':
      return h('hr');
    case 'table': {
      const table = token as Tokens.Table;
      return h('table', {},
        h('thead', {}, h('tr', {}, ...table.header.map((cell) => h('th', {}, ...inline(cell.tokens, cell.text))))),
        h('tbody', {}, ...table.rows.map((row) => h('tr', {}, ...row.map((cell) => h('td', {}, ...inline(cell.tokens, cell.text)))))));
    }
    default:
      return h('p', {}, token.raw);
  }
}

export function renderMarkdown(text: string): Node[] {
  let tokens: Token[];
  try {
    tokens = Lexer.lex(text, { gfm: true });
  } catch {
    return [h('p', {}, text)];
  }
  return tokens.map(block);
}
