// A hand-written MCP server over streamable HTTP (legacy sessions,
// 2024-11-05 to 2025-11-25), in Node with no dependency: the stack of a
// server written without an SDK. Correct unless DEFECT names one planted
// defect; TestNodeServerDefects checks that CheckServer catches each.
//
// Usage: DEFECT=name node server.mjs PORT
//
// Defects: session-unknown-served, protocol-version-accepted,
// notification-answered, version-echoed, discover-failing,
// subscribe-unimplemented, cancel-ignored, not-found-bare.
import http from 'node:http';
import { randomUUID } from 'node:crypto';

const defect = process.env.DEFECT || '';
const versions = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'];
const sessions = new Set();
const cancelled = new Set();

const tools = [
  {
    name: 'echo',
    description: 'Says its text again.',
    inputSchema: {
      type: 'object',
      properties: { text: { type: 'string', description: 'The text to echo back.' } },
      required: ['text'],
      additionalProperties: false,
    },
  },
  {
    name: 'count',
    description: 'Counts to n, reporting progress at each step.',
    inputSchema: {
      type: 'object',
      properties: { n: { type: 'integer', minimum: 1, maximum: 20, description: 'How many progress steps to report.' } },
      required: ['n'],
    },
  },
];
const note = { uri: 'mem://note', name: 'note', mimeType: 'text/plain' };

function reply(res, status, body, headers = {}) {
  const data = body === undefined ? '' : JSON.stringify(body);
  res.writeHead(status, body === undefined ? headers : { 'Content-Type': 'application/json', ...headers });
  res.end(data);
}
const result = (id, r) => ({ jsonrpc: '2.0', id, result: r });
const error = (id, code, message, data) => ({ jsonrpc: '2.0', id, error: data === undefined ? { code, message } : { code, message, data } });

function localOrigin(origin) {
  try {
    const h = new URL(origin).hostname;
    return h === 'localhost' || h === '127.0.0.1' || h === '[::1]';
  } catch {
    return false;
  }
}

// callTool answers tools/call; count streams its progress over SSE.
function callTool(req, res, msg) {
  const { name, arguments: args = {} } = msg.params || {};
  if (name === 'echo') {
    const extra = Object.keys(args).filter((k) => k !== 'text');
    if (typeof args.text !== 'string' || extra.length > 0) {
      return reply(res, 200, result(msg.id, { content: [{ type: 'text', text: 'echo needs one argument, text, a string' }], isError: true }));
    }
    return reply(res, 200, result(msg.id, { content: [{ type: 'text', text: args.text }] }));
  }
  if (name === 'count') {
    if (!Number.isInteger(args.n) || args.n < 1 || args.n > 20) {
      return reply(res, 200, result(msg.id, { content: [{ type: 'text', text: 'count needs n, an integer from 1 to 20' }], isError: true }));
    }
    const token = msg.params?._meta?.progressToken;
    res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' });
    let step = 0;
    const tick = () => {
      if (cancelled.has(JSON.stringify(msg.id)) && defect !== 'cancel-ignored') {
        return res.end(); // cancelled: no more progress, no response
      }
      step++;
      if (token !== undefined) {
        res.write(`data: ${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: token, progress: step, total: args.n } })}\n\n`);
      }
      if (step >= args.n) {
        res.write(`data: ${JSON.stringify(result(msg.id, { content: [{ type: 'text', text: `counted to ${args.n}` }] }))}\n\n`);
        return res.end();
      }
      setTimeout(tick, 150);
    };
    return tick();
  }
  return reply(res, 200, error(msg.id, -32602, `unknown tool: ${name}`));
}

function handle(req, res, body) {
  if (req.headers.origin && !localOrigin(req.headers.origin)) {
    return reply(res, 403, error(null, -32600, 'forbidden origin'));
  }
  if (req.method === 'GET') return reply(res, 405, undefined, { Allow: 'POST, DELETE' });
  const sid = req.headers['mcp-session-id'];
  if (req.method === 'DELETE') {
    if (!sid || !sessions.has(sid)) return reply(res, 404, undefined);
    sessions.delete(sid);
    return reply(res, 200, undefined);
  }
  if (req.method !== 'POST') return reply(res, 405, undefined, { Allow: 'POST, DELETE' });
  let msg;
  try {
    msg = JSON.parse(body);
  } catch {
    return reply(res, 400, error(null, -32700, 'parse error'));
  }
  if (msg === null || typeof msg !== 'object' || Array.isArray(msg) || typeof msg.method !== 'string') {
    return reply(res, 400, error(null, -32600, 'invalid request'));
  }
  const isRequest = msg.id !== undefined;
  if (msg.method === 'initialize') {
    const asked = msg.params?.protocolVersion;
    const version = versions.includes(asked) || defect === 'version-echoed' ? asked : versions[0];
    const id = randomUUID();
    sessions.add(id);
    return reply(res, 200, result(msg.id, {
      protocolVersion: version,
      capabilities: { tools: {}, resources: { subscribe: true } },
      serverInfo: { name: 'nodehttp', version: '1.0.0' },
    }), { 'Mcp-Session-Id': id });
  }
  if (msg.method === 'server/discover') {
    // A legacy server: the method does not exist here.
    if (defect === 'discover-failing') return reply(res, 200, error(msg.id, -32603, 'internal error'));
    return reply(res, 200, error(msg.id, -32601, 'method not found: server/discover'));
  }
  if (!sid) return reply(res, 400, error(null, -32600, 'missing Mcp-Session-Id'));
  if (!sessions.has(sid) && defect !== 'session-unknown-served') {
    return reply(res, 404, error(null, -32001, 'session not found'));
  }
  const pv = req.headers['mcp-protocol-version'];
  if (pv !== undefined && !versions.includes(pv) && defect !== 'protocol-version-accepted') {
    return reply(res, 400, error(null, -32600, `unsupported MCP-Protocol-Version: ${pv}`));
  }
  if (!isRequest) {
    if (msg.method === 'notifications/cancelled') cancelled.add(JSON.stringify(msg.params?.requestId));
    if (defect === 'notification-answered') return reply(res, 200, result(null, {}));
    return reply(res, 202, undefined);
  }
  switch (msg.method) {
    case 'ping':
      return reply(res, 200, result(msg.id, {}));
    case 'tools/list':
      return reply(res, 200, result(msg.id, { tools }));
    case 'tools/call':
      return callTool(req, res, msg);
    case 'resources/list':
      return reply(res, 200, result(msg.id, { resources: [note] }));
    case 'resources/templates/list':
      return reply(res, 200, result(msg.id, { resourceTemplates: [] }));
    case 'resources/read': {
      const uri = msg.params?.uri;
      if (uri === note.uri) return reply(res, 200, result(msg.id, { contents: [{ uri, mimeType: 'text/plain', text: 'remember the milk' }] }));
      if (defect === 'not-found-bare') return reply(res, 200, error(msg.id, -32602, 'not found'));
      return reply(res, 200, error(msg.id, -32602, `resource not found: ${uri}`, { uri }));
    }
    case 'resources/subscribe':
    case 'resources/unsubscribe':
      if (defect === 'subscribe-unimplemented') return reply(res, 200, error(msg.id, -32601, `method not found: ${msg.method}`));
      return reply(res, 200, result(msg.id, {}));
  }
  return reply(res, 200, error(msg.id, -32601, `method not found: ${msg.method}`));
}

const server = http.createServer((req, res) => {
  let body = '';
  req.setEncoding('utf8');
  req.on('data', (c) => { body += c; });
  req.on('end', () => handle(req, res, body));
});
server.listen(Number(process.argv[2]), '127.0.0.1');
process.on('SIGTERM', () => process.exit(0));
