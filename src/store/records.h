// The records the state store keeps, one struct per table. Times are Unix milliseconds in storage
// (BIGINT columns) and TimePoint here; JSON fields are stored as JSON text.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "base/clock.h"
#include "base/json.h"

namespace dw::store {

// Outcome of one quality check.
enum class CheckStatus { kPass, kFail, kError };

// Returns "pass", "fail" or "error".
const char* CheckStatusName(CheckStatus status);
// Parses a name written by CheckStatusName; nullopt for anything else.
std::optional<CheckStatus> ParseCheckStatus(const std::string& name);

// One check run against one table (a row of check_results).
struct CheckResultRow {
  int64_t id = 0;          // assigned by the store; ignored when recording
  std::string run_id;      // groups the checks of one run; must not be empty
  std::string table_ref;   // e.g. "main.loyalty.member_balances"; must not be empty
  std::string check_name;  // e.g. "not_null(member_id)"
  CheckStatus status = CheckStatus::kPass;
  Json observed;   // what the check measured (any JSON)
  Json threshold;  // what it was compared with (any JSON)
  int64_t rows_scanned = 0;  // -1 when the warehouse cannot say (a custom query)
  int64_t duration_ms = 0;
  std::string message;
  TimePoint observed_at;
  int64_t seq = 0;  // the commit sequence the store stamped (StateStore::CommittedSeq); ignored when recording
};

// One sample of a metric series; (metric, ts) is unique.
struct MetricPoint {
  TimePoint ts;
  double value = 0;  // finite
};

// A range of a metric's points a person marked expected: the detector learns them as normal
// instead of judging them (a holiday, a planned migration, a new level that is right).
struct MetricMark {
  int64_t id = 0;  // assigned by the store; ignored when adding
  std::string metric;  // must not be empty
  TimePoint from;      // first marked time, inclusive
  TimePoint to;        // last marked time, inclusive; from <= to
  std::string note;    // why, in the person's words ("" when none given)
  TimePoint created_at;  // set by the store
  // Who made it: the person (`dw monitor mark --as`, an incident closed as expected by them).
  // Required when adding; "" only on marks stored before migration 16 recorded it.
  std::string author;
};

// Something that changed on a platform (a restore, a deploy, an execution, a schema version).
struct ChangeEvent {
  int64_t id = 0;         // assigned by the store; ignored when adding
  std::string dedup_key;  // the same change seen twice has the same key; must not be empty
  std::string asset_id;   // canonical id, e.g. "flink://flink/points-balance"
  std::string kind;       // e.g. "restore", "deploy", "execution"
  TimePoint happened_at;
  TimePoint observed_at;
  Json evidence;
  double risk = 0;  // finite
  std::string reason;
  int64_t seq = 0;  // the commit sequence the store stamped (StateStore::CommittedSeq); ignored when adding
};

// A node of the context graph.
struct GraphAsset {
  std::string id;  // canonical id, <kind>://<instance>/<name>
  std::string kind;
  std::string domain;
  std::string owner;
  Json attrs = Json::object();
  TimePoint updated_at;  // set by the store on write
};

// A directed edge of the context graph; (src, dst, relation) is unique.
struct GraphEdge {
  std::string src;
  std::string dst;
  std::string relation;  // e.g. "feeds"
  std::string origin;    // where it was learned: "notes", "openlineage", "dbt", "kestra"
  Json attrs = Json::object();
  TimePoint updated_at;  // set by the store on write
};

// A graph row as read by StateStore::ScanAssets / ScanEdges: text views, attrs as JSON text.
struct GraphAssetView {
  std::string_view id, kind, domain, owner, attrs;
};
struct GraphEdgeView {
  std::string_view src, dst, relation, attrs;
};

// An incident; the lifecycle lives in incidents/, the store keeps the latest version.
struct IncidentRecord {
  std::string id;
  std::string status;  // e.g. "open", "resolved"
  std::string title;
  std::string asset_id;  // the damaged asset
  TimePoint opened_at;
  TimePoint updated_at;
  std::optional<TimePoint> closed_at;
  Json body = Json::object();  // everything else the incident stage keeps
};

// One link of the append-only, hash-chained receipt log; hashes are computed by the caller.
struct ReceiptRecord {
  int64_t seq = 0;        // 1, 2, ... assigned by the store
  std::string prev_hash;  // hash of the previous receipt, "" for the first
  std::string hash;
  std::string body;      // exactly the bytes that were hashed
  TimePoint written_at;  // set by the store
};

// A person's public key for signed decisions (actions/); the private key is never stored.
struct PersonKeyRecord {
  std::string email;
  std::string public_key_pem;  // Ed25519, SubjectPublicKeyInfo PEM
  TimePoint issued_at;
};

// One version of a proposal; immutable once stored (a change is a new version).
struct ProposalRecord {
  std::string id;
  int64_t version = 0;  // 1, 2, ...
  std::string incident_id;
  std::string kind;  // hold, flink_deployment_diff, kestra_flow_diff, run_plan, verification_plan, ...
  Json body = Json::object();  // everything else the action stage keeps
  TimePoint created_at;        // set by the store
};

// One event of the action stage's append-only log: a request, decision, refusal, expiry,
// escalation, stop or lift. The state of an approval is computed from these.
struct ActionEventRecord {
  int64_t seq = 0;  // assigned by the store
  TimePoint at;
  std::string kind;
  std::string subject;  // e.g. "proposal:P-1", "stop-switch"
  std::string actor;
  std::string nonce;  // "" or a decision's nonce, unique across the log (replays are refused)
  Json body = Json::object();
};

// One notification in the outbox: written before it is sent, so a crash between the decision and
// the delivery loses nothing. Unique by (incident_id, channel, event). platforms/notify/ owns the
// meaning of `payload` and `answer`; the store only keeps them.
struct OutboxMessage {
  int64_t id = 0;                  // assigned by the store
  std::string incident_id;
  std::string channel;             // the workspace's channel name under notify:
  std::string event;               // e.g. "open", "severity_raised:SEV1", "resolved"
  Json payload = Json::object();   // what to send (never a secret)
  std::string state = "pending";   // pending | sent | failed
  int attempts = 0;
  TimePoint next_attempt_at;       // a pending message is due from then
  std::string last_error;          // the last failed attempt's error, "" when none
  Json answer = Json::object();    // what the service answered (request id, message ts, ...)
  TimePoint created_at;            // set by the store
  TimePoint updated_at;            // set by the store
};

}  // namespace dw::store
