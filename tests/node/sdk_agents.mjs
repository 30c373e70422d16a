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

// Calls `name` and checks a successful result against the tool's output schema.
async function callValid(client, tools, name, args, options) {
  const tool = tools.find((t) => t.name === name);
  check(tool, `${name} not listed`);
  const result = await client.callTool({ name, arguments: args }, undefined, options);
  check(!result.isError, `${name} failed: ${JSON.stringify(result.content)}`);
  const ajv = new Ajv({ strict: false });
  check(ajv.validate(tool.outputSchema, result.structuredContent),
    `${name}: structuredContent does not match outputSchema: ${ajv.errorsText()}`);
  return result.structuredContent;
}

// Each agent's own tools, called the way an assistant would.
const agentTools = {
  'dw-quality': async (client, tools) => {
    const progress = [];
    const from = client.seen.length;
    const report = await callValid(client, tools, 'run_quality_check', { table: 'main.member_balances' },
      { onprogress: (p) => progress.push(p) });
    // What the server sent, read on the wire: the SDK hands a progress notification to onprogress
    // asynchronously, after it has already settled a response that arrived in the same read, so
    // onprogress alone would measure the client's timing, not the server's order.
    const wire = client.seen.slice(from);
    const sentProgress = wire.filter((m) => m.method === 'notifications/progress');
    const answer = wire.findIndex((m) => m.id !== undefined && m.result !== undefined);
    const lastProgress = wire.lastIndexOf(sentProgress[sentProgress.length - 1]);
    check(report.summary.checks === 9, `expected 9 checks, got ${JSON.stringify(report.summary)}`);
    const byName = Object.fromEntries(report.tables[0].checks.map((c) => [c.name, c]));
    check(byName['unique:member_id'].status === 'pass', 'unique:member_id did not pass');
    check(byName['not_null:balance'].observed.rows === 500, 'not_null did not scan 500 rows');
    // The example's rows are from 2026-11-24: by the real clock they are stale.
    check(byName['freshness'].status === 'fail', `freshness: ${JSON.stringify(byName['freshness'])}`);
    check(sentProgress.length >= 1 && sentProgress[sentProgress.length - 1].params.progress === 1 &&
          lastProgress >= 0 && lastProgress < answer,
          `progress before the result: ${JSON.stringify(sentProgress)} (result at ${answer}); onprogress saw ${JSON.stringify(progress)}`);
    const inline = await callValid(client, tools, 'run_quality_check',
      { table: 'table://main/member_balances', check: { range: { balance: { max: 5000 } } } });
    check(inline.tables[0].checks[0].status === 'fail' && inline.tables[0].checks[0].sample.length === 10,
      `inline range: ${JSON.stringify(inline.tables[0].checks[0])}`);
    const unknown = await client.callTool({ name: 'run_quality_check', arguments: { table: 'main.member_balance' } });
    check(unknown.isError === true && /closest: table:\/\/main\/member_balances/.test(unknown.content[0].text),
      `unknown table: ${JSON.stringify(unknown)}`);
    const sql = await client.callTool({ name: 'run_quality_check',
      arguments: { table: 'main.member_balances', check: { custom: [{ name: 'x', sql: 'DROP TABLE member_balances' }] } } });
    check(sql.isError === true, `inline SQL was accepted: ${JSON.stringify(sql)}`);
    return 'run_quality_check ran 9 checks, an inline check, and refused an unknown table and inline SQL';
  },
  'dw-connectors': async (client, tools) => {
    const t = tools.find((x) => x.name === 'register_stream_schema');
    check(t && t.annotations.readOnlyHint === false && t.annotations.destructiveHint === true,
      'register_stream_schema missing, or not marked destructive and not read-only');
    // Without a proposal it would only draft one; an invalid schema is refused before anything.
    const bad = await client.callTool({ name: 'register_stream_schema',
      arguments: { subject: 'member-balances-value', schema: '{"type":"record","name":"r","fields":[{"name":"a","type":"nope"}]}' } });
    check(bad.isError === true, `an invalid schema was not refused: ${JSON.stringify(bad.content)}`);
    return 'register_stream_schema is destructive and refused an invalid schema';
  },
  'dw-schema': async (client, tools) => {
    for (const name of ['check_compatibility', 'assess_impact']) {
      const t = tools.find((x) => x.name === name);
      check(t && t.annotations.readOnlyHint === true && t.annotations.destructiveHint === false, `${name} missing or not read-only`);
    }
    const record = (fields) => JSON.stringify({ type: 'record', name: 'Order', fields });
    const v1 = record([{ name: 'id', type: 'long' }, { name: 'customer_email', type: 'string' }]);
    const v2 = record([{ name: 'id', type: 'long' }, { name: 'email', type: 'string' }]);
    const full = await callValid(client, tools, 'check_compatibility', { schema: v2, previous: [v1], level: 'FULL' });
    check(full.compatible === false && full.incompatibilities.length === 2, `FULL verdict ${JSON.stringify(full)}`);
    check(full.incompatibilities.every((i) => i.type === 'READER_FIELD_MISSING_DEFAULT_VALUE'), 'not READER_FIELD_MISSING_DEFAULT_VALUE');
    check(full.incompatibilities.some((i) => i.direction === 'forward' && /customer_email was removed/.test(i.message)), 'no removal sentence');
    const none = await callValid(client, tools, 'check_compatibility', { schema: v2, previous: [v1], level: 'NONE' });
    check(none.compatible === true, 'NONE was not compatible');
    const invalid = await client.callTool({ name: 'check_compatibility', arguments: { schema: record([{ name: 'a', type: 'integer' }]), previous: [v1] } });
    check(invalid.isError === true && /42201/.test(invalid.content[0].text) && /\/fields\/0\/type/.test(invalid.content[0].text),
      `invalid schema: ${JSON.stringify(invalid.content)}`);
    const level = await client.callTool({ name: 'check_compatibility', arguments: { schema: v2, previous: [v1], level: 'SIDEWAYS' } });
    check(level.isError === true, 'an unknown level was accepted');
    // The example's registry is a simulator that is not running here: an isError naming it.
    const impact = await client.callTool({ name: 'assess_impact', arguments: { subject: 'member-balances-value', schema: v2 } });
    check(impact.isError === true || impact.structuredContent, `assess_impact: ${JSON.stringify(impact)}`);
    return 'check_compatibility judged the rename at FULL and NONE and refused a bad schema and level; assess_impact answered';
  },
};

for (const agent of agents) {
  const client = new Client({ name: 'dw-sdk-test', version: '1.0.0' });
  const transport = new StdioClientTransport({
    command: startAgent, args: [agent], cwd: tmpdir(),
    env: { ...process.env, DW_WORKSPACE: ws }, stderr: 'pipe',
  });
  try {
    await client.connect(transport);
    // Every message the server sends, in wire order (checked where the order matters).
    client.seen = [];
    const deliver = transport.onmessage;
    transport.onmessage = (m, extra) => { client.seen.push(m); deliver(m, extra); };
    const info = client.getServerVersion();
    check(info && info.name === agent, `serverInfo.name is ${info && info.name}, expected ${agent}`);
    const { tools } = await client.listTools();
    // ARCHITECTURE.md: every tool of every agent declares an output schema and read-only hints.
    for (const t of tools) {
      check(t.outputSchema && t.outputSchema.type === 'object', `${agent}: ${t.name} has no outputSchema`);
      check(t.annotations && typeof t.annotations.readOnlyHint === 'boolean',
        `${agent}: ${t.name} does not say whether it is read-only`);
    }
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
    if (agent === 'dw-connectors') {
      // The change timeline reads the state store: an empty workspace has no events, not an error.
      const timeline = tools.find((t) => t.name === 'get_change_timeline');
      check(timeline && timeline.annotations.readOnlyHint === true, 'get_change_timeline missing or not read-only');
      const tl = await client.callTool({ name: 'get_change_timeline', arguments: { limit: 10 } });
      check(!tl.isError, `get_change_timeline failed: ${JSON.stringify(tl.content)}`);
      check(ajv.validate(timeline.outputSchema, tl.structuredContent), `timeline schema: ${ajv.errorsText()}`);
      const badKind = await client.callTool({ name: 'get_change_timeline', arguments: { kinds: ['explosion'] } });
      check(badKind.isError === true, `unknown kind not refused: ${JSON.stringify(badKind)}`);
      // No Kafka Connect simulator runs here: the status is an actionable error, never "healthy".
      const status = tools.find((t) => t.name === 'get_connector_status');
      check(status && status.annotations.readOnlyHint === true, 'get_connector_status missing or not read-only');
      const st = await client.callTool({ name: 'get_connector_status', arguments: {} });
      check(st.isError === true && /Kafka Connect/.test(st.content[0].text), `unreachable connect not reported: ${JSON.stringify(st)}`);
    }
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
      // Marking the drop expected would silence the monitor: from an agent it is only a proposal a
      // person approves (nothing is marked), and the judged point cannot be rewritten either.
      const at = new Date(t0 + 48 * hour).toISOString();
      const mk = await client.callTool({ name: 'monitor_metrics', arguments: { mark_expected: [{ metric: 'sdk_test_metric', from: at, to: at, note: 'planned' }] } });
      const proposed = mk.structuredContent && mk.structuredContent.proposals;
      check(!mk.isError && Array.isArray(proposed) && proposed.length === 1 && proposed[0].status === 'pending' &&
            !('marked' in mk.structuredContent),
            `mark_expected from an agent was not a pending proposal: ${JSON.stringify(mk.content)}`);
      const rewrite = await client.callTool({ name: 'monitor_metrics', arguments: { record: [{ metric: 'sdk_test_metric', points: [{ ts: at, value: 123456 }] }] } });
      check(!rewrite.isError && rewrite.structuredContent.recorded[0].rejected.length === 1,
            `a judged point was rewritten: ${JSON.stringify(rewrite.structuredContent)}`);
      // get_incident_history: the store's history, matching its output schema (no incident yet).
      const history = tools.find((t) => t.name === 'get_incident_history');
      check(history && history.annotations.readOnlyHint === true, 'get_incident_history missing or not read-only');
      const h = await client.callTool({ name: 'get_incident_history', arguments: { status: 'open', limit: 10 } });
      check(!h.isError, `get_incident_history failed: ${JSON.stringify(h.content)}`);
      check(ajv.validate(history.outputSchema, h.structuredContent), `history schema: ${ajv.errorsText()}`);
      check(Array.isArray(h.structuredContent.incidents) && h.structuredContent.total === h.structuredContent.incidents.length,
            `history ${JSON.stringify(h.structuredContent)}`);
      const badStatus = await client.callTool({ name: 'get_incident_history', arguments: { status: 'sleeping' } });
      check(badStatus.isError === true, `unknown status not refused: ${JSON.stringify(badStatus)}`);
      // diagnose_incident: an unknown id is an error a person can act on, never an empty diagnosis.
      const diagnose = tools.find((t) => t.name === 'diagnose_incident');
      check(diagnose && diagnose.outputSchema && diagnose.annotations.destructiveHint === false, 'diagnose_incident missing or unannotated');
      const d = await client.callTool({ name: 'diagnose_incident', arguments: { incident_id: 'inc-20261124-1405-000000' } });
      check(d.isError === true && /no incident inc-20261124-1405-000000/.test(d.content[0].text), `unknown incident not reported: ${JSON.stringify(d)}`);
    }
    const extra = agentTools[agent] ? `; ${await agentTools[agent](client, tools)}` : '';
    console.log(`ok   ${agent}: ${tools.length} tool(s), describe_workspace matches its output schema${extra}`);
    passed++;
  } catch (e) {
    console.log(`FAIL ${agent}: ${e.message}`);
    failed++;
  } finally {
    await client.close().catch(() => {});
  }
}
// The context graph tools of dw-context-catalog, through the same client: the loyalty incident's
// blast radius reaches the 22:00 Braze sync with the count its impact_sql returns.
{
  const client = new Client({ name: 'dw-sdk-test', version: '1.0.0' });
  const transport = new StdioClientTransport({
    command: startAgent, args: ['dw-context-catalog'], cwd: tmpdir(),
    env: { ...process.env, DW_WORKSPACE: ws }, stderr: 'pipe',
  });
  try {
    await client.connect(transport);
    const { tools } = await client.listTools();
    const ajv = new Ajv({ strict: false });
    const call = async (name, args) => {
      const tool = tools.find((t) => t.name === name);
      check(tool, `${name} not listed`);
      check(tool.annotations && tool.annotations.readOnlyHint === true, `${name} not marked read-only`);
      const r = await client.callTool({ name, arguments: args });
      check(!r.isError, `${name} failed: ${JSON.stringify(r.content)}`);
      check(ajv.validate(tool.outputSchema, r.structuredContent), `${name} breaks its outputSchema: ${ajv.errorsText()}`);
      return r.structuredContent;
    };
    const since = '2026-11-24T00:00:00Z';
    const b = await call('blast_radius_analysis', { assets: ['table://main/member_balances'], since });
    check(b.by_kind.dbt && b.by_kind.dbt.assets.some((a) => a.id === 'dbt://loyalty/fct_member_tier'), 'fct_member_tier not reached');
    // Consumers come in the order they next act (the 21:00 dbt model before the 22:00 sync); the
    // Braze sync is the first customer-facing one.
    const sync = b.consumers.find((c) => c.customer_facing);
    check(sync && sync.id === 'sync://hightouch/tier-changes-to-braze', `first customer-facing consumer ${JSON.stringify(sync)}`);
    check(b.consumers.every((c, i) => i === 0 || b.consumers[i - 1].time_left_seconds <= c.time_left_seconds),
          `consumers not in the order they act: ${JSON.stringify(b.consumers.map((c) => c.id))}`);
    check(/T22:00:00\.000Z$/.test(sync.next_run), `next run ${sync.next_run}`);
    check(sync.customer_facing === true, 'the Braze sync is not flagged customer-facing');
    const expected = Number(execFileSync('sqlite3', [join(ws, 'warehouse.db'),
      "SELECT count(*) FROM member_balances WHERE updated_at >= '2026-11-24T00:00:00.000Z'"]).toString().trim());
    check(b.impact[0] && b.impact[0].count === expected, `impact ${JSON.stringify(b.impact)} expected ${expected}`);
    const l = await call('trace_cross_platform_lineage', { asset: 'sync://hightouch/tier-changes-to-braze', direction: 'upstream', depth: 10 });
    check(l.nodes.some((n) => n.id === 'flink://flink/points-balance'), 'lineage does not reach the Flink job');
    const s = await call('search_assets', { query: 'balances' });
    check(s.total >= 2, `search found ${s.total}`);
    const g = await call('get_asset', { id: 'table://main/member_balance' });
    check(g.found === false && g.closest[0] === 'table://main/member_balances', `get_asset closest ${JSON.stringify(g)}`);
    console.log('ok   dw-context-catalog graph tools: blast radius, lineage, search, get_asset');
    passed++;
  } catch (e) {
    console.log(`FAIL dw-context-catalog graph tools: ${e.message}`);
    failed++;
  } finally {
    await client.close().catch(() => {});
  }
}

rmSync(ws, { recursive: true, force: true });
console.log(`sdk: ${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
