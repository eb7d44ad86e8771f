/* global process */
// What a one-shot's network exchange costs with no CLI around it: Node starts, asks the fake
// Ollama at argv[2] about the model (`/api/show`) and for a streamed answer (`/api/chat`), the two
// requests a one-shot makes, over node:http, and prints the answer's size. No yargs, no zod, no files.
import { request } from 'node:http';

function post(url, body) {
  return new Promise((resolve, reject) => {
    const sent = request(
      url,
      { method: 'POST', headers: { 'content-type': 'application/json' } },
      (answer) => {
        let text = '';
        answer.setEncoding('utf8');
        answer.on('data', (chunk) => (text += chunk));
        answer.on('end', () => resolve(text));
      },
    );
    sent.on('error', reject);
    sent.end(JSON.stringify(body));
  });
}

const base = process.argv[2];
await post(`${base}/api/show`, { model: 'llama3.2' });
const answer = await post(`${base}/api/chat`, {
  model: 'llama3.2',
  messages: [{ role: 'user', content: 'hi' }],
  stream: true,
});
process.stdout.write(`${answer.length}\n`);
