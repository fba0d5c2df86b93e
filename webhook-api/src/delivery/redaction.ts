// What a delivery attempt may write down (an error's text, the start of the endpoint's answer) with
// the credentials it was sent with taken out, in every form an endpoint or a library could echo them.
import type { DeliveryRequest } from './envelope.ts';

/** The forms a credential may take in what an endpoint echoes back: as sent, percent-encoded, in base64, JSON-escaped. */
function secretForms(secrets: readonly string[]): string[] {
  const forms = new Set<string>();
  // Short values are skipped: they would mangle the text, and no library quotes a request's credentials anyway.
  for (const secret of secrets) {
    if (secret.length < 4) continue;
    for (const form of [secret, encodeURIComponent(secret), Buffer.from(secret).toString('base64'), JSON.stringify(secret).slice(1, -1)]) forms.add(form);
  }
  // The longest first, so a shorter form never leaves part of a longer one behind.
  return [...forms].sort((a, b) => b.length - a.length);
}

/**
 * Text from the network or the endpoint (an echoing endpoint included) with the credentials, the
 * query string and user information taken out: each form of each credential in any letter case (an
 * endpoint may echo a header's value lower-cased), and a tail that is the start of one (a prefix
 * cut in the middle of a credential would show all of it but the rest).
 */
export function redacted(text: string, secrets: readonly string[]): string {
  // Every form is at least 4 characters, and so is a tail worth taking out: a shorter text (a 2xx's
  // `{}` or `OK`) holds none, and the forms are not worked out for it.
  if (text.length < 4) return text;
  const forms = secretForms(secrets);
  let clean = text;
  // A literal, escaped, matched without regard to case: linear in the text.
  for (const form of forms) clean = clean.replace(new RegExp(form.replace(/[\\^$.*+?()[\]{}|]/g, '\\$&'), 'gi'), '[redacted]');
  for (const form of forms) {
    for (let length = Math.min(form.length - 1, clean.length); length >= 4; length--) {
      if (clean.slice(clean.length - length).toLowerCase() === form.slice(0, length).toLowerCase()) {
        clean = `${clean.slice(0, clean.length - length)}[redacted]`;
        break;
      }
    }
  }
  return clean;
}

export function errorText(text: string, secrets: readonly string[]): string {
  const clean = redacted(text, secrets);
  return clean.length > 300 ? `${clean.slice(0, 300)}...` : clean;
}

function decoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** Values an error text must never hold: the credentials, the query string, the user information; longest first. */
export function secretsOf(url: URL, built: DeliveryRequest | undefined): string[] {
  const secrets = [...(built?.secrets ?? [])];
  if (url.search.length > 1) secrets.push(url.search.slice(1), decoded(url.search.slice(1)));
  if (url.username !== '') secrets.push(url.username, decoded(url.username));
  if (url.password !== '') secrets.push(url.password, decoded(url.password));
  return secrets.sort((a, b) => b.length - a.length);
}
