// Baseline: a bare node:http server answering every request with the same bytes from memory.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';

const body = readFileSync(process.env.BODY_FILE);
const headers = JSON.parse(process.env.BODY_HEADERS);
createServer((_req, res) => {
  res.writeHead(200, headers);
  res.end(body);
}).listen(Number(process.env.PORT), '127.0.0.1', () => process.send?.('ready'));
