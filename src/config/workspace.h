// The workspace: a folder with dataworkers.yaml, the user's contract with Data Workers.
// LoadWorkspace parses the file, substitutes ${ENV} references, and validates every key,
// reporting all problems at once with file:line and the key path.
#pragma once

#include <chrono>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/json.h"
#include "base/status.h"
#include "config/watch_settings.h"

namespace dw::config {

inline constexpr const char* kWorkspaceFileName = "dataworkers.yaml";

struct WarehouseConfig {
  std::string name;  // key under warehouses:
  std::string type;  // "sqlite" | "postgres" | "bigquery" | "snowflake"
  std::string path;  // sqlite: absolute path (resolved against the workspace folder)
  std::string dsn;   // postgres: libpq connection string (may hold a secret: never print it whole)
  // bigquery: the project jobs run in and tables default to, the jobs' location ("US", "EU",
  // "europe-west1"), the path of a service-account JSON key, and endpoints for private access
  // or the simulator (default Google's).
  std::string project;
  std::string location;
  std::string credentials;
  std::string api_url;  // bigquery and snowflake
  std::string token_url;
  // snowflake: the account identifier (orgname-accountname, or the locator with its region), the
  // user whose registered public key signs in, the path of that user's PKCS#8 private key, the
  // database every check table is in, the schema a table reference without one is in (PUBLIC),
  // and the virtual warehouse and role statements run with (the user's defaults when empty).
  std::string account;
  std::string user;
  std::string private_key;
  std::string database;
  std::string default_schema;
  std::string compute_warehouse;
  std::string role;
  std::optional<int64_t> max_scan_rows;  // a run may read at most this many rows here (estimated)
  // bigquery: a run may bill at most this many bytes here (priced by dry runs before anything runs),
  // and each statement at most max_bytes_billed (maximumBytesBilled on every job).
  std::optional<int64_t> max_scan_bytes;
  std::optional<int64_t> max_bytes_billed;
  std::chrono::milliseconds query_timeout{std::chrono::minutes(5)};  // per statement
};

struct PlatformConfig {
  std::string name;  // key under platforms:
  std::string type;  // "flink" | "kestra" | "kafka-connect" | "schema-registry"
  std::string url;
  std::string tenant;    // kestra only; default "main"
  std::string username;  // basic auth (secret-bearing fields are registered with RegisterSecret)
  std::string password;
  std::string token;     // bearer auth
  std::string manifests;  // flink: optional folder of FlinkDeployment YAML (absolute)
  std::chrono::milliseconds timeout{std::chrono::seconds(10)};  // per request; `timeout:` key
};

struct DomainConfig {
  std::string name;
  std::string autonomy = "L1";  // L0..L4
  std::vector<std::string> owners;
  std::vector<std::string> approvers;
  std::vector<std::string> escalate_to;
  std::string approval_ttl = "2h";
};

// `people.<email>`: a person the workspace vouches for. Their decision keys are trusted because
// their fingerprints are declared here, in the file people review changes to (Git), never because
// a row of the state store says so.
struct PersonConfig {
  std::string email;
  std::vector<std::string> keys;  // "sha256:<64 hex>" of each public key PEM they decide with
};

struct AssetNote {
  std::string id;  // canonical id, <kind>://<instance>/<name>
  std::string domain;
  std::string owner;
  std::vector<std::string> reads;
  std::vector<std::string> writes;
  std::string schedule;  // cron, workspace time zone; empty when none
  bool customer_facing = false;
  std::vector<std::string> tags;
  std::string impact_sql;
  std::string notes;
  int line = 0;  // line in dataworkers.yaml, for later error messages
};

struct LineageConfig {
  std::string dbt_manifest;  // absolute path or empty
  bool dbt_tests = false;    // the manifest's tests run as checks (observe/quality/dbt_tests.h)
  bool openlineage = false;
  std::string kestra_flows;  // folder of Kestra flow YAML, absolute, or empty
};

// A check block (one table). Typed fields are validated here; the quality stage interprets them.
struct CheckConfig {
  std::string table;      // as written: warehouse.schema.table, warehouse.table or table://...
  std::string warehouse;  // the configured warehouse the table lives in
  std::string asset_id;   // canonical id, table://<warehouse>/<schema>.<table>
  Json spec;  // the whole validated block as JSON (keys as in the workspace)
  int line = 0;
};

// `desk:`: where the desk (the web pages of `dw serve`) is reached and who may vouch for a person.
struct DeskConfig {
  // The desk's base URL as people open it ("https://dw.example.com", no trailing '/'); the
  // approval notification carries signed links under it. Empty: messages say how to decide from
  // the CLI instead.
  std::string url;
  // The reverse proxies (an SSO proxy such as oauth2-proxy) whose X-Forwarded-Email names the
  // person, as validated CIDR ranges ("127.0.0.1/32", "10.0.0.0/8"). Empty: the header is ignored.
  std::vector<std::string> trusted_proxies;
};

struct MonitorConfig {
  std::string name;
  std::string warehouse;
  Json spec;  // the whole validated block as JSON
  int line = 0;
};

// `auto_monitor:`: the automatic monitors of every table (docs/auto-monitors.md).
struct AutoMonitorConfig {
  bool enabled = true;                // `auto_monitor: false` (or `enabled: false`) turns them off
  std::vector<std::string> exclude;   // glob patterns over "<warehouse>.<schema>.<table>" (* and ?)
  std::chrono::milliseconds every{std::chrono::minutes(15)};      // the metadata pass's period
  std::chrono::milliseconds learning{std::chrono::hours(24 * 7)};  // a table's first stretch: learnt, not judged
};

struct Workspace {
  std::filesystem::path dir;   // absolute folder holding dataworkers.yaml
  std::filesystem::path file;  // absolute path of dataworkers.yaml
  int version = 1;
  std::string name;
  std::string timezone = "UTC";
  std::string state;  // absolute path of the SQLite state db, or a postgresql:// URL
  std::map<std::string, WarehouseConfig> warehouses;
  std::map<std::string, PlatformConfig> platforms;
  std::map<std::string, DomainConfig> domains;
  std::map<std::string, PersonConfig> people;  // by email
  std::vector<AssetNote> assets;
  LineageConfig lineage;
  std::vector<CheckConfig> checks;
  std::vector<MonitorConfig> monitors;
  // `metrics.retention`: stored metric points older than this are deleted (a monitor's own
  // `retention:` overrides it for that monitor).
  std::chrono::milliseconds metric_retention{std::chrono::hours(24 * 400)};
  Json notify = Json::object();  // channel name -> settings (secrets substituted)
  DeskConfig desk;
  // `incidents.group_window`: signals sharing a lineage root this close in time join one incident.
  std::chrono::milliseconds incident_group_window{std::chrono::hours(6)};
  // `changes.initial_lookback`: how far back a collector's first pass over a platform (or a
  // warehouse's history) reads; what happened before is the baseline. Default: the diagnosis window.
  std::chrono::milliseconds changes_initial_lookback{std::chrono::hours(24)};
  // `watch.lease_history`: finished job leases and their runs older than this are pruned by
  // `dw watch`; at least kMinLeaseHistory (the loader refuses less).
  std::chrono::milliseconds watch_lease_history{kDefaultLeaseHistory};
  AutoMonitorConfig auto_monitor;
  // `mcp.max_scan_bytes`: the bytes one MCP session's tool calls may bill in all on warehouses
  // that bill by bytes read (BigQuery); a call that would pass it is refused with what the session
  // has spent. None: no session budget (each run's own budgets still apply).
  std::optional<int64_t> mcp_max_scan_bytes;
};

// One problem found in a workspace file.
struct ConfigError {
  std::string file;
  int line = 0;     // 1-based; 0 when unknown
  int column = 0;   // 1-based; 0 when unknown
  std::string path;  // key path, e.g. "warehouses.main.type" or "checks[2].freshness.max_age"
  std::string message;
  // "<file>:<line>:<column>: <path>: <message>"
  std::string ToString() const;
};

struct LoadResult {
  std::optional<Workspace> workspace;  // set iff errors is empty
  std::vector<ConfigError> errors;     // every problem found, in file order

  bool ok() const { return errors.empty(); }
  // Every error's ToString(), one per line.
  std::string ErrorText() const;
};

// Loads and validates `dir`/dataworkers.yaml. `env` looks up environment variables (injectable
// for tests); by default the process environment. Never throws.
LoadResult LoadWorkspace(const std::filesystem::path& dir);
LoadResult LoadWorkspace(const std::filesystem::path& dir,
                         const std::function<std::optional<std::string>(const std::string&)>& env);

// Picks the workspace folder: `flag` if non-empty, else $DW_WORKSPACE, else the current directory;
// returned absolute and normalized. Does not check that the folder exists (LoadWorkspace does).
std::filesystem::path ResolveWorkspaceDir(const std::string& flag);

// The commented template `dw init` writes for workspace `name` (a valid workspace on its own: a
// sqlite warehouse `main` at warehouse.db, one domain, and every other section commented out).
std::string WorkspaceTemplate(const std::string& name);

}  // namespace dw::config
