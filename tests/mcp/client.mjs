// A small MCP client on the official TypeScript SDK, driven by the integration tests.
//
//   node client.mjs '{"transport": "stdio", "command": "sbw", "args": ["mcp"], "steps": [...]}'
//   node client.mjs '{"transport": "http", "url": "http://127.0.0.1:N/mcp", "token": "…", "steps": [...]}'
//
// Steps, run in order: {"list": true} prints {"tools": [names]}; {"call": NAME, "arguments": {...}}
// prints the tool's result as the SDK returns it (content, structuredContent, isError);
// {"resources": true} prints resources/list's result; {"read": URI} prints resources/read's;
// a step prints {"error": MESSAGE, "code": CODE} when the SDK throws (protocol error, output not
// matching the schema).
// The first line is {"server": serverInfo, "instructions": …}. One JSON line per step on stdout;
// exit status 1 when the client cannot connect.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const config = JSON.parse(process.argv[2]);
const transport =
  config.transport === "stdio"
    ? new StdioClientTransport({ command: config.command, args: config.args ?? [], env: { ...process.env } })
    : new StreamableHTTPClientTransport(new URL(config.url), {
        requestInit: { headers: { Authorization: `Bearer ${config.token}` } },
      });
const client = new Client({ name: "sbw-test-client", version: "1.0.0" });
const print = (value) => process.stdout.write(JSON.stringify(value) + "\n");

try {
  await client.connect(transport);
} catch (error) {
  process.stderr.write(`cannot connect: ${error.message}\n`);
  process.exit(1);
}
print({ server: client.getServerVersion(), instructions: client.getInstructions() ?? null });
for (const step of config.steps ?? []) {
  try {
    if (step.list) {
      const { tools } = await client.listTools();
      print({ tools: tools.map((tool) => tool.name) });
    } else if (step.resources) {
      print(await client.listResources());
    } else if (step.read) {
      print(await client.readResource({ uri: step.read }));
    } else {
      // Long calls (boots under software emulation) outlast the SDK's default of 60 s.
      print(await client.callTool({ name: step.call, arguments: step.arguments ?? {} }, undefined, { timeout: 900000 }));
    }
  } catch (error) {
    print({ error: error.message, code: error.code ?? null });
  }
}
await client.close();
