// Kestra: executions that ended since the cursor (with, for the flows it watches, the log lines
// that show what the execution called), flow revisions and trigger toggles of those flows. It
// watches the flows the workspace names as assets or declares in lineage.kestra_flows. Cursors:
// "executions" (Unix ms: the search restarts at the earliest execution still running, else at the
// newest start seen), "flows" {ns.flow: revision}, "triggers" {id: disabled}. A revision is dated
// by the flow's `updated` where Kestra gives it; the first pass reports those within the lookback
// (changes.initial_lookback). A revision's evidence carries the unified diff of its source
// against the revision it replaced, read from the flow's revisions.
#include <algorithm>
#include <set>

#include "observe/changes/change_kinds.h"
#include "observe/changes/platform_collectors.h"
#include "observe/changes/source_diff.h"
#include "platforms/kestra/kestra_client.h"
#include "platforms/kestra/kestra_flow_files.h"

namespace dw::observe::changes {
namespace {

using platforms::kestra::Execution;
using platforms::kestra::KestraClient;

// Flows (namespace.flow) that the workspace names as kestra://<platform>/... assets, and, on the
// platform the workspace's folder of flow YAML runs on, every flow that folder declares: a team
// that gave its flows once (lineage.kestra_flows) need not list them again under assets:. A
// folder that cannot be read is an error of the pass; the listed assets are still watched.
std::set<std::string> WatchedFlows(const CollectContext& ctx, PlatformPass& pass) {
  std::set<std::string> out;
  std::string prefix = "kestra://" + ctx.platform.name + "/";
  for (const auto& a : ctx.workspace.assets)
    if (a.id.rfind(prefix, 0) == 0) out.insert(a.id.substr(prefix.size()));
  if (ctx.platform.name == platforms::kestra::FlowFolderInstance(ctx.workspace)) {
    Result<std::vector<std::string>> declared = platforms::kestra::FlowIdsIn(ctx.workspace);
    if (!declared.ok()) pass.errors.push_back(declared.status().message());
    else out.insert(declared->begin(), declared->end());
  }
  return out;
}

double ExecutionRisk(const std::string& state, std::string& reason) {
  if (state == "FAILED") {
    reason = "the execution failed: what it should have written is missing or partial";
    return 0.5;
  }
  if (state == "WARNING") {
    reason = "the execution ended in WARNING: some task did not do what it should";
    return 0.4;
  }
  if (state == "KILLED" || state == "CANCELLED") {
    reason = "the execution was stopped before it finished";
    return 0.3;
  }
  reason = "the execution succeeded; a green run can still write wrong output, so it is weighed low";
  return 0.1;
}

// The log lines worth keeping as evidence: those that show a call (a URL or an HTTP verb) first,
// then the others, at most `n`, each cut to 500 characters.
Json LogExcerpt(const std::vector<platforms::kestra::LogEntry>& logs, size_t n) {
  Json out = Json::array();
  auto keep = [&](const platforms::kestra::LogEntry& l) {
    if (out.size() >= n) return;
    out.push_back({{"timestamp", FormatRfc3339(FromUnixMillis(l.timestamp_ms))}, {"level", l.level},
                   {"task_id", l.task_id}, {"message", l.message.substr(0, 500)}});
  };
  auto is_call = [](const std::string& m) {
    return m.find("http://") != std::string::npos || m.find("https://") != std::string::npos ||
           m.find("GET ") != std::string::npos || m.find("POST ") != std::string::npos;
  };
  for (const auto& l : logs)
    if (is_call(l.message)) keep(l);
  for (const auto& l : logs)
    if (!is_call(l.message)) keep(l);
  return out;
}

}  // namespace

Status CollectKestra(const CollectContext& ctx, Collected& out, PlatformPass& pass) {
  KestraClient kestra(ctx.platform, ctx.http);
  const std::string& p = ctx.platform.name;
  auto watched = WatchedFlows(ctx, pass);
  std::string cursor_name = CursorName(ctx.platform, "executions");
  auto cursor = ctx.store.GetCursor(cursor_name);
  if (!cursor.ok()) return cursor.status();
  int64_t now = ToUnixMillis(ctx.clock.Now());
  int64_t from = LookbackStartMs(ctx);
  if (cursor->has_value()) {
    try {
      from = std::stoll(**cursor);
    } catch (const std::exception&) {
    }
  }
  std::optional<int64_t> earliest_running;
  int64_t newest_start = from;
  platforms::kestra::ExecutionQuery q;
  q.start_from_ms = from;
  q.size = ctx.options.kestra_page_size;
  for (q.page = 1;; ++q.page) {
    ++pass.requests;
    auto page = kestra.SearchExecutions(q);
    if (!page.ok()) {
      if (q.page == 1) return page.status();
      pass.errors.push_back(page.status().message());
      return Status::Ok();  // cursor not advanced: the next pass reads this page again
    }
    for (const auto& e : page->results) {
      newest_start = std::max(newest_start, e.start_ms);
      if (!e.terminal()) {
        earliest_running = std::min(earliest_running.value_or(e.start_ms), e.start_ms);
        continue;
      }
      std::string flow = e.namespace_ + "." + e.flow_id;
      std::string reason;
      double risk = ExecutionRisk(e.state, reason);
      Json ev = {{"execution_id", e.id}, {"flow", flow}, {"flow_revision", e.flow_revision},
                 {"state", e.state}, {"start", FormatRfc3339(FromUnixMillis(e.start_ms))},
                 {"duration_s", e.duration_s},
                 {"url", kestra.call().Url({"api", "v1", kestra.tenant(), "executions", e.id})}};
      Json tasks = Json::array();
      for (const auto& t : e.task_runs) {
        std::string outputs = t.outputs.dump();
        // Cut in place: `substr(0, 500) + "..."` trips GCC 12's false -Warray-bounds at -O2.
        if (outputs.size() > 500) outputs.replace(500, std::string::npos, "...");
        tasks.push_back({{"task_id", t.task_id}, {"state", t.state}, {"outputs", outputs}});
      }
      ev["task_runs"] = tasks;
      // What started it and how it went: diagnosis tells a routine run from an exceptional one by
      // these (incidents/routine_runs.h). A run Kestra names no trigger for was started by a
      // person or the API.
      ev["trigger"] = e.has_trigger ? Json{{"type", e.trigger_type}, {"id", e.trigger_id}} : Json(nullptr);
      if (!e.trigger_date.empty()) ev["scheduled_date"] = e.trigger_date;
      if (!e.labels.empty()) ev["labels"] = e.labels;
      if (!e.state_history.empty()) ev["state_history"] = e.state_history;
      Json retried = Json::array();
      for (const auto& t : e.task_runs)
        if (t.attempts > 1) retried.push_back(t.task_id);
      if (!retried.empty()) ev["retried_tasks"] = retried;
      std::string dedup = "kestra:" + p + ":" + e.id + ":" + e.state;
      if (watched.count(flow)) {
        // Read the logs only for executions not stored yet: they are the evidence of what it called.
        ++pass.requests;
        auto logs = kestra.ExecutionLogs(e.id, 1000);
        if (logs.ok()) {
          ev["log_excerpt"] = LogExcerpt(*logs, ctx.options.kestra_log_lines);
        } else {
          pass.errors.push_back(logs.status().message());
        }
      }
      // A replay re-runs an earlier execution's tasks with today's inputs and code: whatever it
      // writes replaces what the original wrote, so it is a change of its own, never one more
      // green run. Kestra says so three ways: originalId names another execution, RESTARTED
      // appears in the state history, or the log opens with "Replay of execution".
      std::vector<std::string> replay_signs;
      if (!e.original_id.empty() && e.original_id != e.id) replay_signs.push_back("originalId " + e.original_id);
      if (std::find(e.state_history.begin(), e.state_history.end(), "RESTARTED") != e.state_history.end())
        replay_signs.push_back("RESTARTED in its state history");
      if (ev.contains("log_excerpt"))
        for (const auto& l : ev["log_excerpt"])
          if (l.value("message", "").find("Replay of execution") != std::string::npos) {
            replay_signs.push_back("log: " + l.value("message", ""));
            break;
          }
      const char* kind = kExecution;
      if (!replay_signs.empty()) {
        kind = kExecutionReplay;
        ev["original_id"] = e.original_id;
        ev["replay_signs"] = replay_signs;
        risk = std::max(risk, 0.6);
        reason = "the execution replayed " + (e.original_id != e.id && !e.original_id.empty() ? "execution " + e.original_id : std::string("an earlier execution")) +
                 " (" + replay_signs.front() + "): what the original wrote was written again with today's inputs and code";
      }
      out.events.push_back(MakeEvent(ctx, dedup, AssetIdFor("kestra", p, flow), kind,
                                     e.end_ms.value_or(e.start_ms), ev, risk, reason));
    }
    if (static_cast<int64_t>(q.page) * q.size >= page->total || page->results.empty()) break;
  }
  out.cursors[cursor_name] = std::to_string(earliest_running.value_or(newest_start));

  // Revisions and triggers of the flows the workspace cares about; the first pass sets a baseline
  // and reports the revisions Kestra says were saved within the lookback.
  const int64_t lookback_from = LookbackStartMs(ctx);
  auto flows_seen = JsonCursor(ctx, "flows");
  if (!flows_seen.ok()) return flows_seen.status();
  Json flows_next = *flows_seen;
  for (const auto& flow : watched) {
    auto dot = flow.rfind('.');
    const std::string ns = flow.substr(0, dot), id = flow.substr(dot + 1);
    ++pass.requests;
    auto f = kestra.GetFlow(ns, id);
    if (!f.ok()) {
      if (f.status().code() != StatusCode::kNotFound) pass.errors.push_back(f.status().message());
      continue;
    }
    // When the revision was saved, as Kestra says (`updated`), rather than when this pass saw it:
    // a pass an hour late must not place the save after the executions it broke. A time ahead of
    // this pass (a server clock ahead of ours) is not believed.
    const bool platform_time = f->updated_ms && *f->updated_ms <= now;
    const int64_t at = platform_time ? *f->updated_ms : now;
    Json from_revision;
    bool changed = false;
    if (flows_seen->contains(flow)) {
      from_revision = (*flows_seen)[flow];
      changed = from_revision.get<int64_t>() != f->revision;
    } else if (platform_time && *f->updated_ms >= lookback_from) {
      // The first pass: a revision saved within the lookback (the day before onboarding, say) is
      // history the incidents need, not part of the baseline.
      changed = true;
    }
    if (changed) {
      Json ev = {{"flow", flow}, {"to_revision", f->revision},
                 {"time_source", platform_time ? "platform" : "observed"},
                 {"url", kestra.call().Url({"api", "v1", kestra.tenant(), "flows", f->namespace_, f->id})}};
      // Without Kestra's time, the time is when this pass saw the revision: it was saved at or
      // before then, which diagnosis and grouping take as an upper bound (incidents/own_cause.h).
      if (!platform_time) ev["time_bound"] = "at_or_before";
      // What the save changed: the source against the revision it replaced (on the first pass,
      // the one before it in Kestra's history), from the revisions Kestra keeps with their source.
      ++pass.requests;
      auto history = kestra.FlowRevisions(ns, id);
      const platforms::kestra::Flow* before = nullptr;
      if (history.ok()) {
        for (const auto& r : *history)
          if (r.revision < f->revision && (from_revision.is_null() ? (!before || r.revision > before->revision)
                                                                   : r.revision == from_revision.get<int64_t>()))
            before = &r;
        if (from_revision.is_null() && before) from_revision = before->revision;
      } else if (history.status().code() != StatusCode::kNotFound) {
        pass.errors.push_back(history.status().message());
      }
      ev["from_revision"] = from_revision;
      if (before) {
        ev.update(SourceDiffEvidence(ns + "/" + id + ".yml", before->source, f->source, ctx.options.max_diff_bytes));
        ev["diff_against_revision"] = before->revision;
      } else {
        ev["diff"] = nullptr;
        ev["diff_note"] = !history.ok()               ? "the flow's revisions could not be read: " + history.status().message()
                          : from_revision.is_null() ? std::string("Kestra keeps no earlier revision of this flow")
                                                    : "Kestra no longer serves revision " + from_revision.dump() + "'s source";
      }
      out.events.push_back(MakeEvent(
          ctx, "kestra:" + p + ":" + flow + ":revision:" + std::to_string(f->revision), AssetIdFor("kestra", p, flow),
          kFlowRevision, at, std::move(ev),
          0.4, "the flow was saved as revision " + std::to_string(f->revision) + ": what it runs changed"));
    }
    flows_next[flow] = f->revision;
  }
  out.cursors[CursorName(ctx.platform, "flows")] = flows_next.dump();

  ++pass.requests;
  auto triggers = kestra.Triggers(1, 500);
  if (!triggers.ok()) {
    if (triggers.status().code() != StatusCode::kNotFound) pass.errors.push_back(triggers.status().message());
    return Status::Ok();
  }
  auto trig_seen = JsonCursor(ctx, "triggers");
  if (!trig_seen.ok()) return trig_seen.status();
  Json trig_next = *trig_seen;
  for (const auto& t : *triggers) {
    std::string flow = t.namespace_ + "." + t.flow_id;
    std::string key = flow + "/" + t.trigger_id;
    if (trig_seen->contains(key) && (*trig_seen)[key].get<bool>() != t.disabled) {
      int64_t at = t.updated_ms.value_or(now);
      out.events.push_back(MakeEvent(
          ctx, "kestra:" + p + ":" + key + ":disabled:" + (t.disabled ? "true" : "false") + ":" + std::to_string(at),
          AssetIdFor("kestra", p, flow), kTriggerToggled, at,
          t.updated_ms ? Json{{"flow", flow}, {"trigger_id", t.trigger_id}, {"disabled", t.disabled},
                              {"time_source", "platform"}}
                       : Json{{"flow", flow}, {"trigger_id", t.trigger_id}, {"disabled", t.disabled},
                              {"time_source", "observed"}, {"time_bound", "at_or_before"}},
          t.disabled ? 0.3 : 0.2,
          std::string("trigger ") + t.trigger_id + (t.disabled ? " was disabled: scheduled runs stop" : " was re-enabled")));
    }
    trig_next[key] = t.disabled;
  }
  out.cursors[CursorName(ctx.platform, "triggers")] = trig_next.dump();
  return Status::Ok();
}

}  // namespace dw::observe::changes
