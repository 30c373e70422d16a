// The action stage's front door (dw::actions): receipts, people's keys and signed decisions,
// approval requests that expire and escalate, autonomy per domain and the stop switch.
//
// The promises this header keeps (ARCHITECTURE.md, "Autonomy, approvals, receipts"):
// - Nothing here deploys, restores, pauses or reruns anything in a team's systems. What may run
//   by itself is limited to reversible steps inside the state store's own world (re-run a check,
//   re-evaluate a metric) and requests queued to the owner.
// - A decision counts only through Decide(), the single identity check: a named person from the
//   approvers of the request, with a signature made by that person's key, never the author,
//   never an agent, never over MCP, never after expiry, never twice, never by default.
// - Every refusal is recorded in the action event log, as is every request, decision, expiry,
//   escalation, stop and lift.
// - Receipts are append-only and hash-chained; VerifyReceiptChain() names the first receipt that
//   does not verify.
//
// Surfaces (app/, agents/, the replay) translate their arguments and call these functions only.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/clock.h"
#include "base/json.h"
#include "base/status.h"
#include "config/workspace.h"
#include "graph/context_graph.h"
#include "net/http_client.h"
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
// previous receipt's hash, and its hash is the SHA-256 of its body. With `expected_head`
// non-empty, the chain must also end at that hash (a truncated chain verifies by itself; a head
// recorded elsewhere catches it). Store errors are errors; a bad chain is a verdict.
Result<ChainVerdict> VerifyReceiptChain(store::StateStore& store,
                                        const std::string& expected_head = "");

// The receipt `seq` (0: the newest); kNotFound when there is none.
Result<store::ReceiptRecord> ShowReceipt(store::StateStore& store, int64_t seq);

// Every receipt as one document: format "json" (an array of {seq, hash, prev_hash, written_at,
// body}, body parsed) or "md" (a readable section per receipt, hashes included).
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

// Writes a private key to `path` readable by its owner only (0600); refuses an existing file.
Status WritePrivateKeyFile(const std::string& path, const std::string& private_key_pem);
// Reads a private key file written by WritePrivateKeyFile.
Result<std::string> ReadPrivateKeyFile(const std::string& path);

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
Result<DecisionOutcome> Decide(store::StateStore& store, const DecisionRequest& request,
                               const Clock& clock);

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

// The token for `link`: "v1.<base64url payload>.<base64url HMAC>". kInvalidArgument for a key
// shorter than 32 bytes.
Result<std::string> SignApprovalLink(const ApprovalLink& link, const std::string& key);

// The link a token carries when its HMAC verifies with `key`; kPermissionDenied ("forged or
// altered") when it does not, kInvalidArgument when it is not a token at all. Does not look at
// the expiry or the store: DecideByLink does.
Result<ApprovalLink> ReadApprovalLink(const std::string& token, const std::string& key);

// A link for `approver` to decide the newest version of `proposal_id`, expiring with its pending
// request (recorded as a "link_issued" event, without the token). kFailedPrecondition when the
// version is not pending or `approver` is not one of its request's approvers or is its author.
Result<std::string> IssueApprovalLink(store::StateStore& store, const std::string& proposal_id,
                                      const std::string& approver, const std::string& key,
                                      const Clock& clock);

// A decision arriving through a signed link on `surface` (the desk: "web").
struct LinkDecision {
  std::string token;
  Verdict verdict = Verdict::kApprove;
  std::string reason;  // required for a denial
  std::string surface = "web";
};

// Decide() with the link as the proof instead of a key's signature: the person, the proposal and
// the version are the link's. Every refusal is recorded, as with Decide.
Result<DecisionOutcome> DecideByLink(store::StateStore& store, const LinkDecision& decision,
                                     const std::string& key, const Clock& clock);

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

struct ApprovalRequestView {
  int64_t round = 0;  // 1 = the domain's approvers; 2 = escalate_to
  std::vector<std::string> approvers;
  TimePoint expires_at;
};

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
};

// Stores `draft` as the next version of its id (version 1 when new). A version that was sent is
// never changed; storing a new one supersedes older versions (a pending request on them lapses).
Result<store::ProposalRecord> StoreProposal(store::StateStore& store, const ProposalDraft& draft,
                                            const Clock& clock);

// The state of `proposal_id` at `version` (0: the newest). kNotFound when unknown.
Result<ProposalState> GetProposalState(store::StateStore& store, const std::string& proposal_id,
                                       int64_t version, const Clock& clock);

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

// A unified diff from `before` to `after` of the file `path` (3 lines of context, headers
// "--- a/PATH" / "+++ b/PATH", "\ No newline at end of file" where it applies); "" when equal.
std::string MakeUnifiedDiff(const std::string& path, const std::string& before,
                            const std::string& after);

// Applies `unified` to `current` with `git apply --check` semantics: every hunk's context and
// removed lines must match `current` exactly at the line the hunk names. Returns the patched
// text; kFailedPrecondition ("conflict: ...", naming the line) when the file no longer matches
// the diff's base, kInvalidArgument for a malformed diff. Never applies with fuzz.
Result<std::string> ApplyUnifiedDiff(const std::string& unified, const std::string& current);

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
};

// The content of a flink_deployment_diff proposal: {file, base_sha256, diff, undo_diff,
// savepoint_redeploy_nonce, redeploy_from_savepoint, hold_bad_release, steps}. The diff is made
// against the manifest as it is on disk now and checked to apply. kFailedPrecondition naming what
// is missing when the platform has no `manifests:` folder, no manifest holds the deployment, or no
// last good savepoint is recorded — never an invented value.
Result<Json> DraftFlinkDeploymentDiff(const config::Workspace& workspace,
                                      const FlinkRedeployInput& input);

// Whether the diff of a drafted diff proposal's `content` (file, diff) still applies to the file
// as it is now; kFailedPrecondition "conflict: ..." when the file changed since the draft.
Status CheckDiffStillApplies(const Json& content);

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

}  // namespace dw::actions
