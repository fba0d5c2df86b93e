// Text from an endpoint or the network, fit for any database's text column and any log: control
// characters other than tab and line breaks (NUL above all: PostgreSQL refuses it) and unpaired
// surrogates become U+FFFD.

export function storableText(text: string): string {
  // eslint-disable-next-line no-control-regex -- control characters are what this removes
  return text.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g, '\ufffd').toWellFormed();
}
