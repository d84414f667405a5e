// A small MCP client on the official TypeScript SDK, driven by the integration tests.
//
//   node client.mjs '{"transport": "stdio", "command": "sbw", "args": ["mcp"], "steps": [...]}'
//   node client.mjs '{"transport": "http", "url": "http://127.0.0.1:N/mcp", "token": "…", "steps": [...]}'
//
// Steps, run in order: {"list": true} prints {"tools": [names]}; {"schemas": true} prints
// {"inputSchemas": {name: inputSchema}} of tools/list; {"call": NAME, "arguments": {...}}
// prints the tool's result as the SDK returns it (content, structuredContent, isError);
// {"resources": true} prints resources/list's result; {"read": URI} prints resources/read's;
// a step prints {"error": MESSAGE, "code": CODE} when the SDK throws (protocol error, output not
// matching the schema).
// A call with "cancelWhen": PATH is cancelled (its AbortSignal fires, so the SDK sends
// notifications/cancelled with the reason "the test cancelled it") once the file PATH exists;
// it prints {"cancelled": MESSAGE, "late": N} after "settle" ms more (default 2000), N being the
// messages the server sent for that request meanwhile (there should be none).
// A call with "progress": true asks for progress (the SDK sends a progressToken) and prints
// {"progress": {"progress": N, "message": …}} for each notifications/progress as it comes, before
// the result.
// A call with "hang": true prints {"sent": true} and waits for ever (the test kills the client).
// The first line is {"server": serverInfo, "instructions": …}. One JSON line per step on stdout;
// exit status 1 when the client cannot connect.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { existsSync } from "node:fs";

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

// Every message on the wire, to find the id of a call and what the server sent for it.
const sent = [];
const received = [];
const send = transport.send.bind(transport);
transport.send = (message, options) => {
  sent.push(message);
  return send(message, options);
};
const onmessage = transport.onmessage;
transport.onmessage = (message, extra) => {
  received.push(message);
  onmessage?.(message, extra);
};
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const callArguments = (step) => ({ name: step.call, arguments: step.arguments ?? {} });

async function cancelledCall(step) {
  const controller = new AbortController();
  const call = client.callTool(callArguments(step), undefined, { timeout: 900000, signal: controller.signal });
  const id = sent.findLast((message) => message.method === "tools/call").id;
  const outcome = call.then(
    (result) => ({ result }),
    (error) => ({ cancelled: error.message }),
  );
  while (!existsSync(step.cancelWhen)) {
    const early = await Promise.race([outcome, sleep(50)]);
    if (early) return { ...early, late: 0 };
  }
  controller.abort("the test cancelled it");
  const ended = await outcome;
  await sleep(step.settle ?? 2000);
  return { ...ended, late: received.filter((message) => message.id === id).length };
}
for (const step of config.steps ?? []) {
  try {
    if (step.list) {
      const { tools } = await client.listTools();
      print({ tools: tools.map((tool) => tool.name) });
    } else if (step.schemas) {
      const { tools } = await client.listTools();
      print({ inputSchemas: Object.fromEntries(tools.map((tool) => [tool.name, tool.inputSchema])) });
    } else if (step.resources) {
      print(await client.listResources());
    } else if (step.read) {
      print(await client.readResource({ uri: step.read }));
    } else if (step.cancelWhen) {
      print(await cancelledCall(step));
    } else if (step.hang) {
      client.callTool(callArguments(step), undefined, { timeout: 900000 }).catch(() => {});
      print({ sent: true });
      setInterval(() => {}, 1000);
      await new Promise(() => {});
    } else {
      // Long calls (boots under software emulation) outlast the SDK's default of 60 s.
      const options = { timeout: 900000 };
      if (step.progress) options.onprogress = ({ progress, message }) => print({ progress: { progress, message } });
      print(await client.callTool(callArguments(step), undefined, options));
    }
  } catch (error) {
    print({ error: error.message, code: error.code ?? null });
  }
}
await client.close();
