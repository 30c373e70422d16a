// The action stage's front door (dw::actions): receipts, people's keys and signed decisions,
// approval requests that expire and escalate, autonomy per domain and the stop switch.
//
// The promises this header keeps (ARCHITECTURE.md, "Autonomy, approvals, receipts"):
// - Nothing here deploys, restores, pauses or reruns anything in a team's systems. What may run
//   by itself is limited to reversible steps inside the state store's own world (re-run a check,
//   re-evaluate a metric) and requests queued to the owner.
// - A decision counts only through Decide(), the single identity check: a named person from the
//   approvers of the request, with a signature made by that person's key, never the author,
//   never an agent, never over MCP, never after expiry, never twice, never by default. And it
//   counts only while its proof verifies (VerifyRecordedDecision), checked again wherever a
//   decision is used: GetProposalState never reports a decision that does not.
// - Every refusal is recorded in the action event log, as is every request, decision, expiry,
//   escalation, stop and lift.
// - Receipts are append-only and hash-chained; VerifyReceiptChain() names the first receipt that
//   does not verify.
//
// Surfaces (app/, agents/, the replay) translate their arguments and call these functions only.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/clock.h"
#include "base/json.h"
#include "base/status.h"
#include "base/unified_diff.h"
#include "config/workspace.h"
#include "graph/context_graph.h"
#include "incidents/incidents.h"
#include "net/http_client.h"
#include "platforms/notify/notify.h"
#include "schema/schema.h"
#include "store/state_store.h"

namespace dw::actions {

// ---------------------------------------------------------------------------------------------
// Canonical JSON: the bytes receipts are hashed over and decisions are signed over.
//   - objects with keys sorted by their UTF-8 bytes, each key once;
//   - no whitespace outside strings;
//   - strings in UTF-8 as-is, escaping only '"', '\\' and the control characters below 0x20
//     (as \b \f \n \r \t, the rest as \u00XX in lower-case hex);
//   - numbers only as integers (-2^63 .. 2^63-1) without a sign on zero; fractions must be
//     written by the caller as fixed strings ("0.25"), so no float formatting enters a hash;
//   - true, false, null as themselves.
// Returns kInvalidArgument for a non-integer number or a string that is not valid UTF-8, naming
// the JSON path.
Result<std::string> CanonicalJson(const Json& value);

// The lower-case hex SHA-256 of `bytes`.
std::string Sha256Hex(std::string_view bytes);

// ---------------------------------------------------------------------------------------------
// Receipts.
//
// A receipt's stored body is CanonicalJson of
//   {"content": <what happened>, "prev": <hash of the previous receipt or "">, "seq": n,
//    "written_at": "<RFC 3339>"}
// and its hash is Sha256Hex(body). So a receipt binds its content, its place and its predecessor.

struct ReceiptHead {
  int64_t seq = 0;   // 0 when there is no receipt
  std::string hash;  // "" when there is no receipt
};

// Appends `content` (a JSON object) as the next receipt and returns it, every string in it redacted
// (base/redaction.h) before it is hashed, so no secret sits in a receipt. Retries when another
// writer appended first; kInvalidArgument when `content` is not an object or not canonical-able.
Result<store::ReceiptRecord> WriteReceipt(store::StateStore& store, const Json& content,
                                          const Clock& clock);

// The newest receipt's seq and hash.
Result<ReceiptHead> CurrentReceiptHead(store::StateStore& store);

struct ChainVerdict {
  bool ok = true;
  int64_t receipts = 0;        // how many were read
  ReceiptHead head;            // the last receipt read
  int64_t first_bad_seq = 0;   // the first receipt (by stored order) that does not verify; 0 if ok
  std::string problem;         // one sentence: what does not verify, empty when ok
};

// Walks the whole chain in seq order: each receipt's seq follows the previous one (starting at
// 1), its body is canonical, names its own seq and the previous hash, its stored prev_hash is the
// previous receipt's hash, and its hash is the SHA-256 of its body; the action log's and the
// resolved incidents' record of it must hold. With `expected_head` the chain must end at that
// hash; without, it must hold the newest head a delivered notification announced, with its hash
// (receipt_anchor.h). Store errors are errors; a bad chain is a verdict.
Result<ChainVerdict> VerifyReceiptChain(store::StateStore& store,
                                        const std::string& expected_head = "");

// The receipt `seq` (0: the newest); kNotFound when there is none.
Result<store::ReceiptRecord> ShowReceipt(store::StateStore& store, int64_t seq);

// `r` as a person or an auditor reads it on one screen: its place in the chain (seq, hash, the
// previous hash) and, for a resolution, the incident, the cause, the blast radius in one line,
// each proposal with who decided it, the runs, the checks and the undo; other receipts field by
// field. Reads the stored body as untrusted (a malformed body is said to be one).
std::string ReceiptText(const store::ReceiptRecord& r);

// Every receipt as one document: format "json" (an array of {seq, hash, prev_hash, written_at,
// body}, body parsed) or "md" (a section per receipt, as ReceiptText reads it).
// kInvalidArgument for another format.
Result<std::string> ExportReceipts(store::StateStore& store, const std::string& format);

// ---------------------------------------------------------------------------------------------
// People's keys.

struct IssuedKey {
  std::string email;
  std::string public_key_pem;
  std::string private_key_pem;  // handed to the person; never stored
};

// Makes an Ed25519 key pair for `email` (OpenSSL EVP), stores only the public key (replacing an
// earlier one: an old private key stops verifying) and records the issue. kInvalidArgument for
// something that is not a person's email (agents have no keys).
Result<IssuedKey> IssuePersonKey(store::StateStore& store, const std::string& email,
                                 const Clock& clock, const std::string& issued_by);
// The two halves of IssuePersonKey: a new key pair for `email` (nothing stored; kInvalidArgument
// for something that is not a person's email), and storing its public half with the issue event.
Result<IssuedKey> NewPersonKey(const std::string& email);
Status StorePersonKey(store::StateStore& store, const IssuedKey& key, const Clock& clock, const std::string& issued_by);

// Writes a private key to `path` readable by its owner only (0600); refuses an existing file.
Status WritePrivateKeyFile(const std::string& path, const std::string& private_key_pem);
// Reads a private key file written by WritePrivateKeyFile.
Result<std::string> ReadPrivateKeyFile(const std::string& path);

// "sha256:<64 hex>" of a public key PEM: what the workspace declares under people.<email>.keys
// and `dw keys issue` prints.
std::string KeyFingerprint(const std::string& public_key_pem);

// ---------------------------------------------------------------------------------------------
// Decisions: what a person signs.

enum class Verdict { kApprove, kDeny };
const char* VerdictName(Verdict v);  // "approve" / "deny"

struct DecisionStatement {
  std::string person;  // email
  std::string proposal_id;
  int64_t version = 0;
  Verdict verdict = Verdict::kApprove;
  std::string reason;  // required for a denial
  TimePoint at;
  std::string nonce;  // random, single use
};

// A statement for `person` deciding `proposal_id` version `version` now, with a fresh nonce.
DecisionStatement NewStatement(const std::string& person, const std::string& proposal_id,
                               int64_t version, Verdict verdict, const std::string& reason,
                               const Clock& clock);

// The exact bytes signed: CanonicalJson of the statement's fields.
std::string StatementBytes(const DecisionStatement& s);

// Signs StatementBytes(s) with an Ed25519 private key (PEM); returns the signature in base64.
Result<std::string> SignStatement(const DecisionStatement& s, const std::string& private_key_pem);

// ---------------------------------------------------------------------------------------------
// Decisions: what they are checked against, where they are made and wherever they are used.
//
// A recorded decision counts only when its proof still verifies from what the store cannot
// forge: a signature by a key whose fingerprint the workspace declares for that person (the file
// people review in Git), or a seal made with the desk's key (DW_APPROVAL_LINK_KEY, from the
// environment) for a decision taken through a signed link or the trusted proxy. A row written
// into the store by hand, a swapped key or an edited decision verifies against neither.

struct DecisionTrust {
  // person -> the fingerprints (KeyFingerprint) the workspace declares under people.<email>.keys
  std::map<std::string, std::vector<std::string>> declared_keys;
  // The desk's key: it signs approval links and seals the decisions taken by link or proxy. ""
  // where the process has none: such decisions cannot be taken, and recorded ones cannot be
  // checked (they do not count).
  std::string desk_key;
};

// The trust of `workspace` (its people's declared keys) with `desk_key`.
DecisionTrust TrustOf(const config::Workspace& workspace, const std::string& desk_key);
// TrustOf with the desk key of the environment (ApprovalLinkKeyFromEnvironment).
DecisionTrust TrustOf(const config::Workspace& workspace);

// A recorded decision that does not verify: which event, whose, and why (one sentence).
struct RejectedDecision {
  int64_t seq = 0;     // the action event's seq
  std::string kind;    // "approved" or "denied"
  std::string person;  // as the row claims
  std::string reason;
  bool checkable = true;  // false when only the desk key was missing here (not shown forged)
  std::string proposal_id;
};

// Ok when the `approved`/`denied` event `e` about `proposal_id` is what its proof says under
// `trust` and was recorded no later than `now` (plus the statement skew); otherwise
// kPermissionDenied saying what does not verify.
Status VerifyRecordedDecision(const store::ActionEventRecord& e, const std::string& proposal_id,
                              const DecisionTrust& trust, TimePoint now);

// Every approved or denied row of the action log that VerifyRecordedDecision refuses under `trust`.
Result<std::vector<RejectedDecision>> AuditDecisions(store::StateStore& store, const DecisionTrust& trust,
                                                     const Clock& clock);

// AuditDecisions under TrustOf(workspace), each checkable row raised once: a `decision_rejected`
// event (severity SEV1) and, when the proposal belongs to an incident, an attention_requested
// notice to its people ("SEV1 finding, decision without a valid signature: ..."). Returns one line
// per finding raised now.
Result<std::vector<std::string>> RaiseRejectedDecisions(store::StateStore& store, const config::Workspace& workspace,
                                                        const Clock& clock);

// A decision as it arrives from a surface: (person, proposal version, surface, proof).
struct DecisionRequest {
  DecisionStatement statement;
  std::string surface;    // "cli", "scenario", "web"; "mcp" is always refused
  std::string signature;  // base64 Ed25519 signature over StatementBytes(statement)
};

struct DecisionOutcome {
  bool accepted = false;
  std::string reason;  // why it was refused, or what it did ("approved P-1 v1")
  int64_t event_seq = 0;  // the recorded decision or refusal
};

// THE identity and authority check. Accepts a decision only when: the surface is not MCP; the
// person is not an agent; a key is stored for the person and the signature verifies over the
// statement; the nonce was never used; the statement's time is within 10 minutes of now; the
// proposal and version exist, the version is the newest and was sent for approval; no decision
// was recorded for it; its request has not expired; the person is one of the request's approvers
// and not the proposal's author; a denial carries a reason. Otherwise refuses with the reason.
// Either way records an event. Errors only when the store fails.
// The signature must verify with the key stored for the person, and that key's fingerprint must be
// declared for them in `trust`; the decision records the public key it verified with.
Result<DecisionOutcome> Decide(store::StateStore& store, const DecisionTrust& trust,
                               const DecisionRequest& request, const Clock& clock);

// Decide, and when it accepts an approval, the `approved` notice of the proposal's incident is
// written to the outbox (workspace notify: routes) in the same transaction as the decision. The
// surfaces that have a workspace call this one; the trust is TrustOf(workspace).
Result<DecisionOutcome> Decide(store::StateStore& store, const config::Workspace& workspace,
                               const DecisionRequest& request, const Clock& clock);

// The incident `incident_id` is resolved and `receipt` records it: writes its `resolved` notice
// (Opsgenie closed by alias, PagerDuty resolved, the Slack message edited to resolved, the receipt
// emailed) with the receipt's summary (content.summary, else content.cause), its seq and hash, to
// the outbox. Called by whoever writes the receipt of a resolution. Once per incident and channel:
// a second call (or a person's resolve before it) is a duplicate and writes nothing. NotFound for
// an unknown incident; nothing is written for a workspace without notify:.
Status NotifyResolved(store::StateStore& store, const config::Workspace& workspace,
                      const Clock& clock, const std::string& incident_id,
                      const store::ReceiptRecord& receipt);

// ---------------------------------------------------------------------------------------------
// Signed approval links: what the approval notification carries so the named approver can decide
// from the desk's page (a phone at 02:40) without a key file. A link is an HMAC-SHA256 token over
// (approver, proposal, version, expiry, nonce) made with the server's link key (the environment's
// DW_APPROVAL_LINK_KEY, at least 32 bytes; never stored, logged or shown). It is the proof of a
// decision by DecideByLink, which runs the same check as Decide: refused when forged or altered,
// after its expiry, once used (its nonce is the decision's), for a version that is not the newest
// pending one, for a person the request does not name, for the proposal's author.

struct ApprovalLink {
  std::string approver;  // email
  std::string proposal_id;
  int64_t version = 0;
  TimePoint expires_at;
  std::string nonce;  // random, single use
};

// Ok when `key` may sign approval links: 32 bytes or more, and not guessable (too little entropy
// in its bytes, or a shorter part repeated); kInvalidArgument saying which and how to make one.
Status CheckApprovalLinkKey(const std::string& key);

// The token for `link`: "v1.<base64url payload>.<base64url HMAC>". kInvalidArgument for a key
// CheckApprovalLinkKey refuses.
Result<std::string> SignApprovalLink(const ApprovalLink& link, const std::string& key);

// The link a token carries when its HMAC verifies with `key`; kPermissionDenied ("forged or
// altered") when it does not, kInvalidArgument when it is not a token at all. Does not look at
// the expiry or the store: DecideByLink does.
Result<ApprovalLink> ReadApprovalLink(const std::string& token, const std::string& key);

// A link for `approver` to decide the newest version of `proposal_id`, expiring with its pending
// request (recorded as a "link_issued" event, without the token). kFailedPrecondition when the
// version is not pending or `approver` is not one of its request's approvers or is its author.
Result<std::string> IssueApprovalLink(store::StateStore& store, const DecisionTrust& trust,
                                      const std::string& proposal_id, const std::string& approver,
                                      const std::string& key, const Clock& clock);

// The link key from the environment (DW_APPROVAL_LINK_KEY), registered as a secret so no log
// line or error can show it; "" when unset.
std::string ApprovalLinkKeyFromEnvironment();

// What the notification delivery signs the approval links of approval requests with
// (SignApprovalLink with `key`; DeliveryOptions::approval_link). An empty function for an empty key.
platforms::notify::ApprovalLinkSigner ApprovalLinkSignerFor(const std::string& key);

// Who a reverse proxy in front of the desk says the person is (an SSO proxy such as oauth2-proxy
// sends X-Forwarded-Email), and from where the request came.
struct ProxiedIdentity {
  std::string peer_address;     // the connection's peer, as the socket reports it
  std::string forwarded_email;  // the X-Forwarded-Email header; "" when absent
  int header_count = 0;         // how many X-Forwarded-Email headers came
};

// The person the proxy names, honoured only when the peer is inside one of the workspace's
// desk.trusted_proxies and exactly one header names a person's email (never an agent).
// kNotFound when no header came; kPermissionDenied, saying why the header is ignored, otherwise.
Result<std::string> TrustedProxyPerson(const config::Workspace& workspace, const ProxiedIdentity& who);

// A decision arriving through a signed link on `surface` (the desk: "web").
struct LinkDecision {
  std::string token;
  Verdict verdict = Verdict::kApprove;
  std::string reason;  // required for a denial
  std::string surface = "web";
  // The request's proxy identity, if any: a trusted proxy naming someone other than the link's
  // approver refuses the link (another person holding it).
  ProxiedIdentity via;
};

// Decide() with the link as the proof instead of a key's signature: the person, the proposal and
// the version are the link's; the decision is sealed with `key` (the desk's key). Every refusal is
// recorded, as with Decide.
Result<DecisionOutcome> DecideByLink(store::StateStore& store, const LinkDecision& decision,
                                     const std::string& key, const Clock& clock);
// DecideByLink with the workspace: also refused when a trusted proxy (desk.trusted_proxies) names
// another person than the link's approver, and an accepted approval writes its `approved` notice
// to the outbox in the same transaction (as Decide with a workspace).
Result<DecisionOutcome> DecideByLink(store::StateStore& store, const config::Workspace& workspace,
                                     const LinkDecision& decision, const std::string& key, const Clock& clock);

// A decision by the person a trusted reverse proxy names (TrustedProxyPerson), on the desk's
// page: proof is the proxy's word, honoured only from desk.trusted_proxies; then every rule of
// Decide (the request names the person, not the author, not an agent, not after expiry, the
// newest pending version, once). Every refusal is recorded.
struct ProxyDecision {
  ProxiedIdentity identity;
  std::string proposal_id;
  int64_t version = 0;  // the version the person saw; must be the newest pending one
  Verdict verdict = Verdict::kApprove;
  std::string reason;  // required for a denial
  std::string surface = "web";
};
// The decision is sealed with `desk_key`; without one it is refused (it could not be checked later).
Result<DecisionOutcome> DecideAsProxiedPerson(store::StateStore& store, const config::Workspace& workspace,
                                              const ProxyDecision& decision, const std::string& desk_key,
                                              const Clock& clock);

// ---------------------------------------------------------------------------------------------
// Proposals and approval requests.

// A proposal as drafted (before it is stored as a version).
struct ProposalDraft {
  std::string id;           // stable across versions, e.g. "INC-3-hold"
  std::string incident_id;
  std::string domain;       // whose approvers decide
  std::string kind;         // hold, flink_deployment_diff, kestra_flow_diff, run_plan, verification_plan
  std::string author;       // "agent:dw-incidents" or a person's email
  Json content = Json::object();
};

enum class ProposalStatus { kDrafted, kPending, kApproved, kDenied, kExpired, kSuperseded };
const char* ProposalStatusName(ProposalStatus s);

// One party whose approval a request needs: any one of `people` approves for it.
struct ApprovalParty {
  std::string role;  // "the approvers of domain loyalty", "the owner of sync://hightouch/braze"
  std::vector<std::string> people;
};

struct ApprovalRequestView {
  int64_t round = 0;  // 1 = the domain's approvers; 2 = escalate_to
  std::vector<std::string> approvers;  // everyone the request asks: the parties' people
  TimePoint expires_at;
  // Each party must approve (one person may stand for several). The approvers of the proposal's
  // domain (escalate_to in round 2) and, for a proposal that holds, pauses or changes an asset,
  // that asset's owner. Empty in a request stored before parties: any one approver decides.
  std::vector<ApprovalParty> parties;
};

// "the approvers of domain loyalty (ana@example.com) and the owner of X (crm@example.com)".
std::string PartiesPhrase(const std::vector<ApprovalParty>& parties);

// What the event log says about one proposal version.
struct ProposalState {
  store::ProposalRecord record;
  int64_t newest_version = 0;
  ProposalStatus status = ProposalStatus::kDrafted;
  std::optional<ApprovalRequestView> request;  // the open or last request
  std::string decided_by;
  std::string decision_reason;
  std::string decision_surface;
  std::optional<TimePoint> decided_at;
  // The people whose approvals of this version verify, in order; while `status` is pending, the
  // parties of the request that no one has approved for yet.
  std::vector<std::string> approved_by;
  std::vector<ApprovalParty> awaiting;
  // Decisions recorded for this version that do not verify under the trust read with; they never
  // count. Acting on the proposal, or deciding it again, is refused while one is here.
  std::vector<RejectedDecision> rejected;
};

// Stores `draft` as the next version of its id (version 1 when new). A version that was sent is
// never changed; storing a new one supersedes older versions (a pending request on them lapses).
Result<store::ProposalRecord> StoreProposal(store::StateStore& store, const ProposalDraft& draft,
                                            const Clock& clock);

// The state of `proposal_id` at `version` (0: the newest). kNotFound when unknown. A decision
// counts only when VerifyRecordedDecision accepts it under `trust`; the others are listed in
// `rejected` and the state is what it would be without them.
Result<ProposalState> GetProposalState(store::StateStore& store, const DecisionTrust& trust,
                                       const std::string& proposal_id, int64_t version, const Clock& clock);

// Sends the newest version of `proposal_id` for approval: a request naming the approvers of its
// domain (workspace domains.<d>.approvers) that expires after approval_ttl. Refused (recorded)
// when the domain's autonomy is L0 or L1 (proposals are not sent), when the domain has no
// approvers, when the version was already sent, or when its diff no longer applies to its file
// (a conflict: the file changed since the draft).
Result<ApprovalRequestView> SendForApproval(store::StateStore& store,
                                            const config::Workspace& workspace,
                                            const std::string& proposal_id, const Clock& clock,
                                            const std::string& actor);

// Expires every pending request past its time: records the expiry and, for a first request with
// escalate_to configured, a new request to escalate_to (same TTL). A request that expires without
// anywhere to escalate leaves the proposal expired: never granted. Returns what happened, one
// sentence per transition.
Result<std::vector<std::string>> ExpireApprovalRequests(store::StateStore& store,
                                                        const config::Workspace& workspace,
                                                        const Clock& clock);

// ---------------------------------------------------------------------------------------------
// Diffs of real files (FlinkDeployment manifests, Kestra flows).

// MakeUnifiedDiff (base/unified_diff.h) makes them.
using dw::MakeUnifiedDiff;

// Applies `unified` to `current` with `git apply --check` semantics: every hunk's context and
// removed lines must match `current` exactly at the line the hunk names. Returns the patched
// text; kFailedPrecondition ("conflict: ...", naming the line) when the file no longer matches
// the diff's base, kInvalidArgument for a malformed diff. Never applies with fuzz.
Result<std::string> ApplyUnifiedDiff(const std::string& unified, const std::string& current);

// The diff that undoes `unified`: its removed lines added and its added lines removed, hunk ranges
// and file header swapped, so that ApplyUnifiedDiff(reverse, after) gives `before` back (the
// rollback of a Kestra revision from the diff its evidence carries). "" for "";
// kInvalidArgument for a malformed diff.
Result<std::string> ReverseUnifiedDiff(const std::string& unified);

// The FlinkDeployment manifest text `manifest` (one YAML file the team keeps in Git) changed to
// redeploy deployment `name` from `savepoint_path`: spec.job.initialSavepointPath set to it,
// spec.job.savepointRedeployNonce set to `nonce`, spec.job.allowNonRestoredState: false; the
// other lines are kept byte for byte. kNotFound when the file holds no FlinkDeployment `name` or
// it has no spec.job block; kInvalidArgument for an empty savepoint path.
Result<std::string> RedeployFromSavepoint(const std::string& manifest, const std::string& name,
                                          const std::string& savepoint_path, int64_t nonce);

// What a FlinkDeployment redeploy proposal is drafted from (the diagnosis supplies these).
struct FlinkRedeployInput {
  std::string platform;         // the workspace's flink platform whose `manifests:` folder holds it
  std::string deployment;       // metadata.name
  std::string last_good_savepoint;  // the savepoint taken before the bad release; "" when unknown
  std::string bad_release;      // e.g. the image of the bad release, held until its migration is planned
  // spec.image of the last good version, when a recorded manifest change says what the bad release
  // replaced; "" keeps the manifest's image (and the content says so).
  std::string last_good_image;
};

// The content of a flink_deployment_diff proposal: {file, base_sha256, diff, undo_diff,
// savepoint_redeploy_nonce, redeploy_from_savepoint, hold_bad_release, image (the image it
// redeploys), image_note, steps}; with last_good_image the diff also sets spec.image back to it. The diff is made
// against the manifest as it is on disk now and checked to apply. kFailedPrecondition naming what
// is missing when the platform has no `manifests:` folder, no manifest holds the deployment, or no
// last good savepoint is recorded — never an invented value.
Result<Json> DraftFlinkDeploymentDiff(const config::Workspace& workspace,
                                      const FlinkRedeployInput& input);

// Whether the diff of a drafted diff proposal's `content` (file, diff) still applies to the file
// as it is now; kFailedPrecondition "conflict: ..." when the file changed since the draft.
Status CheckDiffStillApplies(const Json& content);

// ---------------------------------------------------------------------------------------------
// Drafting the proposals for an incident (what a careful on-call engineer would write for its top
// cause). Each proposal says what it touches (from the blast radius), why (the evidence) and how
// to undo it; one that cannot be drafted says what is missing instead of inventing it.

enum class ProposalKind { kHold, kFlinkDeploymentDiff, kKestraFlowDiff, kRunPlan, kVerificationPlan };
// "hold", "flink_deployment_diff", "kestra_flow_diff", "run_plan", "verification_plan".
const char* ProposalKindName(ProposalKind kind);
std::optional<ProposalKind> ParseProposalKind(const std::string& name);

// One consumer to pause before its next run, with the exact step its owner takes.
struct HoldTarget {
  std::string consumer;  // canonical id
  std::string kind;      // asset kind: sync, dbt, kestra, ...
  std::string owner;
  std::string schedule;  // cron, workspace time zone
  std::string next_run;  // RFC 3339: the run the hold prevents
  bool customer_facing = false;
  std::string why;       // what damaged data it would act on
  std::string step;      // the owner's step, a sentence
  std::string undo;      // how the owner lifts the hold
  // Kestra consumers: the flow's triggers to disable and the API call that does it
  // (POST /api/v1/{tenant}/triggers/set-disabled/by-triggers, TriggerController.SetDisabledRequest).
  std::string kestra_namespace;
  std::string kestra_flow;
  std::vector<std::string> kestra_triggers;
  std::string api_call;         // "POST <url>"; "" for consumers outside Kestra
  Json api_body = Json();       // {"triggers": [...], "disabled": true}
  Json api_undo_body = Json();  // the same with "disabled": false
};

struct HoldProposal {
  std::vector<HoldTarget> targets;  // most urgent first
  std::string until;                // when the owner lifts it (after the verification plan passes)
};

// A unified diff of a Kestra flow's YAML (the team's file of its current revision) fixing the cause.
struct KestraFlowDiffProposal {
  std::string flow;  // kestra://<instance>/<namespace>.<id>
  std::string file;  // the flow's YAML file (absolute); the diff applies to it
  std::string base_sha256;
  int64_t base_revision = 0;  // the revision in Kestra the file matches; 0 when not read
  std::string diff;
  std::string undo_diff;
  std::vector<std::string> changes;  // one sentence per change, e.g. "fetch.uri: /v1/... -> /v2/..."
  std::vector<std::string> steps;    // the owner's steps (save as the next revision / merge)
};

// One rerun of the plan, in dependency order.
struct RunStep {
  int order = 0;              // 1, 2, ...
  std::string asset;          // what runs (a flow, a dbt model, a job)
  std::string owner;
  std::string action;         // the owner's step, e.g. "start kestra flow energy.rerate_day for 2026-11-25"
  std::vector<std::string> after;  // the steps' assets this one waits for
  std::string precondition;   // what must be true before the next step starts
};

struct RunPlan {
  std::vector<RunStep> steps;
  std::vector<std::string> excluded;  // processes not rerun, each with why (held, runs on every event, ...)
};

// One check or metric that proves the repair, with the threshold that will be used.
struct VerificationItem {
  std::string kind;       // "metric" or "check"
  std::string name;       // the monitor's name, or the check's "<table_ref>:<check>"
  std::string asset;      // what it watches
  std::string threshold;  // the sentence a person reads: "inside its band (baseline 6400.5)", "must be 0"
  std::string op;         // "in_band", "==", "<=", ">=", "pass"
  std::optional<double> value;  // the number op compares against, when there is one
  bool failing_now = false;     // the incident holds it as bad at drafting time
};

struct VerificationPlan {
  std::vector<VerificationItem> items;
  std::string when;  // after which step of the run plan it runs
};

Json HoldToJson(const HoldProposal& hold);
Json KestraFlowDiffToJson(const KestraFlowDiffProposal& diff);
Json RunPlanToJson(const RunPlan& plan);
Json VerificationPlanToJson(const VerificationPlan& plan);

// One proposal of the set, drafted or not.
struct DraftedProposal {
  ProposalKind kind = ProposalKind::kHold;
  bool drafted = false;
  std::string not_drafted;  // "not drafted: <what is missing>" when !drafted
  std::string title;        // one line
  std::vector<std::string> touches;   // assets it acts on or protects, from the blast radius
  std::string why;                    // the reason, from the diagnosis
  std::vector<std::string> evidence;  // the cause's evidence it rests on
  std::string undo;                   // how to undo it
  Json content = Json::object();      // the kind's struct as JSON (HoldToJson, ...; the
                                      // FlinkDeployment diff's content from DraftFlinkDeploymentDiff)
};

struct ProposalSet {
  std::string incident_id;
  std::string domain;
  std::string cause_kind;   // the top-ranked candidate's
  std::string cause_asset;
  std::vector<DraftedProposal> proposals;  // hold, diffs, run plan, verification plan
  std::vector<std::string> notes;
};

// A Kestra flow's current revision as the platform reports it.
struct FlowRevision {
  int64_t revision = 0;
  std::string source;
};

// Reads flow (namespace, id)'s current revision from the Kestra platform `platform`.
using FlowRevisionReader =
    std::function<Result<FlowRevision>(const std::string& platform, const std::string& namespace_, const std::string& id)>;

struct DraftOptions {
  std::string author = "agent:dw-incidents";
  // Unset, the team's flow file is the base and the revision is not checked. An error is reported
  // in the proposal, never ignored.
  FlowRevisionReader current_flow_revision;
};

// Drafts every proposal for `incident` from its `diagnosis` (top cause, blast radius) over the
// graph `index`, the workspace (manifests, flow files, checks, monitors, domains) and the store's
// change events. Pure drafting: writes nothing. kFailedPrecondition when the diagnosis ranks no
// cause (nothing to propose for); a proposal that cannot be drafted is returned with not_drafted.
Result<ProposalSet> DraftIncidentProposals(const config::Workspace& workspace, store::StateStore& store,
                                           const graph::GraphIndex& index,
                                           const incidents::Incident& incident,
                                           const incidents::Diagnosis& diagnosis, const Clock& clock,
                                           const DraftOptions& options);

// One drafted proposal after storing: its id and version, and whether it was sent.
struct StoredProposal {
  DraftedProposal proposal;
  std::string id;           // "<incident>-<kind>"; "" when not drafted (nothing stored)
  int64_t version = 0;
  bool new_version = false;  // false when the newest version already had the same content
  std::string status;        // ProposalStatusName after storing/sending
  std::string sending;       // "sent to a, b until T" or why it was not sent (L1, already sent, ...)
};

struct ProposeOutcome {
  ProposalSet set;
  std::vector<StoredProposal> stored;
};
Json ProposeOutcomeToJson(const ProposeOutcome& outcome);

// The drafting entry of the surfaces: diagnoses incident `incident_id` (whole, or a prefix one
// incident alone has: what is stored is named after its full id; IncidentDesk over `graph`,
// which may be null), drafts its proposals, stores each drafted one as a new version when its
// content differs from the newest (the older version is then superseded; a sent version is never
// changed) and, when the domain's autonomy is L2 or above, sends each new version to the domain's
// approvers (SendForApproval). At L0/L1 nothing is sent, and the outcome says so. kNotFound for an
// unknown incident (closest ids named); the store's error on failure.
Result<ProposeOutcome> ProposeForIncident(const config::Workspace& workspace, store::StateStore& store,
                                          const graph::ContextGraph* graph,
                                          const std::string& incident_id, const Clock& clock,
                                          const DraftOptions& options);

// ---------------------------------------------------------------------------------------------
// Autonomy and the stop switch.

enum class Autonomy { kL0 = 0, kL1, kL2, kL3, kL4 };
// Parses "L0".."L4"; kInvalidArgument otherwise.
Result<Autonomy> ParseAutonomy(const std::string& text);

// What a step would do. Only the first four are ever dispatched by Data Workers itself.
enum class StepKind {
  kRerunCheck,         // re-run a quality check (reads the warehouse)
  kReevaluateMetric,   // re-evaluate a metric monitor (reads the warehouse)
  kQueueOwnerRun,      // queue an approved downstream run as a request to its owner
  kPostReceipt,        // write and post the receipt
  kJobChange,          // the rest stay with the owner at every level
  kDeploy,
  kRestore,
  kHold,
};
const char* StepKindName(StepKind k);

// Whether a domain at `level` lets Data Workers dispatch `kind` itself: L3 re-runs checks and
// re-evaluates metrics; L4 also queues owner runs and posts receipts; nothing else ever.
bool MayDispatchItself(Autonomy level, StepKind kind);

// Records that all autonomous dispatch across the workspace stops (or, with `lift`, resumes).
// kFailedPrecondition when already in that state (still recorded as a refusal).
Status SetStopSwitch(store::StateStore& store, bool stop, const std::string& actor,
                     const std::string& reason, const Clock& clock);
// Whether the stop switch holds now.
Result<bool> StopSwitchHolds(store::StateStore& store);

struct AutonomousStep {
  std::string domain;
  StepKind kind = StepKind::kRerunCheck;
  std::string target;  // the check, metric or run it is about
  Json detail = Json::object();
};

// Runs a reversible step; implemented by the surface's wiring (checks, monitors, the outbox).
class StepRunner {
 public:
  virtual ~StepRunner() = default;
  // Performs `step`; an error is reported to a person by the caller.
  virtual Result<Json> Run(const AutonomousStep& step) = 0;
};

struct DispatchOutcome {
  bool dispatched = false;
  std::string reason;  // why not, or what ran
  Json result;         // the runner's result when dispatched
};

// Dispatches `step` through `runner` only when the stop switch does not hold and the domain's
// autonomy allows it (MayDispatchItself); records the dispatch or the refusal. A runner failure is
// recorded as a step that needs a person (dispatched, with the error as reason).
Result<DispatchOutcome> DispatchAutonomous(store::StateStore& store,
                                           const config::Workspace& workspace,
                                           const AutonomousStep& step, StepRunner& runner,
                                           const Clock& clock);

// ---------------------------------------------------------------------------------------------
// Verification after the owner's fix, and the receipt written when an incident resolves.

// One thing a verification looks at: a metric back inside its band (or against a stated value),
// or a check passing. Read from a verification_plan proposal's items ({kind, name, op, value,
// threshold}) or from the incident's own signals.
struct VerificationTarget {
  std::string kind;    // "metric" or "check"
  std::string metric;  // metric: the series; a workspace monitor of that name is re-evaluated
                       // (its SQL runs now and the point is stored), any other series is judged
                       // on its latest stored point
  std::string table;   // check: the table's asset id (table://main/member_balances)
  std::string check;   // check: the check's name ("not_null:balance"); "" for every check of it
  std::string op = "in_band";    // metric: "in_band" (the detector's band), "==", "<=", ">="
  std::optional<double> value;   // metric: what op compares the new value with
  std::string threshold;         // the plan's sentence for it, when it came from a plan
};

struct VerificationTargets {
  // Where the items came from: "proposal <id> v<n>" (the incident's verification_plan proposal)
  // or "the signals that opened <incident>" when no verification plan is stored.
  std::string source;
  std::vector<VerificationTarget> items;
};

// The plan for incident `incident`: the items of its newest verification_plan proposal when one
// is stored, else the metric and check signals the incident holds (never a guessed item).
// kFailedPrecondition when neither gives anything to verify.
Result<VerificationTargets> VerificationTargetsFor(store::StateStore& store,
                                             const incidents::Incident& incident);

struct VerificationTargetResult {
  VerificationTarget item;
  bool passed = false;
  Json observed;   // the measured value(s); fractions as fixed strings (receipts hash them)
  Json threshold;  // the band or threshold used, likewise
  std::string sentence;  // what was found, one sentence
};

struct VerificationOutcome {
  std::string incident_id;
  bool ran = false;     // false when the autonomy gate refused a step (nothing was measured)
  bool passed = false;  // every item passed
  std::string plan_source;
  std::vector<VerificationTargetResult> items;
  std::string summary;   // one sentence
  bool resolved = false; // the incident resolved by verification
  // The data passed but the cause is still live (or could not be checked): the sentence saying
  // what, and the incident stays (or becomes) mitigated instead of resolving. "" otherwise.
  std::string cause_live;
  std::string cause_note;  // what was checked about the cause, when something was
  std::optional<store::ReceiptRecord> receipt;  // written on resolution
  int64_t event_seq = 0; // the recorded verification (or refusal)
};

struct VerifyOptions {
  std::string actor;  // who asked: a person's email (`dw incidents verify`) or "dw (autonomy)"
  // When true (the watch loop at L3 and above), every item is dispatched through
  // DispatchAutonomous as rerun_check / reevaluate_metric, so the stop switch and the domain's
  // autonomy decide whether it runs; a refused item means nothing is concluded.
  bool autonomous = false;
  // Asks Kestra which revision of a flow runs now, so that an incident whose approved fix is a
  // flow change resolves only once that fix (or a later revision) is live. Unset: the cause is not
  // checked, and the outcome says so.
  FlowRevisionReader current_flow_revision;
  // The HTTP client a REST warehouse's re-run checks and monitors call through (BigQuery,
  // Snowflake); without one their items cannot run and say so.
  HttpClient* http = nullptr;
};

// Runs the verification plan of incident `incident_id` now: each metric re-evaluated by the
// existing detector (band recorded), each check re-run by the quality stage (threshold and
// observed value recorded). All pass, and the cause is gone (CheckCauseGone): the incident
// resolves by verification and its receipt is written. All pass but the cause is still live: it
// becomes (or stays) mitigated, a `cause_still_live` event says what is live, and the first time a
// person is asked. Any fails: it stays open, the failure is recorded and a person is asked (an
// attention_requested event naming the domain's owners). Refused and recorded (kNotFound /
// kFailedPrecondition) for an unknown incident or one already resolved or closed. `incident_id`
// may be abbreviated to a prefix one incident alone has (IncidentDesk::Get): everything recorded,
// a refusal included, names the full id. Errors only when the store fails or the incident cannot
// be read (an ambiguous prefix: kInvalidArgument naming the candidates).
Result<VerificationOutcome> VerifyIncident(store::StateStore& store,
                                           const config::Workspace& workspace,
                                           incidents::IncidentDesk& desk,
                                           const std::string& incident_id,
                                           const VerifyOptions& options, const Clock& clock);

// The receipt of a resolved incident, as written: {kind: "incident_resolved", incident (id,
// title, domain, owner, opened_at, resolved_at, resolved_by, how), cause (kind, asset, evidence),
// blast_radius (at the time of writing), proposals (each version's kind, author, status, and
// approvals: who, when, surface, reason), runs (dispatched steps and queued owner runs),
// checks (the last verification's items with observed values and thresholds), undo (each
// proposal's undo: the reverting diff, the savepoints)}. Decisions are read under `trust`; one
// that does not verify is listed under its proposal's rejected_decisions, never as a decision.
// kFailedPrecondition unless resolved.
Result<Json> ResolutionReceiptContent(store::StateStore& store, const DecisionTrust& trust,
                                      incidents::IncidentDesk& desk, const std::string& incident_id,
                                      const Clock& clock);

// Writes the receipt of every resolved incident that has none yet (among the 200 opened last and
// every incident resolved in the last 7 days, however long ago it was opened), so
// a resolution by verification, by a person or by the watch loop's signal pass gets exactly one
// receipt, even after a crash between the two. Each receipt's `resolved` notice (NotifyResolved:
// the alert closed with the receipt's summary and hash) is written in the same transaction, so a
// resolution that has its receipt also has its notification. Returns one line per receipt written.
Result<std::vector<std::string>> WriteResolutionReceipts(store::StateStore& store,
                                                         const config::Workspace& workspace,
                                                         incidents::IncidentDesk& desk,
                                                         const Clock& clock);

// The receipt written for incident `incident_id`, if any.
Result<std::optional<store::ReceiptRecord>> ReceiptOfIncident(store::StateStore& store,
                                                              const std::string& incident_id);
// ---- register_stream_schema (dw-connectors, `dw schema register`): a schema registration is a
// proposal like any other change outside the state store (ARCHITECTURE.md) ----

struct RegisterSchemaRequest {
  std::string subject;
  std::string schema;
  schema::Format format = schema::Format::kAvro;
  std::string proposal_id;  // "": draft (or show) the proposal; else register the approved one
  std::string domain;       // whose approvers decide; default the topic asset's domain, or the only one
  std::string actor = "agent:dw-connectors";  // who drafts: never an approver of its own proposal
};

// The proposal kind a registration is drafted as.
inline constexpr const char* kRegistrationKind = "schema_registration";

// Without a proposal id: checks the schema against the subject (refusing a schema the registry
// would refuse: invalid 42201, or incompatible at the subject's level 409), assesses its impact,
// stores the registration as a proposal of the actions stage and sends it for approval; answers
// {registered: false, status: "awaiting_approval", proposal, approval, verdict, impact} and
// writes nothing to the registry. The same draft again answers the stored proposal's state.
// With a proposal id: registers the schema the proposal holds only when its newest version is
// approved and the approval request has not expired; writes a receipt with the registry's
// answer (id and version, or its error); answers {registered, status, id?, version?, receipt}.
// kFailedPrecondition (nothing written) for a proposal that is pending, denied, expired or not a
// registration; kNotFound for an unknown one.
Result<Json> RegisterStreamSchema(const RegisterSchemaRequest& request, store::StateStore& store, const config::Workspace& workspace,
                                  const config::PlatformConfig& registry, net::HttpClient& http, const graph::ContextGraph* graph,
                                  const Clock& clock);

// ---------------------------------------------------------------------------------------------
// Agents' writes: every MCP tool call that may change stored state is recorded, before it runs,
// with who made it, so nothing an agent wrote is unattributed.

struct AgentWrite {
  std::string agent;    // the MCP server (dw-incidents, ...)
  std::string client;   // the client's declared name ("" when it gave none)
  std::string session;  // the session's label (not its transport id)
  std::string tool;     // the tool called
  Json arguments;       // as called; kept whole up to 4,000 characters of JSON, else cut and marked
};

// The action-log subject agent writes are recorded under.
inline constexpr const char* kAgentWritesSubject = "agent_writes";

// Appends a `tool_call` event (subject kAgentWritesSubject, actor "agent:<agent>") with the
// client, session, tool and arguments; returns its seq. The store's error when it cannot be
// written: the caller then must not run the tool.
Result<int64_t> RecordAgentWrite(store::StateStore& store, const Clock& clock, const AgentWrite& write);

}  // namespace dw::actions
