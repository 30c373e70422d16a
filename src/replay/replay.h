// The replay stage's front door: a scenario (SCENARIOS.md, docs/scenarios.md) read from its folder
// and played against the real product. One simulated clock moves from the scenario's start to its
// end, stopping at every moment something is due (an event's `at`, a `dw watch` job's due time);
// the simulators (dw-sim child processes on free loopback ports) are told the same time before
// anything reads them; the world's events are applied; and at the end every expectation is
// checked against what the product concluded (its incidents, diagnosis, change timeline and MCP
// tools), never against the scenario itself.
//
// The replay knows the product only through ReplayProduct, which the surface that wires every
// stage together (app/) implements with the same jobs `dw watch` runs and the same MCP dispatch
// the agents serve: replay/ sits before mcp/, agents/ and app/ in the include order.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "actions/actions.h"
#include "base/clock.h"
#include "base/json.h"
#include "base/status.h"
#include "incidents/incidents.h"
#include "observe/watch/watch_loop.h"
#include "store/state_store.h"

namespace dw::replay {

// ---- The scenario, as scenario.yaml says it (every `line` is 1-based in scenario.yaml). ----

struct SqlStep {
  std::string warehouse;              // a warehouse of the scenario's workspace
  std::filesystem::path sql_file;     // absolute; empty when sql_inline is used
  std::string sql_inline;
  std::string user;  // `user:`: who the warehouse records as running it (a simulated warehouse's history)
};

struct SetupStep {
  SqlStep sql;
  int line = 0;
};

struct HistoryStep {
  std::string metric;
  std::filesystem::path csv;  // absolute; rows "timestamp,value"
  int line = 0;
};

struct MetricPointEvent {
  std::string name;
  double value = 0;
};

struct PersonEvent {
  std::string as;        // the person's e-mail
  std::string does;      // approve | deny | acknowledge | resolve | fix
  std::string proposal;  // approve/deny: the proposal kind (e.g. hold)
  std::string incident;  // optional: an incident id or an asset the incident is on
  std::string reason;
};

struct FileEvent {
  std::string path;            // relative to the workspace folder
  std::filesystem::path from;  // absolute (given relative to the scenario folder)
};

struct Event {
  TimePoint at;
  std::string system;  // the printed timeline's System column
  std::string says;    // the printed timeline's "What happens" column
  std::optional<SqlStep> sql;
  std::optional<MetricPointEvent> metric;
  std::optional<PersonEvent> person;
  std::optional<FileEvent> file;
  std::filesystem::path openlineage;  // absolute JSON-lines file; empty when none
  int line = 0;
};

struct CauseExpectation {
  std::vector<std::string> kinds;  // any of them counts; empty: any kind
  std::string asset;               // empty: any asset
  std::vector<std::string> evidence_contains;
};

struct IncidentExpectation {
  std::string asset;  // one of the incident's damaged assets
  std::optional<TimePoint> opened_by;
  std::optional<CauseExpectation> cause;         // ranked first
  std::optional<CauseExpectation> second_cause;  // ranked second
  std::vector<std::string> ranked_below_cause;   // assets: if ranked at all, below the first
  std::vector<std::string> blast_radius_includes;
  // Added keys (docs/scenarios.md): signal sources the incident must hold ("metric:<name>",
  // "check:<table>:<check>", "change:..."; a prefix matches), and impact_sql counts of the
  // diagnosis' blast radius that must fall within bounds ("about 61,000 members in reach").
  std::vector<std::string> holds;
  struct Impact {
    std::string asset;
    std::optional<int64_t> at_least, at_most;
  };
  std::vector<Impact> impact;
  std::string severity;  // empty: not checked
  std::optional<std::pair<std::string, TimePoint>> acts_next;  // asset, at
  // The actions stage's keys (proposals, approvals, verification, receipts).
  std::vector<std::string> proposals;
  std::optional<bool> verified;
  std::optional<bool> receipt;
};

struct NoIncidentExpectation {
  std::string asset;  // empty: no incident at all
};

struct ChangeExpectation {
  std::string kind;
  std::string asset;
  bool present = true;
};

struct ToolExpectation {
  std::string agent;
  std::string name;
  Json arguments = Json::object();
  std::vector<std::string> result_contains;
  std::vector<std::string> result_excludes;
};

// Messages a notification receiver (a scenario's `receivers:`) accepted, checked against what the
// receiver recorded, never against the product's outbox.
struct MessageExpectation {
  std::string channel;             // a channel with a receiver
  std::string event;               // open, approval_requested, ...; empty: any event
  std::optional<int> count;        // exactly this many; unset: at least one
  std::vector<std::string> contains;  // each in every counted message's text
  std::vector<std::string> to, cc;    // each named as a recipient / copied in every counted message
};

// The alerts an Opsgenie or PagerDuty receiver holds at the end of the replay.
struct AlertExpectation {
  std::string channel;  // opsgenie or pagerduty, with a receiver
  std::string state;    // opsgenie: open | closed; pagerduty: triggered | acknowledged | resolved
  std::optional<int> count;  // exactly this many alerts in that state; unset: at least one
  std::vector<std::string> note_contains;  // opsgenie: each in a note of every such alert
};

struct Expectation {
  int line = 0;
  std::string text;  // the expectation in one line, for verdicts ("incident on table://main/x")
  std::optional<IncidentExpectation> incident;
  std::optional<NoIncidentExpectation> no_incident;
  std::optional<ChangeExpectation> change;
  std::optional<ToolExpectation> tool;
  std::optional<MessageExpectation> message;
  std::optional<AlertExpectation> alert;
};

// A notification receiver the replay starts (dw-sim slack|teams|opsgenie|pagerduty|smtp) for the
// workspace channel of the same name: its dw-sim script, as a file or written inline.
struct ReceiverSpec {
  std::filesystem::path script;  // absolute; empty when inline
  Json inline_script;            // the inline script (an object) when `script` is empty
  int line = 0;
};

// A row of the seed page's own table, and the words of this replay's timeline that tell the same
// moment (`ours`: a substring of a row; empty when the product has no counterpart), so the report
// can print their time beside ours.
struct SeedRow {
  TimePoint at;
  std::string system;
  std::string what;
  std::string ours;
  int line = 0;
};

struct Scenario {
  std::filesystem::path dir;   // absolute scenario folder
  std::filesystem::path file;  // its scenario.yaml
  int version = 1;
  std::string name;
  std::string story;
  std::filesystem::path workspace;  // absolute
  int workspace_line = 0;
  TimePoint start, end;
  std::vector<SetupStep> setup;
  std::vector<HistoryStep> history;
  std::map<std::string, std::filesystem::path> platforms;  // workspace platform -> dw-sim script
  std::map<std::string, int> platform_lines;
  // `warehouses:`: workspace warehouse -> dw-sim script, for a warehouse reached over an API
  // (snowflake), served by its simulator with a key pair the replay makes.
  std::map<std::string, std::filesystem::path> warehouses;
  std::map<std::string, int> warehouse_lines;
  std::map<std::string, ReceiverSpec> receivers;  // workspace notify channel -> its receiver
  std::vector<Event> events;
  std::vector<Expectation> expect;
  std::string seed_page;               // seed_timeline.page: where the seed rows come from
  std::vector<SeedRow> seed_timeline;  // optional (docs/scenarios.md)
};

// Reads `dir`/scenario.yaml. Every malformed input, missing file, time out of order or outside
// the clock fails with kInvalidArgument "<file>:<line>: <key>: <what is wrong>". Checks that need
// the workspace (its platforms and warehouses) are made by Replay, with the same message shape.
Result<Scenario> ReadScenario(const std::filesystem::path& dir);

// ---- What the replay needs from the product (implemented by app/). ----

// The product as one `dw watch` process runs it, built over a workspace folder and the replay's
// simulated clock.
class ReplayProduct {
 public:
  virtual ~ReplayProduct() = default;
  // Adds every job `dw watch` runs (monitors on their every:, checks, collection passes, the
  // incidents stage's signal evaluation) to `loop`, each writing its one-line log to `log`.
  virtual Status AddWatchJobs(observe::watch::WatchLoop& loop, std::function<void(std::string)> log) = 0;
  // The state store the product writes (opened on first use).
  virtual Result<store::StateStore*> State() = 0;
  // The product's incidents whose damaged assets or root include `asset_id` ("" for all), newest
  // first, as `dw incidents list` reads them (the incident desk over the same store and clock).
  virtual Result<std::vector<incidents::Incident>> Incidents(const std::string& asset_id) = 0;
  // The desk's diagnosis of incident `id` at the clock's now, as diagnose_incident answers it.
  virtual Result<incidents::Diagnosis> Diagnose(const std::string& id) = 0;
  // Posts OpenLineage events (JSON lines) to the intake as `dw serve` would receive them: one
  // request per line. Fails naming the first line the intake refused.
  virtual Status PostOpenLineage(const std::string& jsonl) = 0;
  // Calls tool `name` of `agent` through the real MCP dispatch (initialize, tools/call) and
  // returns the tools/call result (structuredContent, content, isError).
  virtual Result<Json> CallTool(const std::string& agent, const std::string& name, const Json& arguments) = 0;
  // Carries out a person's action as the CLI would, with the same identity checks. kUnimplemented
  // is never returned silently: an action the product cannot carry out yet is a FailedPrecondition
  // naming what is missing.
  virtual Status PersonAction(const PersonEvent& action, TimePoint at) = 0;
};

// `person_keys`: the key the replay issued each person who decides in the scenario (email -> key),
// declared in the workspace copy's people:; the product stores the public half when the person
// first decides and signs with the private half, as `dw keys issue` and `dw approve` do.
using ProductFactory = std::function<Result<std::unique_ptr<ReplayProduct>>(
    const std::filesystem::path& workspace_dir, const Clock& clock,
    const std::map<std::string, actions::IssuedKey>& person_keys)>;

struct ReplayOptions {
  std::filesystem::path sim_binary;  // dw-sim (built beside dw)
  ProductFactory product;
  // The scratch folder the workspace is copied into (empty: a new folder under the system's
  // temporary directory, removed afterwards).
  std::filesystem::path scratch;
  bool keep_scratch = false;
};

// ---- What a replay reports. ----

struct TimelineRow {
  TimePoint at;
  std::string system;
  std::string what;
  bool product = false;  // a row of Data Workers' own actions (not the world's)
};

struct Verdict {
  std::string expectation;  // Expectation::text
  int line = 0;
  bool ok = false;
  std::string detail;  // "ok", or what was expected and what was seen
  // Incident expectations: when the incident opened, and where the diagnosis ranks the expected
  // cause (1-based; 0: not among the candidates at all, which is not the same as ranked second;
  // -1: not judged, e.g. no incident or no cause expected).
  std::optional<TimePoint> opened_at;
  int cause_rank = -1;
};

// One seed-page row beside the first timeline row of this replay that holds its `ours` words.
struct SeedComparison {
  SeedRow seed;
  std::optional<TimePoint> ours;  // unset: no row of this replay holds the words
  std::string ours_row;           // that row's text
};

struct ReplayReport {
  std::string scenario;
  std::vector<TimelineRow> rows;
  std::string seed_page;
  std::vector<SeedComparison> seed;  // the scenario's seed_timeline, compared
  std::vector<Verdict> verdicts;
  std::vector<std::string> errors;  // problems met while replaying (a job that failed, ...)
  std::vector<std::string> log;     // the `dw watch` jobs' own one-line logs, in order
  int64_t wall_ms = 0;
  bool passed() const;
  // The seed pages' table, then one line per verdict.
  std::string ToText() const;
  Json ToJson() const;
};

// Replays `scenario`: copies its workspace to a scratch folder with the platforms it names
// pointed at freshly started simulators and the state store inside the scratch folder (the
// user's files are never edited), runs setup and history, drives the clock, checks expectations.
// kInvalidArgument (with file:line:key) when the scenario does not fit its workspace (unknown
// platform or warehouse); kUnavailable when a simulator cannot start; other errors when the
// product cannot be built. A failed expectation is a verdict, not an error.
Result<ReplayReport> Replay(const Scenario& scenario, const ReplayOptions& options);

}  // namespace dw::replay
