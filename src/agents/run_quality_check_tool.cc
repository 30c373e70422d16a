// run_quality_check (dw-quality): the workspace's checks on a table, or an inline check in the same
// vocabulary, pushed down to the warehouse as one scan per table.
#include "agents/agents.h"
#include "agents/workspace_guard.h"
#include "workspace/services.h"
#include "base/log.h"
#include "observe/quality/quality_run.h"
#include "config/duration.h"

namespace dw::agents {
namespace {

Json InputSchema() {
  return Json::parse(R"({
    "type": "object",
    "properties": {
      "table": {"type": "string", "minLength": 1, "maxLength": 512,
                "description": "The table: warehouse.schema.table, warehouse.table (SQLite) or table://warehouse/schema.table. Omit to run every configured table."},
      "checks": {"type": "array", "maxItems": 200,
                 "items": {"type": "string", "minLength": 1, "maxLength": 512},
                 "description": "Only these configured checks: a type (not_null, unique, freshness, volume, accepted_values, range, schema, row_count_change, custom) or a name (not_null:balance, custom:negative_balances)."},
      "check": {
        "type": "object",
        "description": "An inline check in the workspace vocabulary (never SQL); needs table.",
        "properties": {
          "time_column": {"type": "string"},
          "not_null": {"type": "array", "items": {"type": "string"}},
          "unique": {"type": "array", "items": {"anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}]}},
          "freshness": {"type": "object", "properties": {"max_age": {"type": "string"}}, "required": ["max_age"]},
          "volume": {"type": "object", "properties": {"min_rows": {"type": "integer", "minimum": 0}, "max_rows": {"type": "integer", "minimum": 0}, "window": {"type": "string"}}},
          "accepted_values": {"type": "object", "additionalProperties": {"type": "array", "items": {"type": ["string", "number", "boolean"]}}},
          "range": {"type": "object", "additionalProperties": {"type": "object", "properties": {"min": {"type": "number"}, "max": {"type": "number"}}}},
          "schema": {"type": "boolean"},
          "row_count_change": {"type": "object", "properties": {"max_drop_pct": {"type": "number", "minimum": 0}, "max_growth_pct": {"type": "number", "minimum": 0}}},
          "pii": {"type": "array", "items": {"type": "string"}}
        },
        "additionalProperties": false
      },
      "since": {"type": "string", "maxLength": 64,
                "description": "Incremental: only rows whose time_column is at or after this timestamp (2026-11-24T14:00:00Z), or this long ago (90m, 1d)."},
      "max_scan_rows": {"type": "integer", "minimum": 0,
                        "description": "Refuse the run if it would scan more rows than this (estimated before anything runs)."},
      "max_scan_bytes": {"type": "integer", "minimum": 0,
                         "description": "Refuse the run if it would bill more bytes than this where a warehouse bills by bytes read (BigQuery; priced by dry runs before anything runs). The workspace's mcp.max_scan_bytes caps what the whole session may bill: a call that would pass it is refused with what the session has spent."}
    },
    "additionalProperties": false
  })");
}

}  // namespace

mcp::ToolSpec RunQualityCheckTool(const std::shared_ptr<workspace::Services>& services) {
  mcp::ToolSpec t;
  t.name = "run_quality_check";
  t.title = "Run quality checks on a table";
  t.description =
      "Runs the workspace's quality checks (not_null, unique, freshness, volume, accepted_values, "
      "range, schema drift, row-count change, custom SQL written in the workspace) on one table or "
      "all configured tables, or an inline check in the same vocabulary. All aggregate checks on a "
      "table run as one SELECT pushed down to the warehouse; failed checks carry up to 10 sample "
      "rows with personal data masked. Read-only towards the warehouse; results are recorded in "
      "the state store. Each check is pass, fail, error (with the warehouse's message) or skipped.";
  t.input_schema = InputSchema();
  t.output_schema = observe::quality::QualityReportSchema();
  // Not read-only: the results it records are evidence later passes judge incidents by (a passing
  // check can let an incident's signal count as back to normal), so each call is attributed.
  t.annotations = {.read_only = false, .destructive = false, .idempotent = false, .open_world = true};
  t.streams = true;  // progress per table
  t.handler = WhenWorkspaceLoaded(services, [services](const Json& args, mcp::ToolCall& call) {
    observe::quality::QualityRequest req;
    req.http = &services->http();
    if (args.contains("table")) req.tables.push_back(args["table"].get<std::string>());
    if (args.contains("checks"))
      for (const Json& c : args["checks"]) req.checks.push_back(c.get<std::string>());
    if (args.contains("check")) req.inline_check = args["check"];
    if (args.contains("max_scan_rows")) req.max_scan_rows = args["max_scan_rows"].get<int64_t>();
    if (args.contains("max_scan_bytes")) req.max_scan_bytes = args["max_scan_bytes"].get<int64_t>();
    if (args.contains("since")) {
      Result<TimePoint> since =
          config::ParseTimeOrAgo("since", args["since"].get<std::string>(), services->clock().Now());
      if (!since.ok()) return mcp::ToolResult::Error(since.status().message());
      req.since = *since;
    }
    // The session's budget (mcp.max_scan_bytes): the run may bill at most what is left of it.
    const std::optional<int64_t> session_cap = services->workspace().mcp_max_scan_bytes;
    const std::string session = call.Caller().session;
    workspace::SessionScanBudget& budget = services->session_scan_budget();
    const std::optional<int64_t> left = budget.Remaining(session, session_cap);
    if (left && *left == 0) return mcp::ToolResult::Error("refused: " + budget.Said(session, *session_cap));
    const bool session_bound = left && (!req.max_scan_bytes || *req.max_scan_bytes >= *left);
    if (session_bound) req.max_scan_bytes = *left;
    Result<store::StateStore*> store = services->state();
    if (!store.ok()) {
      return mcp::ToolResult::Error("the state store cannot be opened, so results would be lost: " +
                                    RedactSecrets(store.status().message()));
    }
    observe::quality::QualityProgress progress = [&call](size_t done, size_t total,
                                                const observe::quality::TableReport& table) {
      call.Progress(static_cast<double>(done), static_cast<double>(total), "checked " + table.asset_id);
    };
    Result<observe::quality::QualityReport> report =
        observe::quality::RunQuality(services->workspace(), *store, services->clock(), req, progress);
    if (!report.ok()) {
      std::string message = report.status().message();
      if (session_bound && report.status().code() == StatusCode::kResourceExhausted)
        message += "; its budget is what is left of the session's: " + budget.Said(session, *session_cap);
      return mcp::ToolResult::Error(RedactSecrets(message));
    }
    int64_t billed = 0;
    for (const observe::quality::TableReport& t : report->tables) billed += t.bytes_billed.value_or(0);
    budget.Spend(session, billed);
    return mcp::ToolResult::Structured(Json::parse(RedactSecrets(report->ToJson().dump())));
  });
  return t;
}

}  // namespace dw::agents
