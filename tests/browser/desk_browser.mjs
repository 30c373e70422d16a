// The desk in a real browser: Debian's Chromium driven by playwright-core (executablePath set, no
// browser download) against `dw serve` on loopback, with axe-core checking every page.
//   1. the loyalty seed incident replayed (`dw replay ... --keep-scratch`), then served at 15:40
//      on the replay's clock: open the incident from the list, the cause ranked first is the
//      restore that skipped state, the 22:00 customer-facing sync is there with its countdown;
//   2. a workspace whose graph holds a table named `<script>`: it renders as text and no script runs;
//   3. every page read with JavaScript disabled still shows its content;
//   4. a foreign Origin and a foreign Host are refused (raw HTTP);
//   5. axe-core: no serious or critical violation on any page;
//   6. screenshots of each page at desktop and phone width into OUT_DIR (docs/desk/ with --docs).
//   7. approval through a signed link: a schema registration proposed for the loyalty domain
//      (`dw schema register`, pending), a link issued to its approver (`dw approval-link`), opened
//      and approved in the browser; the decision is in the store (`dw schema register --proposal`
//      now registers it) and on the page; the used link, an expired link, another person's link,
//      a form without the CSRF token and a foreign Origin are refused.
// usage: node tests/browser/desk_browser.mjs BUILD_DIR [--docs] [--out DIR]
// Prints "browser: N passed, M failed" last; exits 1 if any check failed.
import { createRequire } from 'node:module';
import { mkdtempSync, mkdirSync, writeFileSync, readFileSync, existsSync, readdirSync, statSync, rmSync, cpSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve, dirname } from 'node:path';
import { spawn, execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import http from 'node:http';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '..', '..');
const cache = process.env.DW_TOOLS_CACHE || join(process.env.HOME, '.cache', 'dw-tools');
const require = createRequire(join(cache, 'package.json'));
const { chromium } = require('playwright-core');
const axePath = require.resolve('axe-core/axe.min.js');

const args = process.argv.slice(2);
const build = resolve(args[0] || join(root, 'build'));
const toDocs = args.includes('--docs');
const outIdx = args.indexOf('--out');
const out = outIdx >= 0 ? resolve(args[outIdx + 1]) : toDocs ? join(root, 'docs', 'desk') : mkdtempSync(join(tmpdir(), 'dw-desk-shots-'));
mkdirSync(out, { recursive: true });
const dw = join(build, 'dw');
const browserPath = process.env.DW_CHROMIUM || '/usr/bin/chromium';
// The scratch workspaces below are served and decided at a fixed --now: their stores are created as
// simulated-clock stores, where recording commands honour --now (docs/cli.md, "--now").
process.env.DW_SIMULATED_CLOCK_STORE = '1';

let passed = 0, failed = 0;
function check(name, ok, detail = '') {
  if (ok) { passed++; console.log(`ok   ${name}`); }
  else { failed++; console.log(`FAIL ${name}${detail ? ': ' + detail : ''}`); }
}

// Starts `dw serve` on a free loopback port; resolves with {port, stop}.
function serve(workspace, now, env = process.env) {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(dw, ['--workspace', workspace, '--now', now, 'serve', '--listen', '127.0.0.1:0'],
                        { stdio: ['ignore', 'pipe', 'pipe'], env });
    let buf = '';
    child.stderr.on('data', () => {});
    child.stdout.on('data', (d) => {
      buf += d;
      const m = buf.match(/listening on http:\/\/127\.0\.0\.1:(\d+)\//);
      if (m) resolvePromise({ port: Number(m[1]), stop: () => child.kill('SIGTERM') });
    });
    child.on('exit', (code) => reject(new Error(`dw serve exited ${code}`)));
  });
}

function findWorkspace(dir) {
  if (existsSync(join(dir, 'dataworkers.yaml'))) return dir;
  for (const e of readdirSync(dir)) {
    const p = join(dir, e);
    if (statSync(p).isDirectory()) { const w = findWorkspace(p); if (w) return w; }
  }
  return null;
}

async function axeCheck(context, url, name) {
  // axe is injected as a script, which the desk's policy forbids: this context bypasses CSP for
  // the audit only (the other contexts keep it, and check that no script runs).
  const page = await context.newPage();
  await page.goto(url);
  await page.addScriptTag({ path: axePath });
  const result = await page.evaluate(async () => await window.axe.run(document, { resultTypes: ['violations'] }));
  const bad = result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  check(`axe: no serious or critical violation on ${name}`, bad.length === 0,
        bad.map((v) => `${v.id} (${v.impact}): ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(', ')}`).join('; '));
  await page.close();
}

async function shots(browser, url, name) {
  for (const [label, viewport] of [['desktop', { width: 1280, height: 900 }], ['phone', { width: 390, height: 844 }]]) {
    const ctx = await browser.newContext({ viewport, deviceScaleFactor: 1 });
    const page = await ctx.newPage();
    await page.goto(url);
    await page.screenshot({ path: join(out, `${name}-${label}.png`), fullPage: label === 'phone' ? false : true });
    if (label === 'phone') {
      // Nothing but the scrollable pictures and tables may be wider than the phone.
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      check(`${name} fits the phone's width (overflow ${overflow}px)`, overflow <= 1);
    }
    await ctx.close();
  }
}

const scratch = mkdtempSync(join(tmpdir(), 'dw-desk-browser-'));
const servers = [];
let browser;
let audit2;
try {
  // 1. The loyalty incident, replayed.
  const replayDir = join(scratch, 'loyalty');
  execFileSync(dw, ['replay', join(root, 'examples/scenarios/flink-restore-zeroed-balances'), '--keep-scratch', replayDir],
               { stdio: ['ignore', 'ignore', 'inherit'] });
  const loyalty = findWorkspace(replayDir);
  check('the replay kept its workspace', !!loyalty);
  const s1 = await serve(loyalty, '2026-11-24T15:40:00Z');
  servers.push(s1);
  const base = `http://127.0.0.1:${s1.port}`;
  browser = await chromium.launch({ executablePath: browserPath, args: ['--no-sandbox'] });
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await ctx.newPage();
  const scriptsRan = [];
  page.on('dialog', (d) => { scriptsRan.push(d.message()); d.dismiss(); });
  const violations = [];
  page.on('console', (m) => { if (/Content Security Policy/i.test(m.text())) violations.push(m.text()); });
  await page.goto(base + '/');
  const link = page.locator('table.incidents a[href^="/incidents/"]').first();
  check('the incidents page lists the replayed incident', (await link.count()) === 1);
  check('the list shows SEV1', (await page.locator('table.incidents .sev1').count()) >= 1);
  check('the list counts down to the 22:00 sync (6h 20m at 15:40)',
        (await page.locator('table.incidents').innerText()).includes('6h 20m'));
  const incidentHref = await link.getAttribute('href');
  await link.click();
  await page.waitForURL('**' + incidentHref);
  const causes = page.locator('ol.causes > li');
  const firstCause = (await causes.first().innerText());
  check('the cause ranked first is the restore that skipped state on points-balance',
        /restore_skipped_state|restore/.test(firstCause) && firstCause.includes('flink://flink/points-balance'), firstCause.slice(0, 200));
  check('the evidence quotes the JobManager log line',
        firstCause.includes('Skipping savepoint state for operator 90bea66de1c231edf33913ecd54406c1'));
  const text = await page.locator('main').innerText();
  check('the 22:00 customer-facing sync is named with its countdown',
        text.includes('sync://hightouch/tier-changes-to-braze') && text.includes('2026-11-24 22:00 UTC') && text.includes('6h 20m'));
  check('the blast radius is a picture marking the customer-facing consumer',
        (await page.locator('svg.lineage text', { hasText: 'CUSTOMER-FACING' }).count()) >= 1);
  check('the metric plot is on the page', (await page.locator('figure svg').count()) >= 1);
  const proposals = await page.locator('article.proposal').count();
  check('the proposals the replay drafted are shown (hold, FlinkDeployment diff, run plan, verification plan)',
        proposals >= 4 && text.includes('hold') && text.includes('run_plan'), `${proposals} proposal(s)`);
  const diffs = await page.locator('pre.diff').allInnerTexts();
  check('the FlinkDeployment diff is rendered as a diff: back to the 4.1 image from the 14:00 savepoint',
        diffs.some((d) => d.includes('+  image: registry.example.com/loyalty/points-balance:4.1') &&
                          d.includes('initialSavepointPath') && d.includes('allowNonRestoredState: false')),
        diffs.map((d) => d.slice(0, 120)).join(' | '));
  check('no script ran and the policy was never hit', scriptsRan.length === 0 && violations.length === 0, violations.join('; '));
  const assetHref = '/assets/' + encodeURIComponent('sync://hightouch/tier-changes-to-braze');
  await page.goto(base + assetHref);
  check('the asset page shows its owner and lineage',
        (await page.locator('main').innerText()).includes('ana@example.com') && (await page.locator('svg.lineage').count()) === 1);
  const missing = await page.goto(base + '/incidents/inc-nope');
  check('an unknown incident is a 404 page that says so',
        missing.status() === 404 && (await page.locator('main').innerText()).includes('Incident inc-nope was not found'));
  await ctx.close();

  // 3. Scripts disabled: the same content.
  const noJs = await browser.newContext({ javaScriptEnabled: false });
  const p2 = await noJs.newPage();
  await p2.goto(base + incidentHref);
  check('with JavaScript disabled the incident page still reads', (await p2.locator('ol.causes > li').count()) >= 1);
  await noJs.close();

  // 5. and 6. Accessibility and screenshots of each page.
  const pages = [['incidents', '/'], ['incident', incidentHref], ['assets', '/assets?q=loyalty'], ['asset', assetHref],
                 ['receipts', '/receipts']];
  const audit = await browser.newContext({ bypassCSP: true });
  for (const [name, path] of pages) {
    await axeCheck(audit, base + path, name);
    await shots(browser, base + path, name);
  }
  await audit.close();

  // 4. Foreign Origin and Host, as a rebinding page would send them.
  let r = await fetch(base + '/', { headers: { Origin: 'http://evil.example' } });
  check('a foreign Origin is refused (403)', r.status === 403);
  // fetch() will not send another Host: a raw request does.
  const hostStatus = await new Promise((res) => {
    const req = http.request({ host: '127.0.0.1', port: s1.port, path: incidentHref, headers: { Host: 'evil.example' } },
                             (resp) => { resp.resume(); res(resp.statusCode); });
    req.on('error', () => res(0));
    req.end();
  });
  check('a foreign Host is refused (403)', hostStatus === 403, String(hostStatus));
  r = await fetch(base + '/?severity=SEV9');
  check('a bad filter is a 400 naming it', r.status === 400 && (await r.text()).includes('severity'));

  // 2. A table named <script>.
  const hostile = join(scratch, 'hostile');
  mkdirSync(hostile);
  writeFileSync(join(hostile, 'dataworkers.yaml'), [
    'version: 1', 'name: hostile', 'warehouses:', '  main: {type: sqlite, path: w.db}',
    'domains:', '  d: {owners: [ana@example.com]}', 'assets:',
    '  - id: table://main/base', '    domain: d', '    owner: ana@example.com',
    '  - id: table://main/scripted', '    domain: d', '    owner: "<script>alert(1)</script>"',
    '    notes: "<script>alert(\'notes\')</script> <img src=x onerror=alert(2)>"', '    reads: [table://main/base]', ''].join('\n'));
  const s2 = await serve(hostile, '2026-11-24T15:40:00Z');
  servers.push(s2);
  const hb = `http://127.0.0.1:${s2.port}`;
  const hctx = await browser.newContext();
  const hp = await hctx.newPage();
  const dialogs = [];
  hp.on('dialog', (d) => { dialogs.push(d.message()); d.dismiss(); });
  // Asset ids cannot hold '<' or '>'; an owner and notes can, and so can what a person types.
  for (const path of ['/assets?q=scripted', '/assets/' + encodeURIComponent('table://main/scripted'),
                      '/assets/' + encodeURIComponent('table://main/base'), '/assets/' + encodeURIComponent('table://main/<script>')]) {
    await hp.goto(hb + path);
    const scripts = await hp.evaluate(() => document.querySelectorAll('script, img').length);
    const shown = await hp.locator('main').innerText();
    const expected = path.includes('%3Cscript%3E') ? 'table://main/<script>' : '<script>alert(1)</script>';
    check(`markup in the graph renders as text on ${path}`, scripts === 0 && shown.includes(expected) && dialogs.length === 0,
          `scripts=${scripts}`);
  }
  const hostileSearch = await hp.goto(hb + '/assets?q=' + encodeURIComponent('"><script>alert(1)</script>'));
  check('a hostile search term is answered', hostileSearch.status() === 200, String(hostileSearch.status()));
  check('a hostile search term stays in the input as text',
        (await hp.locator('input[name=q]').inputValue()) === '"><script>alert(1)</script>' && dialogs.length === 0);
  await hctx.close();

  // 7. Approval through a signed link.
  const approveWs = join(scratch, 'approve');
  cpSync(join(root, 'examples/loyalty-flink'), approveWs, { recursive: true });
  const sim = spawn(join(build, 'dw-sim'), ['registry', '--listen', '127.0.0.1:0', '--script', join(approveWs, 'sim/registry.json')],
                    { stdio: ['ignore', 'pipe', 'inherit'] });
  servers.push({ stop: () => sim.kill('SIGTERM') });
  const registryUrl = await new Promise((res, rej) => {
    let b = '';
    sim.stdout.on('data', (d) => { b += d; const m = b.match(/listening on (http:\/\/\S+)/); if (m) res(m[1]); });
    sim.on('exit', (c) => rej(new Error('dw-sim exited ' + c)));
  });
  const env = { ...process.env, DW_REGISTRY_URL: registryUrl, DW_APPROVAL_LINK_KEY: 'desk-browser-test-key-0123456789abcdef' };
  const now = '2026-11-24T15:40:00Z';
  const schemaFile = join(approveWs, 'member-balance-v3.avsc');
  writeFileSync(schemaFile, JSON.stringify({ type: 'record', name: 'MemberBalance', namespace: 'loyalty', fields: [
    { name: 'member_id', type: 'string' }, { name: 'balance', type: 'long' },
    { name: 'last_store_id', type: ['null', 'string'], default: null }, { name: 'tier_hint', type: ['null', 'string'], default: null }] }));
  const dwRun = (argv) => {
    try { return { code: 0, out: execFileSync(dw, ['--workspace', approveWs, '--now', now, ...argv], { env, stdio: ['ignore', 'pipe', 'pipe'] }).toString() }; }
    catch (e) { return { code: e.status, out: String(e.stdout || ''), err: String(e.stderr || '') }; }
  };
  const drafted = dwRun(['schema', 'register', 'member-balances-value', schemaFile, '--format', 'json']);
  const answer = JSON.parse(drafted.out || '{}');
  // Not registered yet (exit 1, docs/cli.md): the proposal waits for its approval.
  check('a schema registration waits for approval', drafted.code === 1 && answer.status === 'awaiting_approval',
        `exit ${drafted.code}: ${(drafted.err || drafted.out).slice(0, 300)}`);
  const proposal = (answer.proposal && (answer.proposal.id || answer.proposal.proposal_id)) || answer.proposal_id || '';
  check('the draft names its proposal', typeof proposal === 'string' && proposal.length > 0, drafted.out.slice(0, 300));
  const s3 = await serve(approveWs, now, env);
  servers.push(s3);
  const ab = `http://127.0.0.1:${s3.port}`;
  const linkFor = (who) => dwRun(['approval-link', proposal, '--as', who, '--base-url', ab]);
  const notApprover = linkFor('bob@example.com');
  check('no link is issued to someone the request does not name', notApprover.code !== 0 && /not an approver/.test(notApprover.err));
  const issued = linkFor('ana@example.com');
  check('a link is issued to the named approver', issued.code === 0 && issued.out.startsWith(ab + '/approve/v1.'), issued.err);
  const url = issued.out.trim();
  const actx = await browser.newContext();
  const ap = await actx.newPage();
  await ap.goto(url);
  check('the link opens the proposal with its approver named', (await ap.locator('main').innerText()).includes('ana@example.com'));
  await shots(browser, url, 'approve');
  await axeCheck(audit2 = await browser.newContext({ bypassCSP: true }), url, 'approve');
  // The two pages the reverse-proxy and session paths add: the decide form (reached here without a
  // trusted proxy, so it says why the header is not honoured) and the reader's sign-in.
  await axeCheck(audit2, ab + '/decide/' + encodeURIComponent(proposal), 'decide');
  await axeCheck(audit2, ab + '/session', 'session');
  await audit2.close();
  // A form posted without the CSRF token (a forged cross-site form would have none): refused.
  const csrfless = await fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: 'verdict=approve' });
  check('a form without the CSRF token is refused (403)', csrfless.status === 403 && (await csrfless.text()).includes('CSRF'));
  const foreign = await fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded', Origin: 'http://evil.example' }, body: 'verdict=approve' });
  check('a post from a foreign Origin is refused (403)', foreign.status === 403);
  // Nothing is chosen for the person: no radio is checked, and the form does not go without one.
  check('no decision is pre-selected on the approval page', (await ap.locator('input[name=verdict]:checked').count()) === 0);
  await ap.locator('textarea#reason').fill('hold until the migration is planned');
  await ap.locator('button[type=submit]').click();
  check('the form is not sent until the person chooses', (await ap.locator('form.decide').count()) === 1 &&
        (await ap.locator('input[name=verdict]:invalid').count()) > 0);
  await ap.locator('input[name=verdict][value=approve]').check();
  await ap.locator('button[type=submit]').click();
  await ap.waitForLoadState();
  const recorded = await ap.locator('main').innerText();
  check('approving through the link is recorded and shown (who, surface)',
        recorded.includes(`approved ${proposal} v1 by ana@example.com`) && recorded.includes('web'), recorded.slice(0, 400));
  await shots(browser, url, 'approved');
  const registered = dwRun(['schema', 'register', 'member-balances-value', '--proposal', proposal]);
  check('the decision is in the store: the approved proposal now registers (exit 0)', registered.code === 0, registered.err);
  // The same link again: used.
  await ap.goto(url);
  check('the used link shows the decision and no form', (await ap.locator('form.decide').count()) === 0 &&
        (await ap.locator('main').innerText()).includes('approved'));
  await actx.close();
  await ap.context().close().catch(() => {});
  // A second proposal: a link for it, used after its expiry (the domain's 2 h), is refused.
  writeFileSync(schemaFile, JSON.stringify({ type: 'record', name: 'MemberBalance', namespace: 'loyalty', fields: [
    { name: 'member_id', type: 'string' }, { name: 'balance', type: 'long' },
    { name: 'last_store_id', type: ['null', 'string'], default: null }, { name: 'tier_hint', type: ['null', 'string'], default: null },
    { name: 'region', type: ['null', 'string'], default: null }] }));
  const second = dwRun(['schema', 'register', 'member-balances-value', schemaFile, '--format', 'json']);
  const ans2 = JSON.parse(second.out || '{}');
  const pid2 = (ans2.proposal && (ans2.proposal.id || ans2.proposal.proposal_id)) || ans2.proposal_id || '';
  const link2 = dwRun(['approval-link', pid2, '--as', 'ana@example.com', '--base-url', ab]).out.trim();
  s3.stop();
  servers.pop();
  const later = await serve(approveWs, '2026-11-24T17:45:00Z', env);
  servers.push(later);
  const lb = `http://127.0.0.1:${later.port}`;
  const ectx = await browser.newContext();
  const ep = await ectx.newPage();
  await ep.goto(link2.replace(ab, lb));
  check('an expired link offers no form', (await ep.locator('form.decide').count()) === 0);
  const expiredPost = await fetch(link2.replace(ab, lb), { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: 'verdict=approve' });
  check('an expired link is refused', expiredPost.status === 403);
  // Another person's link: the token's approver altered, its MAC kept, does not verify.
  const token = link2.split('/approve/')[1];
  const [v, payload, mac] = token.split('.');
  const altered = Buffer.from(Buffer.from(payload, 'base64url').toString().replace('ana@example.com', 'bob@example.com')).toString('base64url');
  const forged = await ep.goto(`${lb}/approve/${v}.${altered}.${mac}`);
  check('a link altered to another person is refused (403)', forged.status() === 403 &&
        (await ep.locator('main').innerText()).includes('does not verify'));
  await ectx.close();
} catch (e) {
  check('the browser run completed', false, String(e && e.stack || e));
} finally {
  if (browser) await browser.close();
  for (const s of servers) s.stop();
  rmSync(scratch, { recursive: true, force: true });
}
console.log(`screenshots: ${out}`);
console.log(`browser: ${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
