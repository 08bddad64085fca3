// Debian's Chromium for the browser tests (driven by playwright-core, which downloads no browser
// of its own here), and the switches it starts with: headless, and nothing that reaches the network.
export const CHROMIUM = '/usr/bin/chromium';
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
