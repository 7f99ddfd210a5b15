// "Copy as curl" for a journal entry: a command safe to paste into a shell
// whatever the entry holds. Every value from the request is one single-quoted
// word (a quote inside closed, escaped and reopened), so no newline, `$(...)`,
// backtick, `;` or quote it carries can end the word or start a command; the
// token is the variable $SWITCHBOARD_TOKEN, never its value; nothing from the
// request goes into a comment; `--globoff`, so brackets and braces in a path
// or query are sent as they are, never expanded into many requests. A pure function, so node tests it without a
// browser (clients/console-curl.test.mjs).

/** `text` as one single-quoted shell word. */
export function shellWord(text) {
  return `'${String(text).replace(/'/g, `'\\''`)}'`;
}

/** The curl command for `entry` (a journal entry) against the server at `origin`. */
export function curlCommand(entry, origin) {
  const target = `${origin}${entry.path}${entry.query ? `?${entry.query}` : ""}`;
  const lines = [`curl --globoff -X ${shellWord(entry.method)} ${shellWord(target)}`, `  -H "Authorization: Bearer $SWITCHBOARD_TOKEN"`];
  if (entry.idempotencyKey) lines.push(`  -H ${shellWord(`Idempotency-Key: ${entry.idempotencyKey}`)}`);
  if (entry.requestBody && typeof entry.requestBody === "object") {
    lines.push(`  -H 'Content-Type: application/json'`, `  --data-binary ${shellWord(JSON.stringify(entry.requestBody))}`);
  }
  // A body the journal kept as text (a form, or one over its size) is not
  // sent, and not repeated: a comment must hold nothing the request chose.
  const note = typeof entry.requestBody === "string" ? "# the body is not repeated: the journal kept it as text (a form body, or over its size)\n" : "";
  return note + lines.join(" \\\n");
}
