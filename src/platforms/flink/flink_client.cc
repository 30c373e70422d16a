#include "platforms/flink/flink_client.h"

#include "platforms/java_trace.h"

#include <cctype>
#include <deque>

namespace dw::platforms::flink {
namespace {

constexpr size_t kMaxLineBytes = 64 * 1024;

JobSummary ParseSummary(const Json& j) {
  RequireObject(j, "a job");
  JobSummary s;
  s.jid = StringField(j, "jid");
  s.name = StringField(j, "name");
  s.state = StringField(j, "state");
  s.start_time_ms = IntField(j, "start-time");
  s.end_time_ms = OptIntField(j, "end-time", -1);
  s.last_modification_ms = OptIntField(j, "last-modification", s.start_time_ms);
  return s;
}

Status CheckJobId(const std::string& jid) {
  if (!IsJobId(jid))
    return InvalidArgument("'" + jid + "' is not a Flink job id (32 lower-case hex digits)");
  return Status::Ok();
}

}  // namespace

bool IsJobId(std::string_view jid) {
  if (jid.size() != 32) return false;
  for (char c : jid)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

RecoverySettings ReadRecoverySettings(const std::vector<ConfigEntry>& entries) {
  RecoverySettings r;
  auto find = [&](std::string_view key) -> const ConfigEntry* {
    for (const auto& e : entries)
      if (e.key == key) return &e;
    return nullptr;
  };
  for (std::string_view key : {"execution.state-recovery.ignore-unclaimed-state",
                               "execution.savepoint.ignore-unclaimed-state"}) {
    if (const auto* e = find(key)) {
      r.allow_non_restored_state = e->value == "true" || e->value == "TRUE" || e->value == "True";
      r.source_key = e->key;
      break;
    }
  }
  for (std::string_view key : {"execution.state-recovery.path", "execution.savepoint.path"}) {
    if (const auto* e = find(key)) {
      r.restore_path = e->value;
      break;
    }
  }
  return r;
}

FlinkClient::FlinkClient(const config::PlatformConfig& platform, net::HttpClient& http)
    : call_(platform, http) {}

Result<std::vector<JobSummary>> FlinkClient::JobsOverview() const {
  auto j = call_.GetJson({"jobs", "overview"});
  if (!j.ok()) return j.status();
  return call_.Parse<std::vector<JobSummary>>("GET /jobs/overview", [&] {
    std::vector<JobSummary> out;
    for (const auto& job : ArrayField(*j, "jobs")) out.push_back(ParseSummary(job));
    return out;
  });
}

Result<JobDetails> FlinkClient::Job(const std::string& jid) const {
  DW_RETURN_IF_ERROR(CheckJobId(jid));
  auto j = call_.GetJson({"jobs", jid});
  if (!j.ok()) return j.status();
  return call_.Parse<JobDetails>("GET /jobs/" + jid, [&] {
    JobDetails d;
    d.job = ParseSummary(*j);
    if (j->contains("vertices")) {
      for (const auto& v : ArrayField(*j, "vertices")) {
        RequireObject(v, "a vertex");
        d.vertices.push_back({StringField(v, "id"), StringField(v, "name"),
                              OptIntField(v, "parallelism"), OptStringField(v, "status")});
      }
    }
    return d;
  });
}

Result<CheckpointStats> FlinkClient::Checkpoints(const std::string& jid) const {
  DW_RETURN_IF_ERROR(CheckJobId(jid));
  auto j = call_.GetJson({"jobs", jid, "checkpoints"});
  if (!j.ok()) return j.status();
  return call_.Parse<CheckpointStats>("GET /jobs/" + jid + "/checkpoints", [&] {
    CheckpointStats s;
    RequireObject(*j, "checkpoint statistics");
    const Json& counts = ObjectField(*j, "counts");
    s.completed = OptIntField(counts, "completed");
    s.failed = OptIntField(counts, "failed");
    s.restored_count = OptIntField(counts, "restored");
    const Json& latest = ObjectField(*j, "latest");
    auto r = latest.find("restored");
    if (r != latest.end() && !r->is_null()) {
      RequireObject(*r, "latest.restored");
      RestoredCheckpoint rc;
      rc.id = IntField(*r, "id");
      rc.restore_timestamp_ms = IntField(*r, "restore_timestamp");
      rc.is_savepoint = BoolField(*r, "is_savepoint");
      rc.external_path = OptStringField(*r, "external_path");
      s.restored = rc;
    }
    return s;
  });
}

Result<CheckpointConfig> FlinkClient::CheckpointConfiguration(const std::string& jid) const {
  DW_RETURN_IF_ERROR(CheckJobId(jid));
  auto j = call_.GetJson({"jobs", jid, "checkpoints", "config"});
  if (!j.ok()) return j.status();
  return call_.Parse<CheckpointConfig>("GET /jobs/" + jid + "/checkpoints/config", [&] {
    CheckpointConfig c;
    RequireObject(*j, "checkpoint config");
    c.mode = StringField(*j, "mode");
    for (char& ch : c.mode) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    c.interval_ms = IntField(*j, "interval");
    if (j->contains("externalization")) {
      const Json& e = ObjectField(*j, "externalization");
      c.externalized = BoolField(e, "enabled");
      c.delete_on_cancellation = BoolField(e, "delete_on_cancellation");
    }
    c.state_backend = OptStringField(*j, "state_backend");
    c.checkpoint_storage = OptStringField(*j, "checkpoint_storage");
    return c;
  });
}

Result<std::vector<JobException>> FlinkClient::Exceptions(const std::string& jid,
                                                          int max_exceptions) const {
  DW_RETURN_IF_ERROR(CheckJobId(jid));
  auto j = call_.GetJson({"jobs", jid, "exceptions"},
                         "maxExceptions=" + std::to_string(std::max(1, max_exceptions)));
  if (!j.ok()) return j.status();
  return call_.Parse<std::vector<JobException>>("GET /jobs/" + jid + "/exceptions", [&] {
    std::vector<JobException> out;
    RequireObject(*j, "exceptions");
    if (!j->contains("exceptionHistory")) return out;
    for (const auto& e : ArrayField(ObjectField(*j, "exceptionHistory"), "entries")) {
      RequireObject(e, "an exception history entry");
      JobException x;
      x.name = StringField(e, "exceptionName");
      std::string trace = OptStringField(e, "stacktrace");
      x.first_line = trace.substr(0, trace.find('\n'));
      x.evidence = TraceEvidence(trace, 1);
      x.timestamp_ms = IntField(e, "timestamp");
      x.task_name = OptStringField(e, "taskName");
      out.push_back(std::move(x));
    }
    return out;
  });
}

Result<Json> FlinkClient::JobConfig(const std::string& jid) const {
  DW_RETURN_IF_ERROR(CheckJobId(jid));
  auto j = call_.GetJson({"jobs", jid, "config"});
  if (!j.ok()) return j.status();
  return call_.Parse<Json>("GET /jobs/" + jid + "/config", [&] {
    return Json(ObjectField(*j, "execution-config"));
  });
}

Result<std::vector<ConfigEntry>> FlinkClient::JobManagerConfig(const std::string& jid) const {
  std::vector<std::string> path = {"jobmanager", "config"};
  if (!jid.empty()) {
    DW_RETURN_IF_ERROR(CheckJobId(jid));
    path = {"jobs", jid, "jobmanager", "config"};
  }
  auto j = call_.GetJson(path);
  if (!j.ok()) return j.status();
  return call_.Parse<std::vector<ConfigEntry>>("GET /" + (jid.empty() ? "" : "jobs/" + jid + "/") +
                                                   "jobmanager/config",
                                               [&] {
                                                 if (!j->is_array())
                                                   throw ResponseShapeError("expected an array of {key, value}");
                                                 std::vector<ConfigEntry> out;
                                                 for (const auto& e : *j)
                                                   out.push_back({StringField(e, "key"), StringField(e, "value")});
                                                 return out;
                                               });
}

Result<std::vector<LogFile>> FlinkClient::LogFiles() const {
  auto j = call_.GetJson({"jobmanager", "logs"});
  if (!j.ok()) return j.status();
  return call_.Parse<std::vector<LogFile>>("GET /jobmanager/logs", [&] {
    std::vector<LogFile> out;
    for (const auto& l : ArrayField(*j, "logs"))
      out.push_back({StringField(l, "name"), OptIntField(l, "size"), OptIntField(l, "mtime")});
    return out;
  });
}

Result<StreamOutcome> FlinkClient::ReadLog(const std::string& name, size_t max_bytes,
                                           const std::function<void(std::string_view)>& on_line) const {
  if (name.empty() || name.find('/') != std::string::npos || name.find("..") != std::string::npos)
    return InvalidArgument("refusing log file name '" + name + "': a plain file name is required");
  std::string partial;
  bool cutting = false;  // inside a line longer than kMaxLineBytes
  auto sink = [&](std::string_view chunk) {
    size_t start = 0;
    while (start < chunk.size()) {
      size_t nl = chunk.find('\n', start);
      std::string_view piece = chunk.substr(start, nl == std::string_view::npos ? nl : nl - start);
      if (!cutting) {
        size_t room = kMaxLineBytes - partial.size();
        partial.append(piece.substr(0, room));
        if (piece.size() > room) cutting = true;
      }
      if (nl == std::string_view::npos) break;
      if (!partial.empty() && partial.back() == '\r') partial.pop_back();
      on_line(partial);
      partial.clear();
      cutting = false;
      start = nl + 1;
    }
    return true;
  };
  auto r = call_.GetStream({"jobmanager", "logs", name}, max_bytes, sink);
  if (!r.ok()) return r.status();
  if (!partial.empty()) on_line(partial);  // a last line without a newline
  return r;
}

Result<std::string> FlinkClient::LogTail(const std::string& name, size_t max_bytes,
                                         size_t max_read_bytes) const {
  std::deque<std::string> lines;
  size_t held = 0;
  auto r = ReadLog(name, max_read_bytes, [&](std::string_view line) {
    lines.emplace_back(line);
    held += line.size() + 1;
    while (held > max_bytes && !lines.empty()) {
      held -= lines.front().size() + 1;
      lines.pop_front();
    }
  });
  if (!r.ok()) return r.status();
  std::string out;
  out.reserve(held);
  for (const auto& l : lines) {
    out += l;
    out += '\n';
  }
  return out;
}

}  // namespace dw::platforms::flink
