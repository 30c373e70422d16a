// The official MCP TypeScript SDK client against each Data Workers agent over stdio.
// For each of the five agents: spawn start-agent.sh, initialize, tools/list, call
// describe_workspace, and check the structured result against the tool's output schema (with Ajv,
// independently of the SDK's own check) and against the workspace it describes.
// usage: node tests/node/sdk_agents.mjs START_AGENT_SH EXAMPLE_WORKSPACE_DIR
// Prints "sdk: N passed, M failed" last; exits 1 if any agent failed.
import { createRequire } from 'node:module';
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';

const cache = process.env.DW_TOOLS_CACHE || join(process.env.HOME, '.cache', 'dw-tools');
const require = createRequire(join(cache, 'package.json'));
const { Client } = await import(require.resolve('@modelcontextprotocol/sdk/client/index.js'));
const { StdioClientTransport } = await import(require.resolve('@modelcontextprotocol/sdk/client/stdio.js'));
const Ajv = require('ajv');

const [startAgent, exampleDir] = process.argv.slice(2);
if (!startAgent || !exampleDir) {
  console.error('usage: node sdk_agents.mjs START_AGENT_SH EXAMPLE_WORKSPACE_DIR');
  process.exit(2);
}
const agents = ['dw-incidents', 'dw-quality', 'dw-context-catalog', 'dw-connectors', 'dw-schema'];

// A scratch copy of the example, with its SQLite warehouse built, so probes see a real database.
const ws = mkdtempSync(join(tmpdir(), 'dw-sdk-'));
cpSync(exampleDir, ws, { recursive: true });
execFileSync('sqlite3', [join(ws, 'warehouse.db')], { input: readFileSync(join(ws, 'warehouse.sql')) });

let passed = 0, failed = 0;
function check(cond, what) { if (!cond) throw new Error(what); }

for (const agent of agents) {
  const client = new Client({ name: 'dw-sdk-test', version: '1.0.0' });
  const transport = new StdioClientTransport({
    command: startAgent, args: [agent], cwd: tmpdir(),
    env: { ...process.env, DW_WORKSPACE: ws }, stderr: 'pipe',
  });
  try {
    await client.connect(transport);
    const info = client.getServerVersion();
    check(info && info.name === agent, `serverInfo.name is ${info && info.name}, expected ${agent}`);
    const { tools } = await client.listTools();
    const tool = tools.find((t) => t.name === 'describe_workspace');
    check(tool, 'describe_workspace not listed');
    check(tool.annotations && tool.annotations.readOnlyHint === true, 'describe_workspace not marked read-only');
    check(tool.outputSchema, 'describe_workspace has no outputSchema');
    const result = await client.callTool({ name: 'describe_workspace', arguments: { probe: true } });
    check(!result.isError, `describe_workspace failed: ${JSON.stringify(result.content)}`);
    const sc = result.structuredContent;
    const ajv = new Ajv({ strict: false });
    const valid = ajv.validate(tool.outputSchema, sc);
    check(valid, `structuredContent does not match outputSchema: ${ajv.errorsText()}`);
    check(JSON.stringify(JSON.parse(result.content[0].text)) === JSON.stringify(sc),
      'text content is not the same JSON as structuredContent');
    check(sc.workspace.name === 'loyalty', `workspace name ${sc.workspace.name}`);
    const main = sc.warehouses.find((w) => w.name === 'main');
    check(main && main.reachable === true, `warehouse main not reachable: ${JSON.stringify(main)}`);
    check(sc.assets.some((a) => a.id === 'sync://hightouch/tier-changes-to-braze'), 'braze sync asset missing');
    check(sc.state.reachable === true, `state store not reachable: ${JSON.stringify(sc.state)}`);
    // Bad input is an isError result naming the field, not a protocol failure.
    const bad = await client.callTool({ name: 'describe_workspace', arguments: { probe: 'yes' } });
    check(bad.isError === true && /probe/.test(bad.content[0].text), `bad argument not reported: ${JSON.stringify(bad)}`);
    if (agent === 'dw-incidents') {
      // monitor_metrics: record a steady series then a drop; the drop is judged an anomaly.
      // The history is judged within the monitor's training window back from now: use recent hours.
      const hour = 3600 * 1000, t0 = Math.floor(Date.now() / hour) * hour - 60 * hour;
      const points = [];
      for (let i = 0; i < 48; i++) points.push({ ts: t0 + i * hour, value: 1000 + (i % 5) });
      points.push({ ts: new Date(t0 + 48 * hour).toISOString(), value: 90 });
      points.push({ ts: t0 + 49 * hour, value: null });
      const mm = await client.callTool({ name: 'monitor_metrics', arguments: { record: [{ metric: 'sdk_test_metric', points }] } });
      check(!mm.isError, `monitor_metrics failed: ${JSON.stringify(mm.content)}`);
      const m = mm.structuredContent.metrics[0];
      check(m && m.verdict === 'anomaly' && /9% of its expected/.test(m.sentence), `drop not judged: ${JSON.stringify(mm.structuredContent)}`);
      check(mm.structuredContent.recorded[0].rejected.length === 1, 'null point not reported');
      const plot = await client.readResource({ uri: 'dw://metrics/sdk_test_metric/plot.svg' });
      const c = plot.contents[0];
      check(c.mimeType === 'image/svg+xml' && /<svg/.test(c.text) && /<circle/.test(c.text), 'plot resource has no SVG with the anomaly');
    }
    console.log(`ok   ${agent}: ${tools.length} tool(s), describe_workspace matches its output schema`);
    passed++;
  } catch (e) {
    console.log(`FAIL ${agent}: ${e.message}`);
    failed++;
  } finally {
    await client.close().catch(() => {});
  }
}
rmSync(ws, { recursive: true, force: true });
console.log(`sdk: ${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
