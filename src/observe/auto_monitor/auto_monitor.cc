#include "observe/auto_monitor/auto_monitor.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "base/identifiers.h"
#include "base/time_text.h"
#include "observe/auto_monitor/auto_series.h"
#include "observe/auto_monitor/table_state.h"
#include "observe/metrics/metric_service.h"
#include "store/table_watch_states.h"
#include "warehouse/backends.h"
#include "warehouse/table_catalog.h"

namespace dw::observe::auto_monitor {
namespace {

using ColumnList = std::vector<std::pair<std::string, std::string>>;

struct ColumnDiff {
  std::vector<std::string> added, removed, retyped;
  size_t breaking() const { return removed.size() + retyped.size(); }
  bool empty() const { return added.empty() && removed.empty() && retyped.empty(); }
  std::string Text() const {
    std::string out;
    auto list = [&](const char* what, const std::vector<std::string>& names) {
      if (names.empty()) return;
      out += (out.empty() ? "" : "; ") + std::string(what) + ": ";
      for (size_t i = 0; i < names.size(); ++i) out += (i ? ", " : "") + names[i];
    };
    list("removed", removed);
    list("retyped", retyped);
    list("added", added);
    return out;
  }
};

ColumnDiff DiffColumns(const ColumnList& before, const ColumnList& now) {
  ColumnDiff d;
  std::map<std::string, std::string> old(before.begin(), before.end()), cur(now.begin(), now.end());
  for (const auto& [name, type] : before) {
    auto it = cur.find(name);
    if (it == cur.end()) d.removed.push_back(name);
    else if (it->second != type) d.retyped.push_back(name + " " + type + " -> " + it->second);
  }
  for (const auto& [name, type] : now)
    if (!old.count(name)) d.added.push_back(name + " " + type);
  return d;
}

std::string WithThousands(int64_t n) {
  std::string digits = std::to_string(n < 0 ? -n : n), out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return (n < 0 ? "-" : "") + out;
}

// RFC 3339 to the second (a pass's time is known to its period, never to the millisecond).
std::string TimeText(int64_t ms) {
  TextTimeStyle style;
  style.zone_suffix = "Z";
  return FormatTimestamp(ms, style);
}

// The rows a load wrote, from the counters before and after it; nullopt when they cannot say
// (PostgreSQL's counters reset: the pass starts counting again).
std::optional<int64_t> RowsWritten(const TableState& before, const warehouse::CatalogTable& now) {
  if (before.inserted && now.rows_inserted && before.updated && now.rows_updated && before.deleted &&
      now.rows_deleted) {
    int64_t d = (*now.rows_inserted - *before.inserted) + (*now.rows_updated - *before.updated) +
                (*now.rows_deleted - *before.deleted);
    if (*now.rows_inserted < *before.inserted || *now.rows_updated < *before.updated ||
        *now.rows_deleted < *before.deleted)
      return std::nullopt;
    return d;
  }
  if (before.row_count && now.row_count) {
    int64_t d = std::llabs(*now.row_count - *before.row_count);
    if (d > 0) return d;
    // SQLite's max(rowid) moved with the count unchanged: rows replaced, as many as it moved.
    auto max_rowid = [](const std::string& token) -> std::optional<int64_t> {
      size_t slash = token.find('/');
      if (slash == std::string::npos) return std::nullopt;
      try {
        return std::stoll(token.substr(slash + 1));
      } catch (...) {
        return std::nullopt;
      }
    };
    auto a = max_rowid(before.token), b = max_rowid(now.change_token);
    if (a && b && *b > *a) return *b - *a;
    return 0;
  }
  return std::nullopt;
}

// What the workspace declares on `asset_id`: "checks: not_null, unique", "monitor: orders_per_hour".
std::vector<std::string> DeclaredOn(const config::Workspace& ws, const std::string& asset_id) {
  std::vector<std::string> out;
  for (const auto& c : ws.checks) {
    if (c.asset_id != asset_id) continue;
    std::string keys;
    for (const auto& [key, value] : c.spec.items()) {
      if (key == "table" || key == "time_column" || key == "partition_column" || key == "warehouse") continue;
      keys += (keys.empty() ? "" : ", ") + key;
    }
    out.push_back("checks: " + keys);
  }
  for (const auto& m : ws.monitors) {
    auto s = metrics::SettingsFromMonitor(m);
    if (s.ok() && s->asset_id == asset_id) out.push_back("monitor: " + m.name);
  }
  return out;
}

// The table's verdict at `now_ms` from what the pass saw (schema diff of this pass, the volume
// judgement of a load seen by it), in the order a person needs it.
void Judge(TableState& s, const LoadCadence& cadence, int64_t learning_until, int64_t now_ms,
           const config::TimeZone& zone, const ColumnDiff* schema_change,
           const std::optional<metrics::MetricJudgement>& volume) {
  s.verdict_at_ms = now_ms;
  const bool loaded = !s.changes.empty();
  const int64_t last = loaded ? s.changes.back() : 0;
  s.lateness.reset();
  if (cadence.kind != CadenceKind::kUnknown && loaded) s.lateness = Lateness(cadence, last, now_ms, zone);
  if (s.gone) {
    s.verdict = "gone";
    s.sentence = "no longer in the catalog (dropped or renamed); last seen " + TimeText(s.last_pass_ms);
    return;
  }
  if (now_ms < learning_until) {
    s.verdict = "learning";
    s.sentence = "learning until " + TimeText(learning_until) + ": " + std::to_string(s.changes.size()) +
                 " load(s) seen" + (cadence.kind == CadenceKind::kUnknown ? "" : ", cadence so far " + cadence.text) +
                 "; nothing is judged before then";
    return;
  }
  if (schema_change != nullptr && schema_change->breaking() > 0) {
    s.verdict = "schema_changed";
    s.sentence = "columns changed since the last pass (" + schema_change->Text() + ")";
    return;
  }
  if (s.lateness && *s.lateness > kLateAfter) {
    s.verdict = "late";
    char ratio[32];
    std::snprintf(ratio, sizeof ratio, "%.1f", *s.lateness);
    s.sentence = "late: no load since " + TimeText(last) + " (" + SpanText(now_ms - last) + " ago); loads " +
                 cadence.text + ", the next was due " + TimeText(NextDue(cadence, last, zone)) + " (" + ratio +
                 " cadences since the last load; late above 1.5)";
    return;
  }
  if (volume && metrics::IsAlarm(volume->latest.kind)) {
    s.verdict = "volume_anomaly";
    s.sentence = "the last load's volume is abnormal: " + volume->latest.explanation;
    return;
  }
  if (!loaded) {
    s.verdict = "no_loads_seen";
    s.sentence = "no change seen since it was first seen at " + TimeText(s.first_seen_ms) +
                 " (a static table, or one the catalog's counters do not follow)";
    return;
  }
  if (cadence.kind == CadenceKind::kUnknown) {
    s.verdict = "no_cadence";
    s.sentence = std::to_string(s.changes.size()) + " load(s) seen, the last at " + TimeText(last) +
                 ": too few to learn a cadence, so it is never called late";
    return;
  }
  s.verdict = "on_time";
  s.sentence = "last load " + TimeText(last) + " (" + SpanText(now_ms - last) + " ago), loads " + cadence.text +
               ", next due " + TimeText(NextDue(cadence, last, zone)) +
               (schema_change != nullptr && !schema_change->empty() ? "; columns " + schema_change->Text() : "");
}

struct TableRefs {
  std::string asset_id;
  std::string name;
};

TableRefs RefsOf(const config::WarehouseConfig& wh, const warehouse::TableId& id) {
  const bool schemas = warehouse::NamesTablesWithSchemas(wh.type);
  TableRef ref{wh.name, schemas ? id.schema : "", id.table};
  return {ref.AssetIdString(), wh.name + "." + ref.QualifiedName()};
}

// The monitors a table's metadata allows.
std::vector<std::string> MonitorsOf(const TableState& s) {
  std::vector<std::string> out;
  if (!s.view && !s.token.empty()) out = {"volume", "freshness"};
  if (s.columns) out.push_back("schema");
  return out;
}

WatchedTable ToWatched(const config::Workspace& ws, const std::string& warehouse, const std::string& asset_id,
                       const std::string& name, const TableState& s, int64_t now_ms, const config::TimeZone& zone) {
  WatchedTable t;
  t.asset_id = asset_id;
  t.warehouse = warehouse;
  t.name = name;
  t.view = s.view;
  t.gone = s.gone;
  t.monitors = MonitorsOf(s);
  t.row_count = s.row_count;
  t.row_count_exact = s.row_count_exact;
  t.first_seen_ms = s.first_seen_ms;
  t.learning_until_ms = s.first_seen_ms + ws.auto_monitor.learning.count();
  t.learning = now_ms < t.learning_until_ms;
  t.loads_seen = s.changes.size();
  if (!s.changes.empty()) t.last_load_ms = s.changes.back();
  t.rows_last_load = s.rows_last_load;
  t.cadence = LearnCadence(s.changes, s.first_seen_ms, s.last_pass_ms, zone);
  t.lateness = s.lateness;
  if (t.cadence.kind != CadenceKind::kUnknown && t.last_load_ms) t.next_due_ms = NextDue(t.cadence, *t.last_load_ms, zone);
  t.verdict = s.verdict;
  t.sentence = s.sentence;
  t.verdict_at_ms = s.verdict_at_ms;
  t.declared = DeclaredOn(ws, asset_id);
  return t;
}

}  // namespace

bool GlobMatches(const std::string& pattern, const std::string& name) {
  // Iterative wildcard match with backtracking to the last '*'.
  size_t p = 0, n = 0, star = std::string::npos, mark = 0;
  while (n < name.size()) {
    if (p < pattern.size() && (pattern[p] == '?' || pattern[p] == name[n])) {
      ++p;
      ++n;
    } else if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      mark = n;
    } else if (star != std::string::npos) {
      p = star + 1;
      n = ++mark;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

Result<PassReport> RunAutoMonitorPass(const config::Workspace& ws, store::StateStore& store, const Clock& clock,
                                      const PassOptions& options) {
  PassReport report;
  if (!ws.auto_monitor.enabled) return report;
  store::TableWatchStates* states = store::TableWatchStatesOf(store);
  if (states == nullptr) return FailedPrecondition("this state store keeps no table states: automatic monitors need one");
  const int64_t now = ToUnixMillis(clock.Now());
  const config::TimeZone zone = config::ZoneOrUtc(ws.timezone);
  for (const auto& [wh_name, wh] : ws.warehouses) {
    if (!options.only.empty() && wh_name != options.only) continue;
    WarehousePass pass;
    pass.warehouse = wh_name;
    if (!warehouse::HasTableCatalog(wh.type)) {
      pass.status = FailedPrecondition("warehouse '" + wh_name + "': automatic monitors are not built for " + wh.type +
                                       " yet (its catalog reader is missing)");
      report.warehouses.push_back(std::move(pass));
      continue;
    }
    auto opened = warehouse::OpenWarehouse(wh, options.http);
    if (!opened.ok()) {
      pass.status = opened.status();
      report.warehouses.push_back(std::move(pass));
      continue;
    }
    auto catalog = warehouse::ReadTableCatalog(wh, **opened);
    if (!catalog.ok()) {
      pass.status = catalog.status();
      report.warehouses.push_back(std::move(pass));
      continue;
    }
    pass.source = catalog->source;
    pass.statements = catalog->statements;
    pass.problems = catalog->problems;
    pass.vanished = catalog->vanished;
    auto stored = states->LoadTableWatchStates(wh_name);
    if (!stored.ok()) return stored.status();
    std::map<std::string, TableState> known;
    for (const auto& rec : *stored) {
      auto s = DecodeTableState(rec.state, rec.asset_id);
      if (!s.ok()) {
        pass.events.push_back(s.status().message() + "; learning it again");
        continue;
      }
      known.emplace(rec.asset_id, *std::move(s));
    }
    std::vector<store::TableWatchStateRecord> save;
    std::vector<metrics::MetricPointsToRecord> points;
    std::vector<metrics::MetricToJudge> to_judge;
    struct Pending {
      std::string asset_id, name;
      TableState state;
      std::optional<ColumnDiff> diff;
      int judge_index = -1;
    };
    std::vector<Pending> pending;
    std::set<std::string> seen;
    for (const warehouse::CatalogTable& table : catalog->tables) {
      const TableRefs refs = RefsOf(wh, table.id);
      bool excluded = false;
      for (const std::string& pattern : ws.auto_monitor.exclude) excluded |= GlobMatches(pattern, refs.name);
      if (excluded) {
        ++pass.excluded;
        continue;
      }
      ++pass.tables;
      seen.insert(refs.asset_id);
      auto it = known.find(refs.asset_id);
      const bool first = it == known.end();
      TableState before = first ? TableState{} : it->second;
      TableState s = before;
      if (first) s.first_seen_ms = now;
      s.gone = false;
      s.view = table.view;
      // Volume and freshness: a change is the counters moving between two passes.
      if (!first && !table.change_token.empty() && !before.token.empty() && table.change_token != before.token) {
        std::optional<int64_t> rows = RowsWritten(before, table);
        if (rows) {
          s.changes.push_back(now);
          if (s.changes.size() > kKeptChanges) s.changes.erase(s.changes.begin());
          s.rows_last_load = *rows;
          points.push_back({AutoSeriesName(refs.asset_id, kRowsWritten), {{now, static_cast<double>(*rows)}}});
          pass.events.push_back(refs.name + ": a load of " + WithThousands(*rows) + " row(s)");
        } else {
          pass.events.push_back(refs.name + ": the statistics counters were reset; counting again");
        }
      }
      s.token = table.change_token;
      s.row_count = table.row_count;
      s.row_count_exact = table.row_count_exact;
      s.inserted = table.rows_inserted;
      s.updated = table.rows_updated;
      s.deleted = table.rows_deleted;
      // Schema: the columns against the last snapshot read.
      std::optional<ColumnDiff> diff;
      if (table.columns) {
        ColumnList now_cols;
        for (const auto& c : *table.columns) now_cols.emplace_back(c.name, c.type);
        if (before.columns && !first) {
          ColumnDiff d = DiffColumns(*before.columns, now_cols);
          if (!d.empty()) {
            pass.events.push_back(refs.name + ": columns " + d.Text());
            if (d.breaking() > 0)
              points.push_back({AutoSeriesName(refs.asset_id, kColumnsChanged), {{now, static_cast<double>(d.breaking())}}});
            diff = std::move(d);
          }
        }
        s.columns = std::move(now_cols);
      }
      s.last_pass_ms = now;
      // Freshness: how late, once a cadence is learnt.
      const LoadCadence cadence = LearnCadence(s.changes, s.first_seen_ms, now, zone);
      if (cadence.kind != CadenceKind::kUnknown && !s.changes.empty())
        points.push_back({AutoSeriesName(refs.asset_id, kLateness), {{now, Lateness(cadence, s.changes.back(), now, zone)}}});
      Pending p{refs.asset_id, refs.name, std::move(s), std::move(diff), -1};
      if (p.state.changes.size() > before.changes.size()) {
        if (auto settings = AutoSeriesSettings(AutoSeriesName(refs.asset_id, kRowsWritten))) {
          settings->timezone = ws.timezone;
          p.judge_index = static_cast<int>(to_judge.size());
          to_judge.push_back({AutoSeriesName(refs.asset_id, kRowsWritten), *settings});
        }
      }
      pending.push_back(std::move(p));
    }
    // Tables known before and not in the catalog now: dropped (said once, kept as gone).
    for (auto& [asset_id, s] : known) {
      if (seen.count(asset_id) || s.gone) continue;
      bool excluded = false;
      for (const std::string& pattern : ws.auto_monitor.exclude)
        excluded |= GlobMatches(pattern, wh_name + "." + asset_id.substr(asset_id.find('/', 8) + 1));
      if (excluded) continue;
      s.gone = true;
      pass.events.push_back(asset_id + ": no longer in the catalog");
      pending.push_back({asset_id, wh_name + "." + asset_id.substr(asset_id.find('/', 8) + 1), s, std::nullopt, -1});
    }
    auto recorded = metrics::RecordMetricPointsOfMany(store, points);
    for (size_t i = 0; i < recorded.size(); ++i) {
      if (!recorded[i].ok()) return recorded[i].status();
      pass.points += recorded[i]->stored;
    }
    std::vector<Result<metrics::MetricJudgement>> judged;
    if (!to_judge.empty()) judged = metrics::JudgeLatestPoints(store, to_judge, clock, options.unlearnt);
    for (Pending& p : pending) {
      std::optional<metrics::MetricJudgement> volume;
      if (p.judge_index >= 0 && static_cast<size_t>(p.judge_index) < judged.size() && judged[p.judge_index].ok())
        volume = *judged[p.judge_index];
      const LoadCadence cadence = LearnCadence(p.state.changes, p.state.first_seen_ms, now, zone);
      Judge(p.state, cadence, p.state.first_seen_ms + ws.auto_monitor.learning.count(), now, zone,
            p.diff ? &*p.diff : nullptr, volume);
      save.push_back({p.asset_id, wh_name, EncodeTableState(p.state), {}});
      report.tables.push_back(ToWatched(ws, wh_name, p.asset_id, p.name, p.state, now, zone));
    }
    DW_RETURN_IF_ERROR(states->SaveTableWatchStates(save));
    report.warehouses.push_back(std::move(pass));
  }
  std::sort(report.tables.begin(), report.tables.end(),
            [](const WatchedTable& a, const WatchedTable& b) { return a.name < b.name; });
  return report;
}

Result<std::vector<WatchedTable>> ListWatchedTables(const config::Workspace& ws, store::StateStore& store,
                                                    const Clock& clock, const std::string& pattern) {
  store::TableWatchStates* states = store::TableWatchStatesOf(store);
  if (states == nullptr) return FailedPrecondition("this state store keeps no table states: automatic monitors need one");
  auto stored = states->LoadTableWatchStates("");
  if (!stored.ok()) return stored.status();
  const int64_t now = ToUnixMillis(clock.Now());
  const config::TimeZone zone = config::ZoneOrUtc(ws.timezone);
  std::vector<WatchedTable> out;
  for (const auto& rec : *stored) {
    auto s = DecodeTableState(rec.state, rec.asset_id);
    if (!s.ok()) return s.status();
    auto slash = rec.asset_id.find('/', std::string("table://").size());
    const std::string name = rec.warehouse + "." + (slash == std::string::npos ? rec.asset_id : rec.asset_id.substr(slash + 1));
    if (!pattern.empty() && !GlobMatches(pattern, name)) continue;
    out.push_back(ToWatched(ws, rec.warehouse, rec.asset_id, name, *s, now, zone));
  }
  std::sort(out.begin(), out.end(), [](const WatchedTable& a, const WatchedTable& b) { return a.name < b.name; });
  return out;
}

Result<std::map<std::string, int64_t>> LearningUntilByAsset(const config::Workspace& ws, store::StateStore& store) {
  std::map<std::string, int64_t> out;
  store::TableWatchStates* states = store::TableWatchStatesOf(store);
  if (states == nullptr) return out;
  auto stored = states->LoadTableWatchStates("");
  if (!stored.ok()) return stored.status();
  for (const auto& rec : *stored) {
    auto s = DecodeTableState(rec.state, rec.asset_id);
    // An unreadable state is learning again: held back, never signalled on a guess.
    out[rec.asset_id] = s.ok() ? s->first_seen_ms + ws.auto_monitor.learning.count() : INT64_MAX;
  }
  return out;
}

Result<TablesAnswer> AnswerTables(const config::Workspace& ws, store::StateStore& store, const Clock& clock,
                                  const std::string& pattern, bool refresh, const PassOptions& options) {
  TablesAnswer out;
  out.enabled = ws.auto_monitor.enabled;
  if (!out.enabled) out.notes.push_back("auto_monitor is off in this workspace: no table is watched automatically");
  for (const auto& [name, wh] : ws.warehouses)
    if (!warehouse::HasTableCatalog(wh.type))
      out.notes.push_back("warehouse " + name + " (" + wh.type + "): automatic monitors are not built for this engine yet");
  if (refresh && out.enabled) {
    auto pass = RunAutoMonitorPass(ws, store, clock, options);
    if (!pass.ok()) return pass.status();
    for (auto& w : pass->warehouses)
      if (w.status.code() != StatusCode::kFailedPrecondition || warehouse::HasTableCatalog(ws.warehouses.at(w.warehouse).type))
        out.passes.push_back(std::move(w));
  }
  auto tables = ListWatchedTables(ws, store, clock, pattern);
  if (!tables.ok()) return tables.status();
  out.tables = *std::move(tables);
  return out;
}

Json TablesAnswer::ToJson() const {
  Json tables_json = Json::array();
  for (const WatchedTable& t : tables) tables_json.push_back(WatchedTableJson(t));
  Json passes_json = Json::array();
  for (const WarehousePass& p : passes)
    passes_json.push_back({{"warehouse", p.warehouse},
                           {"ok", p.status.ok()},
                           {"error", p.status.ok() ? Json() : Json(p.status.message())},
                           {"source", p.source},
                           {"catalog_statements", p.statements},
                           {"tables", p.tables},
                           {"excluded", p.excluded},
                           {"problems", p.problems},
                           {"vanished", p.vanished},
                           {"changes", p.events}});
  return Json{{"auto_monitor", enabled}, {"tables", tables_json}, {"passes", passes_json}, {"notes", notes}};
}

Json WatchedTableJson(const WatchedTable& t) {
  auto opt = [](const auto& v) { return v ? Json(*v) : Json(); };
  auto time_or_null = [](const std::optional<int64_t>& ms) { return ms ? Json(TimeText(*ms)) : Json(); };
  return Json{{"table", t.name},
              {"asset_id", t.asset_id},
              {"warehouse", t.warehouse},
              {"view", t.view},
              {"gone", t.gone},
              {"monitors", t.monitors},
              {"row_count", opt(t.row_count)},
              {"row_count_exact", t.row_count_exact},
              {"first_seen", TimeText(t.first_seen_ms)},
              {"learning", t.learning},
              {"learning_until", TimeText(t.learning_until_ms)},
              {"loads_seen", t.loads_seen},
              {"last_load", time_or_null(t.last_load_ms)},
              {"rows_last_load", opt(t.rows_last_load)},
              {"cadence", t.cadence.kind == CadenceKind::kUnknown ? Json() : Json(t.cadence.text)},
              {"cadence_kind", CadenceKindName(t.cadence.kind)},
              {"next_due", time_or_null(t.next_due_ms)},
              {"lateness", opt(t.lateness)},
              {"verdict", t.verdict},
              {"sentence", t.sentence},
              {"verdict_at", TimeText(t.verdict_at_ms)},
              {"declared", t.declared}};
}

}  // namespace dw::observe::auto_monitor
