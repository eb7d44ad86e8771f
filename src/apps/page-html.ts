/**
 * The host page: a list of the session's apps, newest first, each with its tool call and its
 * sandboxed frame, and the relay between each frame and the bridge in the host's process. A
 * message is relayed only when its source is one of the page's own frames: the frame it came from
 * names the app, so an app cannot speak for another, and anything else is reported and dropped.
 * Written by hand (no framework): it is small, and the page loads nothing from anywhere.
 */

export function hostPageHtml(options: { readonly nonce: string; readonly frameOrigin: string }): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>mcphost apps</title>
<meta name="referrer" content="no-referrer">
<style>
  body { font: 14px/1.4 system-ui, sans-serif; margin: 0; background: #f4f4f5; color: #18181b; }
  header { padding: 12px 20px; background: #18181b; color: #fafafa; display: flex; gap: 12px; align-items: baseline; }
  header h1 { font-size: 16px; margin: 0; }
  #status { color: #a1a1aa; }
  main { padding: 16px 20px; display: flex; flex-direction: column; gap: 16px; }
  .app { background: #fff; border: 1px solid #d4d4d8; border-radius: 8px; overflow: hidden; }
  .app.fullscreen { position: fixed; inset: 0; z-index: 10; border-radius: 0; }
  .app.fullscreen iframe { height: calc(100vh - 60px) !important; }
  .app.closed iframe { display: none; }
  .call { padding: 8px 12px; background: #fafafa; border-bottom: 1px solid #e4e4e7; font-family: ui-monospace, monospace; font-size: 12px; white-space: pre-wrap; word-break: break-all; }
  .call b { font-family: system-ui, sans-serif; font-size: 13px; }
  iframe { width: 100%; height: 320px; border: 0; display: block; }
  #empty { color: #71717a; }
</style></head>
<body>
<header><h1>mcphost · apps of this session</h1><span id="status">connecting…</span></header>
<main id="apps"><p id="empty">No app yet: they appear here when a tool with an interface is called.</p></main>
<script nonce="${options.nonce}">
"use strict";
const base = location.pathname.endsWith('/') ? location.pathname : location.pathname + '/';
const frameOrigin = ${JSON.stringify(options.frameOrigin)};
const apps = new Map();
const list = document.getElementById('apps');
const status = document.getElementById('status');
function post(path, body) {
  return fetch(base + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
}
function addApp(app, frameUrl) {
  if (apps.has(app.id)) return;
  document.getElementById('empty')?.remove();
  const card = document.createElement('section');
  card.className = 'app' + (app.closed ? ' closed' : '');
  card.id = app.id;
  const call = document.createElement('div');
  call.className = 'call';
  const title = document.createElement('b');
  title.textContent = app.tool + ' · ' + new Date(app.openedAt).toLocaleTimeString();
  call.append(title, document.createElement('br'), JSON.stringify(app.input));
  const frame = document.createElement('iframe');
  frame.setAttribute('sandbox', 'allow-scripts allow-forms');
  frame.setAttribute('referrerpolicy', 'no-referrer');
  frame.title = app.tool;
  frame.src = frameUrl;
  card.append(call, frame);
  list.prepend(card);
  apps.set(app.id, { card, frame });
}
window.addEventListener('message', (event) => {
  for (const [id, { frame }] of apps) {
    if (event.source === frame.contentWindow && event.source !== null) {
      if (event.data && event.data.jsonrpc === '2.0') void post('relay/' + id, event.data);
      return;
    }
  }
  let data = {};
  try { data = JSON.parse(JSON.stringify(event.data)); } catch { data = {}; }
  void post('refused', { origin: event.origin, data });
});
const events = new EventSource(base + 'events');
events.onopen = () => { status.textContent = 'connected'; };
events.onerror = () => { status.textContent = 'disconnected'; };
events.onmessage = (message) => {
  const event = JSON.parse(message.data);
  const entry = apps.get(event.app);
  switch (event.type) {
    case 'app': addApp(event.app, event.frame); break;
    case 'to-frame': entry?.frame.contentWindow?.postMessage(event.message, '*'); break;
    case 'note':
      if (!entry) break;
      if (event.note.type === 'size' && typeof event.note.height === 'number') entry.frame.style.height = Math.min(event.note.height, 4000) + 'px';
      if (event.note.type === 'display-mode') entry.card.classList.toggle('fullscreen', event.note.mode === 'fullscreen');
      if (event.note.type === 'closed') entry.card.classList.add('closed');
      break;
    case 'ended': status.textContent = 'the session ended'; events.close(); break;
  }
};
</script>
</body></html>
`;
}
