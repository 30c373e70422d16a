// Flink: new job runs (deploy), restores (latest.restored), skipped operator state (from the
// JobManager log), exceptions, status transitions, and allowNonRestoredState left on.
// Cursors: "jobs" {jid: {m: last-modification, s: state}} (a job whose last-modification has not
// moved is not read again), "logs" {file: {size, mtime}} (an unchanged log file is not read again)
// and "history_floor": restores, exceptions and log findings Flink dates before it (the first
// pass's lookback, changes.initial_lookback) are the baseline (every run's start is still a deploy). The REST API keeps one
// restore per job run (latest.restored): of several restores of one run, the latest is reported.
#include <cstdio>

#include "observe/changes/change_kinds.h"
#include "observe/changes/platform_collectors.h"
#include "platforms/flink/deployment_manifest.h"
#include "platforms/flink/flink_client.h"
#include "platforms/flink/restore_log.h"

namespace dw::observe::changes {
namespace {

// A stable 64-bit hash (FNV-1a) in hex: dedup keys must not change between builds.
std::string Fnv1a(const std::string& s) {
  uint64_t h = 1469598103934665603ULL;
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ULL;
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

// FlinkDeployment manifests in the platform's `manifests:` folder: spec changes since the last
// pass, and a standing risk (allowNonRestoredState on for a stateful job) when first seen. The
// folder keeps no time of a change, so happened_at is when the pass saw it. Cursor "manifests"
// {deployment: spec}. The deployment's metadata.name is taken as the job's name in asset ids.
Status CollectManifests(const CollectContext& ctx, Collected& out, PlatformPass& pass) {
  auto folder = platforms::flink::ReadManifestFolder(ctx.platform.manifests);
  if (!folder.ok()) {
    pass.errors.push_back("flink '" + ctx.platform.name + "': " + folder.status().message());
    return Status::Ok();
  }
  for (const auto& e : folder->errors) pass.errors.push_back("flink '" + ctx.platform.name + "' manifests: " + e);
  auto seen = JsonCursor(ctx, "manifests");
  if (!seen.ok()) return seen.status();
  Json next = *seen;
  int64_t now = ToUnixMillis(ctx.clock.Now());
  const std::string& p = ctx.platform.name;
  for (const auto& d : folder->deployments) {
    std::string asset = AssetIdFor("flink", p, d.name);
    Json spec = d.ToJson();
    if (auto risk = platforms::flink::StandingRisk(d))
      out.events.push_back(MakeEvent(ctx, "flink-manifest:" + p + ":" + d.name + ":standing:allowNonRestoredState",
                                     asset, kConfigRisk, now,
                                     {{"deployment", d.name}, {"file", d.file}, {"field", risk->field},
                                      {"upgrade_mode", d.upgrade_mode}, {"time_source", "observed"}},
                                     risk->risk, risk->reason));
    if (seen->contains(d.name)) {
      auto before = platforms::flink::DeploymentSpec::FromJson((*seen)[d.name]);
      auto changes = platforms::flink::DiffDeployments(before, d);
      if (!changes.empty()) {
        Json list = Json::array();
        for (const auto& c : changes)
          list.push_back({{"field", c.field}, {"before", c.before}, {"after", c.after}, {"risk", c.risk}, {"reason", c.reason}});
        bool risky = changes.front().field == "job.allowNonRestoredState" || changes.front().field == "job.upgradeMode";
        out.events.push_back(MakeEvent(
            ctx, "flink-manifest:" + p + ":" + d.name + ":" + Fnv1a(spec.dump()),
            asset, risky ? kConfigRisk : kDeploy, now,
            {{"deployment", d.name}, {"file", d.file}, {"changes", list}, {"time_source", "observed"}},
            changes.front().risk, changes.front().reason));
      }
    }
    next[d.name] = spec;
  }
  out.cursors[CursorName(ctx.platform, "manifests")] = next.dump();
  return Status::Ok();
}

}  // namespace

using platforms::flink::FlinkClient;
using platforms::flink::RestoreLineKind;

Status CollectFlink(const CollectContext& ctx, Collected& out, PlatformPass& pass) {
  FlinkClient flink(ctx.platform, ctx.http);
  const std::string& p = ctx.platform.name;
  ++pass.requests;
  auto jobs = flink.JobsOverview();
  if (!jobs.ok()) return jobs.status();
  auto jobs_cursor = ctx.store.GetCursor(CursorName(ctx.platform, "jobs"));
  if (!jobs_cursor.ok()) return jobs_cursor.status();
  // What Flink dates before the floor (the first pass's lookback) is the baseline: a job restored
  // or failing weeks before onboarding is not a change, now or when the job moves later.
  auto floor = HistoryFloorMs(ctx, !jobs_cursor->has_value(), out);
  if (!floor.ok()) return floor.status();
  auto seen = JsonCursor(ctx, "jobs");
  if (!seen.ok()) return seen.status();
  Json next = Json::object();
  std::map<std::string, std::string> job_names;
  for (const auto& job : *jobs) {
    job_names[job.jid] = job.name;
    std::string asset = AssetIdFor("flink", p, job.name);
    std::string job_url = flink.call().Url({"jobs", job.jid});
    next[job.jid] = {{"m", job.last_modification_ms}, {"s", job.state}};
    const Json* before = seen->contains(job.jid) ? &(*seen)[job.jid] : nullptr;
    if (before && before->value("m", int64_t{-1}) == job.last_modification_ms &&
        before->value("s", "") == job.state)
      continue;  // nothing moved since the last pass
    if (!before) {  // the run live now, whenever it started: which deploy runs is context
      out.events.push_back(MakeEvent(ctx, "flink:" + p + ":" + job.jid + ":start", asset, kDeploy,
                                     job.start_time_ms,
                                     {{"job_id", job.jid}, {"job_name", job.name}, {"state", job.state}, {"url", job_url}},
                                     0.3, "a new run of the job started (a deploy, an upgrade or a restart)"));
    } else if (before->value("s", "") != job.state) {
      double risk = job.state == "FAILED" || job.state == "FAILING" ? 0.6 : 0.2;
      out.events.push_back(MakeEvent(
          ctx, "flink:" + p + ":" + job.jid + ":state:" + job.state + ":" + std::to_string(job.last_modification_ms),
          asset, kStateTransition, job.last_modification_ms,
          {{"job_id", job.jid}, {"from", before->value("s", "")}, {"to", job.state}, {"url", job_url}}, risk,
          "the job went from " + before->value("s", "") + " to " + job.state));
    }
    pass.requests += 3;
    auto cps = flink.Checkpoints(job.jid);
    if (!cps.ok()) {
      pass.errors.push_back(cps.status().message());
      next.erase(job.jid);  // read it again next pass
    } else if (cps->restored && cps->restored->restore_timestamp_ms >= *floor) {
      const auto& r = *cps->restored;
      out.events.push_back(MakeEvent(
          ctx, "flink:" + p + ":" + job.jid + ":restore:" + std::to_string(r.id) + ":" + std::to_string(r.restore_timestamp_ms),
          asset, kRestore, r.restore_timestamp_ms,
          {{"job_id", job.jid}, {"checkpoint_id", r.id}, {"is_savepoint", r.is_savepoint},
           {"external_path", r.external_path}, {"url", flink.call().Url({"jobs", job.jid, "checkpoints"})}},
          r.is_savepoint ? 0.5 : 0.4,
          std::string("the job restored from ") + (r.is_savepoint ? "savepoint " : "checkpoint ") + r.external_path +
              ": state and results depend on what that restore mapped"));
    }
    auto exceptions = flink.Exceptions(job.jid);
    if (!exceptions.ok()) {
      pass.errors.push_back(exceptions.status().message());
      next.erase(job.jid);
    } else {
      for (const auto& x : *exceptions)
        if (x.timestamp_ms >= *floor)
          out.events.push_back(MakeEvent(
              ctx, "flink:" + p + ":" + job.jid + ":exception:" + std::to_string(x.timestamp_ms) + ":" + x.name,
              asset, kException, x.timestamp_ms,
              {{"job_id", job.jid}, {"exception", x.name}, {"first_line", x.first_line}, {"trace", x.evidence},
               {"task", x.task_name},
               {"url", flink.call().Url({"jobs", job.jid, "exceptions"})}},
              x.first_line.find("Cannot map checkpoint/savepoint state") != std::string::npos ? 0.7 : 0.4,
              "the job failed or restarted on " + x.name));
    }
    auto cfg = flink.JobManagerConfig(job.jid);
    if (!cfg.ok()) {
      pass.errors.push_back(cfg.status().message());
      next.erase(job.jid);
    } else {
      auto rec = platforms::flink::ReadRecoverySettings(*cfg);
      if (rec.allow_non_restored_state.value_or(false))
        out.events.push_back(MakeEvent(
            ctx, "flink:" + p + ":" + job.jid + ":config:ignore-unclaimed-state", asset, kConfigRisk,
            job.start_time_ms,
            {{"job_id", job.jid}, {"key", rec.source_key}, {"value", "true"}, {"restore_path", rec.restore_path},
             {"url", flink.call().Url({"jobs", job.jid, "jobmanager", "config"})}},
            0.6,
            "allowNonRestoredState is on (" + rec.source_key +
                "=true): a restore that cannot map an operator's state skips it instead of failing"));
    }
  }
  out.cursors[CursorName(ctx.platform, "jobs")] = next.dump();
  if (!ctx.platform.manifests.empty()) DW_RETURN_IF_ERROR(CollectManifests(ctx, out, pass));

  // The JobManager log: the only place that says a restore dropped state.
  ++pass.requests;
  auto logs = flink.LogFiles();
  if (!logs.ok()) {
    pass.errors.push_back(logs.status().message());
    return Status::Ok();
  }
  auto log_seen = JsonCursor(ctx, "logs");
  if (!log_seen.ok()) return log_seen.status();
  Json log_next = *log_seen;
  for (const auto& file : *logs) {
    if (file.name.find("..") != std::string::npos || file.name.find('/') != std::string::npos) {
      pass.errors.push_back(flink.call().Label() + ": skipped log file with an unsafe name: " + file.name);
      continue;
    }
    if (log_seen->contains(file.name) && (*log_seen)[file.name].value("size", int64_t{-1}) == file.size &&
        (*log_seen)[file.name].value("mtime", int64_t{-1}) == file.mtime_ms)
      continue;
    platforms::flink::RestoreLogScanner scanner;
    ++pass.requests;
    auto read = flink.ReadLog(file.name, ctx.options.max_log_bytes, [&](std::string_view l) { scanner.Feed(l); });
    if (!read.ok()) {
      pass.errors.push_back(read.status().message());
      continue;
    }
    if (read->truncated)
      pass.notes.push_back("log " + file.name + " read up to its cap of " +
                           std::to_string(ctx.options.max_log_bytes) + " bytes; later lines were not scanned");
    log_next[file.name] = {{"size", file.size}, {"mtime", file.mtime_ms}};
    std::string log_url = flink.call().Url({"jobmanager", "logs", file.name});
    std::map<std::string, const platforms::flink::RestoreLogLine*> started;  // jid -> restore line
    for (const auto& f : scanner.findings()) {
      if (f.kind != RestoreLineKind::kRestoreStarted && f.time_ms < *floor) continue;  // the baseline
      std::string name = job_names.count(f.job_id) ? job_names[f.job_id] : (f.job_id.empty() ? "unknown-job" : f.job_id);
      std::string asset = AssetIdFor("flink", p, name);
      switch (f.kind) {
        case RestoreLineKind::kRestoreStarted:
          started[f.job_id] = &f;
          break;
        case RestoreLineKind::kSkippedEmptyState:
          break;  // nothing was lost: not a finding
        case RestoreLineKind::kSkippedState: {
          const auto* start = started.count(f.job_id) ? started[f.job_id] : nullptr;
          Json ev = {{"job_id", f.job_id}, {"operator_id", f.operator_id}, {"log_file", file.name},
                     {"log_line", f.line}, {"url", log_url}};
          if (start) {
            ev["restore_line"] = start->line;
            ev["savepoint_path"] = start->savepoint_path;
            ev["allow_non_restored_state"] = start->allow_non_restored_state;
          }
          out.events.push_back(MakeEvent(
              ctx, "flink:" + p + ":" + f.job_id + ":skipped:" + f.operator_id + ":" + std::to_string(f.time_ms),
              asset, kRestoreSkippedState, f.time_ms, ev, 0.95,
              std::string("the restore") + (start ? " from " + start->savepoint_path : "") + " dropped the " +
                  (f.from_checkpoint ? "checkpoint" : "savepoint") + " state of operator " + f.operator_id +
                  ": everything computed from that state restarted from empty"));
          break;
        }
        case RestoreLineKind::kRestoreRefused:
          out.events.push_back(MakeEvent(
              ctx, "flink:" + p + ":" + f.job_id + ":refused:" + f.operator_id + ":" + std::to_string(f.time_ms),
              asset, kException, f.time_ms,
              {{"job_id", f.job_id}, {"operator_id", f.operator_id}, {"log_file", file.name},
               {"log_line", f.line}, {"url", log_url}},
              0.5, "a restore was refused because operator state could not be mapped (the job did not start)"));
          break;
      }
    }
  }
  out.cursors[CursorName(ctx.platform, "logs")] = log_next.dump();
  return Status::Ok();
}

}  // namespace dw::observe::changes
