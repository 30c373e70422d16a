// Independent checks that the warehouse simulators speak their services' protocols, and that the
// product's requests are the services' own:
//   BigQuery: google-auth-library (Google's own OAuth client) gets an access token from
//     `dw-sim bigquery`'s token endpoint with a generated service-account key, and one signed with
//     another key is refused; then `dw check` runs the product's checks against the simulator, and
//     every statement the product sent is run again through @google-cloud/bigquery (Google's own
//     client), which must accept the answers and read the same cells the product was sent.
//   Snowflake: Node's crypto signs a key-pair JWT as Snowflake's documentation describes (an
//     implementation independent of the product's), which the simulator must accept; `dw check`
//     runs against `dw-sim snowflake`; every request the product sent and every answer the
//     simulator gave is checked against the shapes of the SQL API's published OpenAPI description
//     (snowflakedb/snowflake-rest-api-specs, specifications/sqlapi.yaml: SubmitStatementRequest,
//     ResultSet, QueryStatus, QueryFailureStatus, CancelStatus), written out below as checks.
// Usage: node tests/node/warehouse_clients.mjs BUILD_DIR
import { spawn, spawnSync } from 'node:child_process';
import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, sign } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// The pinned clients, from the tools cache scripts/node-tools.sh fills.
const cache = process.env.DW_TOOLS_CACHE || join(process.env.HOME, '.cache', 'dw-tools');
const require = createRequire(join(cache, 'package.json'));
const { JWT } = require('google-auth-library');
const { BigQuery } = require('@google-cloud/bigquery');

const build = process.argv[2];
if (!build) {
  console.error('usage: node tests/node/warehouse_clients.mjs BUILD_DIR');
  process.exit(2);
}
const dir = mkdtempSync(join(tmpdir(), 'dw-warehouse-clients-'));
let failures = 0;
let passed = 0;
const check = (ok, what, detail = '') => {
  if (ok) passed++;
  else {
    failures++;
    console.log(`FAIL ${what}${detail ? ': ' + detail : ''}`);
  }
};

function rsaKey() {
  return generateKeyPairSync('rsa', {
    modulusLength: 2048,
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  });
}

async function startSim(platform, script) {
  const file = join(dir, `${platform}.json`);
  writeFileSync(file, JSON.stringify(script));
  const child = spawn(join(build, 'dw-sim'), [platform, '--listen', '127.0.0.1:0', '--script', file]);
  const url = await new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      const m = out.match(/http:\/\/127\.0\.0\.1:\d+/);
      if (m) resolve(m[0]);
    });
    child.on('exit', (code) => reject(new Error(`dw-sim ${platform} exited ${code}`)));
  });
  return { child, url };
}

const state = async (url) => (await fetch(url + '/_sim/state')).json();

function runCheck(workspace) {
  const r = spawnSync(join(build, 'dw'), ['--workspace', workspace, 'check', '--format', 'json'], { encoding: 'utf8' });
  let report = null;
  try {
    report = JSON.parse(r.stdout);
  } catch {}
  return { code: r.status, report, stderr: r.stderr };
}

// ---- the tables both warehouses hold: eight orders, two without a customer, one negative amount ----
const orders = [
  [1, 'ann', 10.5, 'paid', '2026-12-07T00:30:00.000001Z'], [2, null, 20, 'open', '2026-12-07T00:40:00Z'],
  [3, 'cy', -3.25, 'paid', '2026-12-07T00:50:00Z'], [4, 'di', 7, 'lost', '2026-12-07T01:00:00Z'],
  [4, 'di', 7, 'paid', '2026-12-07T01:10:00Z'], [6, null, 1, 'open', '2026-12-07T01:20:00Z'],
  [7, 'gus', 2, 'paid', '2026-12-07T01:30:00Z'], [8, 'hal', 3, 'open', '2026-12-07T01:50:00Z'],
];

// ---------------------------------------------------------------- BigQuery
async function bigquery() {
  const { privateKey } = rsaKey();
  const email = 'dw-checks@dw-test.iam.gserviceaccount.com';
  const keyFile = join(dir, 'sa.json');
  writeFileSync(keyFile, JSON.stringify({ type: 'service_account', project_id: 'dw-test', private_key_id: 'k1',
    private_key: privateKey, client_email: email, token_uri: 'https://oauth2.googleapis.com/token' }));
  const { child, url } = await startSim('bigquery', { project: 'dw-test', location: 'US', credentials: keyFile,
    tables: [{ dataset: 'shop', table: 'orders', rows: orders, columns: [
      { name: 'id', type: 'INT64', mode: 'REQUIRED' }, { name: 'customer', type: 'STRING' }, { name: 'amount', type: 'FLOAT64' },
      { name: 'status', type: 'STRING' }, { name: 'placed_at', type: 'TIMESTAMP' }] }] });
  try {
    // Google's client sends its grant to Google's token URL: pointed at the simulator's, untouched otherwise.
    const client = (key) => {
      const c = new JWT({ email, key, scopes: ['https://www.googleapis.com/auth/bigquery'] });
      c.transporter.interceptors.request.add({ resolved: async (cfg) => {
        if (String(cfg.url).startsWith('https://oauth2.googleapis.com/token')) cfg.url = new URL(url + '/token');
        return cfg;
      } });
      return c;
    };
    const auth = client(privateKey);
    const token = await auth.getAccessToken();
    check(typeof token.token === 'string' && token.token.length > 0, 'google-auth-library gets a token from dw-sim bigquery');
    let refused = '';
    try {
      await client(rsaKey().privateKey).getAccessToken();
    } catch (e) {
      refused = String(e.message);
    }
    check(/invalid_grant/.test(refused), 'a grant signed with another key is refused', refused);

    // The product's own checks, then each of its statements again through Google's client.
    const ws = join(dir, 'bq');
    mkdirSync(ws, { recursive: true });
    writeFileSync(join(ws, 'dataworkers.yaml'), `version: 1
name: bq-clients
warehouses:
  bq: {type: bigquery, project: dw-test, location: US, credentials: "${keyFile}", api_url: "${url}", token_url: "${url}/token"}
checks:
  - table: bq.shop.orders
    time_column: placed_at
    not_null: [customer, id]
    unique: [id]
    accepted_values: {status: [open, paid]}
    range: {amount: {min: 0}}
`);
    const run = runCheck(ws);
    check(run.code === 1 && run.report, 'dw check runs on dw-sim bigquery and finds the failing checks', run.stderr);
    const log = (await state(url)).jobs_log;
    check(Array.isArray(log) && log.length >= 2, 'the product sent its statements', JSON.stringify(log).slice(0, 200));
    const bq = new BigQuery({ projectId: 'dw-test', apiEndpoint: url, authClient: auth });
    for (const job of log) {
      const params = {};
      const types = {};
      for (const p of job.queryParameters) {
        const v = p.parameterValue.value;
        params[p.name] = v === undefined ? null : p.parameterType.type === 'INT64' ? Number(v) : p.parameterType.type === 'FLOAT64' ? Number(v) : v;
        types[p.name] = p.parameterType.type;
      }
      let rows;
      try {
        [rows] = await bq.query({ query: job.query, params, types, location: 'US', wrapIntegers: true });
      } catch (e) {
        check(false, 'Google\'s client runs the product\'s statement', `${job.query}: ${e.message}`);
        continue;
      }
      const fields = job.schema.fields.map((f) => f.name);
      const same = rows.length === job.rows.length && rows.every((row, i) => fields.every((name, c) => {
        const sent = job.rows[i].f[c].v;
        const got = row[name];
        if (sent === null) return got === null;
        const field = job.schema.fields[c];
        if (field.type === 'TIMESTAMP') return Math.round(Number(sent) * 1e6) === Math.round(Date.parse(got.value) * 1e3) || got.value.startsWith(new Date(Number(sent) * 1000).toISOString().slice(0, 19));
        if (typeof got === 'object' && got !== null && 'value' in got) return String(got.value) === String(sent);
        return String(got) === String(sent) || Number(got) === Number(sent);
      }));
      check(same, 'Google\'s client reads the cells the product was sent', `${job.query}\n  sent ${JSON.stringify(job.rows)}\n  read ${JSON.stringify(rows)}`);
    }
  } finally {
    child.kill();
  }
}

// ---------------------------------------------------------------- Snowflake
// The SQL API's shapes, from specifications/sqlapi.yaml (required fields and their types).
const isString = (v) => typeof v === 'string';
const isInt = (v) => Number.isInteger(v);
const BINDING_TYPES = ['FIXED', 'REAL', 'TEXT', 'BINARY', 'BOOLEAN', 'DATE', 'TIME', 'TIMESTAMP_TZ', 'TIMESTAMP_LTZ', 'TIMESTAMP_NTZ'];
function requestProblems(body) {
  const p = [];
  if (!isString(body.statement)) p.push('statement is not a string');
  if (body.timeout !== undefined && !(isInt(body.timeout) && body.timeout >= 0)) p.push('timeout is not an integer >= 0');
  for (const k of ['database', 'schema', 'warehouse', 'role']) if (body[k] !== undefined && !isString(body[k])) p.push(`${k} is not a string`);
  if (body.bindings !== undefined) {
    for (const [k, b] of Object.entries(body.bindings)) {
      if (!/^[1-9][0-9]*$/.test(k)) p.push(`binding key ${k} is not a position`);
      if (!BINDING_TYPES.includes(b.type)) p.push(`binding ${k} has type ${b.type}`);
      if (!(isString(b.value) || b.value === null)) p.push(`binding ${k}'s value is not a string`);
    }
  }
  if (body.parameters !== undefined) for (const [k, v] of Object.entries(body.parameters)) if (!isString(v)) p.push(`parameter ${k} is not a string`);
  for (const k of Object.keys(body)) if (!['statement', 'timeout', 'database', 'schema', 'warehouse', 'role', 'bindings', 'parameters'].includes(k)) p.push(`unknown field ${k}`);
  return p;
}
function resultSetProblems(r) {
  const p = [];
  for (const k of ['code', 'sqlState', 'message', 'statementHandle', 'statementStatusUrl']) if (!isString(r[k])) p.push(`${k} is not a string`);
  if (!isInt(r.createdOn)) p.push('createdOn is not an integer');
  const m = r.resultSetMetaData;
  if (!m || !isInt(m.numRows) || m.format !== 'jsonv2' || !Array.isArray(m.rowType) || !Array.isArray(m.partitionInfo)) p.push('resultSetMetaData');
  else {
    for (const t of m.rowType) if (!isString(t.name) || !isString(t.type)) p.push('a rowType entry without name and type');
    for (const i of m.partitionInfo) if (!isInt(i.rowCount) || !isInt(i.uncompressedSize)) p.push('a partitionInfo entry');
    if (!Array.isArray(r.data) || r.data.some((row) => !Array.isArray(row) || row.length !== m.rowType.length || row.some((c) => !(c === null || isString(c)))))
      p.push('data is not rows of strings and nulls, one per rowType column');
  }
  return p;
}
const statusProblems = (r) => ['code', 'message', 'statementHandle'].filter((k) => !isString(r[k])).map((k) => `${k} is not a string`);
const failureProblems = (r) => ['code', 'sqlState', 'message', 'statementHandle'].filter((k) => !isString(r[k])).map((k) => `${k} is not a string`);

// A key-pair JWT as Snowflake's documentation describes it, made here with Node's crypto.
function keyPairJwt(account, user, privatePem, lifetime = 3600, issuedAgo = 0) {
  const spki = createPublicKey(createPrivateKey(privatePem)).export({ type: 'spki', format: 'der' });
  const fp = 'SHA256:' + createHash('sha256').update(spki).digest('base64');
  const b64 = (o) => Buffer.from(JSON.stringify(o)).toString('base64url');
  const iat = Math.floor(Date.now() / 1000) + issuedAgo;
  const input = `${b64({ alg: 'RS256', typ: 'JWT' })}.${b64({ iss: `${account}.${user}.${fp}`, sub: `${account}.${user}`, iat, exp: iat + lifetime })}`;
  return `${input}.${sign('sha256', Buffer.from(input), privatePem).toString('base64url')}`;
}

async function snowflake() {
  const { privateKey, publicKey } = rsaKey();
  const { child, url } = await startSim('snowflake', { account: 'xy12345', database: 'ANALYTICS', partition_rows: 3, async_polls: 1,
    users: [{ name: 'DW_CHECKS', public_key_pem: publicKey }],
    tables: [{ schema: 'SHOP', table: 'ORDERS', rows: orders, columns: [
      { name: 'ID', type: 'NUMBER(38,0)', nullable: false }, { name: 'CUSTOMER', type: 'VARCHAR' }, { name: 'AMOUNT', type: 'NUMBER(10,2)' },
      { name: 'STATUS', type: 'VARCHAR' }, { name: 'PLACED_AT', type: 'TIMESTAMP_NTZ' }] }] });
  try {
    const headers = (jwt) => ({ Authorization: `Bearer ${jwt}`, 'X-Snowflake-Authorization-Token-Type': 'KEYPAIR_JWT',
      'Content-Type': 'application/json', Accept: 'application/json', 'User-Agent': 'dw-tests/1.0' });
    const jwt = keyPairJwt('XY12345', 'DW_CHECKS', privateKey);
    // An independent client: submit, poll the 202, read the partitions.
    let r = await fetch(url + '/api/v2/statements?requestId=0b1f9d2e-3c4a-4b5d-8e6f-7a8b9c0d1e2f', { method: 'POST', headers: headers(jwt),
      body: JSON.stringify({ statement: 'SELECT id, placed_at FROM analytics.shop.orders WHERE id >= ? ORDER BY id', timeout: 10,
        database: 'ANALYTICS', schema: 'PUBLIC', bindings: { 1: { type: 'FIXED', value: '2' } } }) });
    check(r.status === 202, 'a statement still running is answered 202', String(r.status));
    const status = await r.json();
    check(statusProblems(status).length === 0 && status.code === '333334', 'the 202 is a QueryStatus', JSON.stringify(status));
    r = await fetch(url + status.statementStatusUrl, { headers: headers(jwt) });
    const result = await r.json();
    check(r.status === 200 && resultSetProblems(result).length === 0, 'the result is a ResultSet', resultSetProblems(result).join('; '));
    let rows = result.data.length;
    for (let i = 1; i < result.resultSetMetaData.partitionInfo.length; i++) {
      const part = await (await fetch(`${url}/api/v2/statements/${result.statementHandle}?partition=${i}`, { headers: headers(jwt) })).json();
      rows += part.data.length;
    }
    check(rows === result.resultSetMetaData.numRows && rows === 7, 'the partitions hold numRows rows', `${rows} of ${result.resultSetMetaData.numRows}`);
    check(result.data[0][1] === '1764981000.000000000' || /^\d+\.\d{9}$/.test(result.data[0][1]), 'TIMESTAMP_NTZ cells are seconds with 9 decimals', result.data[0][1]);
    // Refusals in the spec's shapes.
    r = await fetch(url + '/api/v2/statements', { method: 'POST', headers: headers(jwt), body: JSON.stringify({ statement: 'SELECT * FROM analytics.shop.gone' }) });
    const failure = await r.json();
    check(r.status === 422 && failureProblems(failure).length === 0 && failure.code === '002003', 'an unknown table is a 422 QueryFailureStatus 002003', JSON.stringify(failure));
    const other = keyPairJwt('XY12345', 'DW_CHECKS', rsaKey().privateKey);
    r = await fetch(url + '/api/v2/statements', { method: 'POST', headers: headers(other), body: JSON.stringify({ statement: 'SELECT 1' }) });
    check(r.status === 401 && (await r.json()).code === '390144', 'a JWT signed with an unregistered key is refused 401 390144');
    // Snowflake honours a token for an hour after its iat, whatever its exp says.
    r = await fetch(url + '/api/v2/statements', { method: 'POST', headers: headers(keyPairJwt('XY12345', 'DW_CHECKS', privateKey, 7200, -3700)), body: JSON.stringify({ statement: 'SELECT 1' }) });
    check(r.status === 401, 'a JWT issued more than an hour ago is refused, whatever its exp', String(r.status));

    // The product against the same simulator: every request it sent and every answer, checked.
    const keyFile = join(dir, 'rsa_key.p8');
    writeFileSync(keyFile, privateKey);
    const ws = join(dir, 'sf');
    mkdirSync(ws, { recursive: true });
    writeFileSync(join(ws, 'dataworkers.yaml'), `version: 1
name: sf-clients
warehouses:
  sf: {type: snowflake, account: xy12345.us-east-2.aws, user: dw_checks, private_key: "${keyFile}", database: ANALYTICS, warehouse: CHECKS_XS, api_url: "${url}"}
checks:
  - table: sf.shop.orders
    time_column: placed_at
    not_null: [customer, id]
    unique: [id]
    accepted_values: {status: [open, paid]}
    range: {amount: {min: 0}}
`);
    const before = (await state(url)).exchanges.length;
    const run = runCheck(ws);
    check(run.code === 1 && run.report, 'dw check runs on dw-sim snowflake and finds the failing checks', run.stderr);
    const nulls = run.report && run.report.tables[0].checks.find((c) => c.name === 'not_null:customer');
    check(nulls && nulls.observed.null_count === 2, 'the product counts the two missing customers', JSON.stringify(nulls));
    const exchanges = (await state(url)).exchanges.slice(before);
    let product = 0;
    for (const x of exchanges) {
      if (x.method === 'POST' && x.path === '/api/v2/statements') {
        check(x.token_type === 'KEYPAIR_JWT', 'the product names its token type KEYPAIR_JWT', x.token_type);
        const problems = requestProblems(x.request);
        check(problems.length === 0, 'the product\'s SubmitStatementRequest fits the spec', problems.join('; '));
        check(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(x.query.requestId || ''), 'it carries a UUID requestId', x.query.requestId);
        product++;
      }
      const body = x.response;
      if (x.status === 200 && body && body.resultSetMetaData) check(resultSetProblems(body).length === 0, 'a ResultSet fits the spec', resultSetProblems(body).join('; '));
      else if (x.status === 200 && body && body.data) check(Array.isArray(body.data), 'a partition holds data');
      else if (x.status === 202) check(statusProblems(body).length === 0, 'a QueryStatus fits the spec', JSON.stringify(body));
      else if (x.status === 422) check(failureProblems(body).length === 0, 'a QueryFailureStatus fits the spec', JSON.stringify(body));
    }
    check(product >= 3, 'the product\'s statements were seen', String(product));
  } finally {
    child.kill();
  }
}

try {
  await bigquery();
  await snowflake();
} catch (e) {
  failures++;
  console.log('FAIL', e.stack);
}
rmSync(dir, { recursive: true, force: true });
console.log(`warehouse-clients: ${passed} passed, ${failures} failed`);
process.exit(failures ? 1 : 0);
