// A command line typed in a text field, as POSIX shell words (quotes and backslashes), and back.

/** Split a command line into arguments; throws on an unclosed quote. */
export function splitShell(text: string): string[] {
  const out: string[] = [];
  let word = "";
  let inWord = false;
  let i = 0;
  while (i < text.length) {
    const ch = text[i];
    if (/\s/.test(ch)) {
      if (inWord) out.push(word);
      word = "";
      inWord = false;
      i += 1;
    } else if (ch === "'") {
      const end = text.indexOf("'", i + 1);
      if (end < 0) throw new Error("unclosed ' in the command");
      word += text.slice(i + 1, end);
      inWord = true;
      i = end + 1;
    } else if (ch === '"') {
      i += 1;
      while (i < text.length && text[i] !== '"') {
        if (text[i] === "\\" && i + 1 < text.length && '"\\$`'.includes(text[i + 1])) i += 1;
        word += text[i];
        i += 1;
      }
      if (i >= text.length) throw new Error('unclosed " in the command');
      inWord = true;
      i += 1;
    } else if (ch === "\\" && i + 1 < text.length) {
      word += text[i + 1];
      inWord = true;
      i += 2;
    } else {
      word += ch;
      inWord = true;
      i += 1;
    }
  }
  if (inWord) out.push(word);
  return out;
}

/** One argument quoted for a POSIX shell when it needs to be (as Python's shlex.quote). */
export function quoteShell(arg: string): string {
  if (arg && /^[\w@%+=:,./-]+$/.test(arg)) return arg;
  return `'${arg.replace(/'/g, `'"'"'`)}'`;
}

export function joinShell(argv: string[]): string {
  return argv.map(quoteShell).join(" ");
}
