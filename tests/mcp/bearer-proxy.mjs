// An HTTP proxy on 127.0.0.1 that adds "Authorization: Bearer $SBW_MCP_TOKEN" to every request
// and passes it, with every other header unchanged (Host and Origin included), to the server at
// the URL given as the only argument; responses (JSON or SSE streams) come back as they are.
// For clients that cannot send a bearer token, such as the MCP conformance suite's CLI.
//
//   SBW_MCP_TOKEN=... node bearer-proxy.mjs http://127.0.0.1:PORT/mcp
//
// Prints "http://127.0.0.1:PROXYPORT/mcp" (the target's path on the proxy's port) on stdout
// once it listens, then runs until it is killed.
import http from 'node:http';

const target = new URL(process.argv[2]);
const token = process.env.SBW_MCP_TOKEN;
if (!token) {
    console.error('bearer-proxy: SBW_MCP_TOKEN is not set');
    process.exit(2);
}

const proxy = http.createServer((request, response) => {
    const upstream = http.request({
        host: target.hostname,
        port: target.port,
        method: request.method,
        path: request.url,
        headers: { ...request.headers, authorization: `Bearer ${token}` },
    }, (answer) => {
        response.writeHead(answer.statusCode, answer.statusMessage, answer.headers);
        answer.pipe(response);
    });
    upstream.on('error', (error) => {
        if (!response.headersSent)
            response.writeHead(502, { 'content-type': 'text/plain' });
        response.end(`bearer-proxy: ${error.message}\n`);
    });
    response.on('close', () => upstream.destroy());
    request.pipe(upstream);
});

proxy.listen(0, '127.0.0.1', () => {
    console.log(`http://127.0.0.1:${proxy.address().port}${target.pathname}`);
});
