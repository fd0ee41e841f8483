// Drives `previously mcp` with the MCP TypeScript SDK's client — the client MCP Inspector is
// built on. The SDK checks every answer against the protocol's schemas, and each tool result
// against the tool's own output schema, so a tool whose schema or answer another client would
// reject fails here. Prints one JSON summary on stdout (read by test_mcp_js_client.py).
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [command, ...args] = process.argv.slice(2);
const client = new Client({ name: "inspector-like-check", version: "1.0.0" });
await client.connect(new StdioClientTransport({ command, args, stderr: "inherit" }));

const out = { tools: {}, calls: {}, resources: [], templates: [], prompts: [] };
for (const tool of (await client.listTools()).tools) {
  out.tools[tool.name] = {
    input: tool.inputSchema.type,
    output: tool.outputSchema ? tool.outputSchema.type : null,
    readOnly: tool.annotations?.readOnlyHint ?? null,
    described: (tool.description || "").length > 40,
  };
}

async function call(name, args) {
  try {
    const r = await client.callTool({ name, arguments: args });
    const text = r.content.map((c) => c.text || "").join("\n");
    out.calls[name] = { isError: !!r.isError, text: text.slice(0, 400), structured: !!r.structuredContent };
    return r;
  } catch (err) {
    out.calls[name] = { thrown: String(err) };
    return null;
  }
}

const found = await call("search", { q: "trip", k: 3, from: "2020-01-01" });
const first = found?.structuredContent?.hits?.[0]?.slice_id;
await call("recall", { query: "the trip", k: 3 });
await call("read_slice", { slice_id: first, range: { type: "chars", offset: 0, length: 2000 } });
await call("read_slice_summary", { slice_id: first });
await call("timeline_window", { from: "2020-01-01", limit: 5 });
await call("briefing", {});
await call("read_card", {});
await call("context", { query: "the trip", k: 3, budget_tokens: 1000 });
await call("remember", { text: "A note from the check." });

let cursor;
do {
  const page = await client.listResources(cursor ? { cursor } : {});
  out.resources.push(...page.resources.map((r) => r.uri));
  cursor = page.nextCursor;
} while (cursor);
out.templates = (await client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate);
out.prompts = (await client.listPrompts()).prompts.map((p) => p.name);
const prompt = await client.getPrompt({ name: "previously_on" });
out.prompt = prompt.messages[0].content.text.slice(0, 200);
const month = out.resources.find((u) => u.startsWith("previously://timeline/"));
const slice = out.resources.find((u) => u.startsWith("previously://slice/"));
out.read = {};
for (const uri of ["previously://card", "previously://timeline", month, slice]) {
  const r = await client.readResource({ uri });
  out.read[uri] = r.contents[0].text.length;
}
await client.close();
process.stdout.write(JSON.stringify(out));
