// GET /set-password: the page a set-password link opens. The token is in the link's fragment
// (#token=…), which browsers never send to a server, so it reaches no log; the page's script
// reads it and posts it with the chosen password to POST /auth/set-password. The one inline script
// is allowed by its hash in the page's Content-Security-Policy, nothing else is.
import { createHash } from 'node:crypto';
import type { FastifyReply } from 'fastify';

const SCRIPT = `
const token = new URLSearchParams(location.hash.slice(1)).get('token') || '';
history.replaceState(null, '', location.pathname);
const form = document.getElementById('f');
const out = document.getElementById('out');
if (!token) { out.textContent = 'This link has no token: open the whole link you were sent.'; form.hidden = true; }
form.addEventListener('submit', async (e) => {
  e.preventDefault();
  const password = form.password.value;
  if (password !== form.again.value) { out.textContent = 'The two passwords differ.'; return; }
  form.button.disabled = true;
  out.textContent = '';
  try {
    const res = await fetch('/auth/set-password', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token, password }),
    });
    const body = await res.json();
    if (res.ok) { form.hidden = true; out.textContent = 'Your password is set. Sign in with your email and this password.'; }
    else { out.textContent = body.error || 'It did not work.'; form.button.disabled = false; }
  } catch { out.textContent = 'The service did not answer; try again.'; form.button.disabled = false; }
});
`;

const HTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer"><title>Choose a password</title>
<style>body{font:16px system-ui,sans-serif;max-width:28rem;margin:3rem auto;padding:0 1rem}label{display:block;margin:1rem 0 .25rem}input{width:100%;padding:.5rem;box-sizing:border-box}button{margin-top:1rem;padding:.5rem 1rem}#out{margin-top:1rem}</style>
</head><body><h1>Choose a password</h1>
<form id="f"><label for="p">Password (at least 12 characters)</label><input id="p" name="password" type="password" minlength="12" autocomplete="new-password" required>
<label for="a">The same again</label><input id="a" name="again" type="password" minlength="12" autocomplete="new-password" required>
<button name="button" type="submit">Set password</button></form><p id="out" role="status"></p>
<script>${SCRIPT}</script></body></html>`;

const CSP = [
  "default-src 'none'",
  `script-src 'sha256-${createHash('sha256').update(SCRIPT).digest('base64')}'`,
  "style-src 'unsafe-inline'",
  "connect-src 'self'",
  "form-action 'none'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

export function setPasswordPage(reply: FastifyReply) {
  return reply
    .type('text/html; charset=utf-8')
    .header('content-security-policy', CSP)
    .header('referrer-policy', 'no-referrer')
    .header('cache-control', 'no-store')
    .send(HTML);
}
