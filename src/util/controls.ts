// C0 controls but tab and line feed, DEL, C1 controls, and the bidirectional overrides, isolates
// and marks (LRM, RLM, ALM): a file name or a value from a user's document must not move the
// cursor, recolour the terminal, set its title or reorder what is printed around it (on stderr, in
// history show, in report.md read in a terminal, in report.html and evalkit view's pane).

/**
 * User strings as text: control characters shown as `\x1b` / `\u202e`, never interpreted.
 * Self-contained (its regular expression inside): the explorer's and the pane's page scripts embed
 * its source (`escapeControls.toString()`).
 */
export function escapeControls(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, (c) => {
    const code = c.charCodeAt(0);
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}

/** A file name (or any argument) as one POSIX shell word: as is when safe, else single-quoted. */
export function shellWord(s: string): string {
  return /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}
