// Read-only client of the Flink JobManager REST API (v1): jobs, job details, checkpoint
// statistics (which restore the job started from), exceptions history, job and JobManager
// configuration, and the JobManager log files (read streamed, with a byte cap: Flink serves a
// whole file with no range parameter).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "platforms/platform_call.h"

namespace dw::platforms::flink {

struct JobSummary {
  std::string jid;
  std::string name;
  std::string state;  // RUNNING, FAILED, ...
  int64_t start_time_ms = 0;
  int64_t end_time_ms = -1;
  int64_t last_modification_ms = 0;
};

struct Vertex {
  std::string id;
  std::string name;
  int64_t parallelism = 0;
  std::string status;
};

struct JobDetails {
  JobSummary job;
  std::vector<Vertex> vertices;
};

// `latest.restored` of the checkpoint statistics: the checkpoint or savepoint the job's current
// run restored from (also set after a failover restore).
struct RestoredCheckpoint {
  int64_t id = 0;
  int64_t restore_timestamp_ms = 0;
  bool is_savepoint = false;
  std::string external_path;  // may be "<checkpoint-not-externally-addressable>"
};

struct CheckpointStats {
  int64_t completed = 0;
  int64_t failed = 0;
  int64_t restored_count = 0;
  std::optional<RestoredCheckpoint> restored;
};

// GET /jobs/{jid}/checkpoints/config, the parts that matter to restores.
struct CheckpointConfig {
  std::string mode;            // exactly_once | at_least_once (Flink writes it lower-case)
  int64_t interval_ms = 0;
  bool externalized = false;   // externalization.enabled
  bool delete_on_cancellation = false;
  std::string state_backend;
  std::string checkpoint_storage;
};

struct JobException {
  std::string name;        // exceptionName
  std::string first_line;  // first line of the stack trace
  std::string evidence;    // its first line and its last "Caused by:" (platforms/java_trace.h)
  int64_t timestamp_ms = 0;
  std::string task_name;
};

struct ConfigEntry {
  std::string key;
  std::string value;
};

struct LogFile {
  std::string name;
  int64_t size = 0;
  int64_t mtime_ms = 0;
};

// What the restore flags of a job's configuration say (keys of Flink 2 and their older names).
struct RecoverySettings {
  std::optional<bool> allow_non_restored_state;  // execution.state-recovery.ignore-unclaimed-state
  std::string restore_path;                      // execution.state-recovery.path
  std::string source_key;                        // the key the flag was read from
};

// Reads allowNonRestoredState and the restore path from `entries`, preferring the current keys
// over execution.savepoint.* ones.
RecoverySettings ReadRecoverySettings(const std::vector<ConfigEntry>& entries);

// True iff `jid` is a Flink JobID (32 lower-case hex digits).
bool IsJobId(std::string_view jid);

class FlinkClient {
 public:
  // `platform` (type flink) and `http` must outlive the client.
  FlinkClient(const config::PlatformConfig& platform, net::HttpClient& http);

  // GET /jobs/overview. Errors name the platform and endpoint (see PlatformCall).
  Result<std::vector<JobSummary>> JobsOverview() const;
  // GET /jobs/{jid}: the job with its vertices. InvalidArgument if `jid` is not a JobID.
  Result<JobDetails> Job(const std::string& jid) const;
  // GET /jobs/{jid}/checkpoints.
  Result<CheckpointStats> Checkpoints(const std::string& jid) const;
  // GET /jobs/{jid}/checkpoints/config.
  Result<CheckpointConfig> CheckpointConfiguration(const std::string& jid) const;
  // GET /jobs/{jid}/exceptions: exceptionHistory entries, newest first as Flink sends them.
  Result<std::vector<JobException>> Exceptions(const std::string& jid, int max_exceptions = 20) const;
  // GET /jobs/{jid}/config: the execution-config object (the wire shape, not the spec's).
  Result<Json> JobConfig(const std::string& jid) const;
  // GET /jobs/{jid}/jobmanager/config, or GET /jobmanager/config when `jid` is empty.
  Result<std::vector<ConfigEntry>> JobManagerConfig(const std::string& jid = "") const;
  // GET /jobmanager/logs.
  Result<std::vector<LogFile>> LogFiles() const;
  // GET /jobmanager/logs/{name}, streamed line by line into `on_line` (without the newline), at
  // most `max_bytes`. Refuses a name with '/' or "..". Lines longer than 64 KiB are cut. The outcome
  // says whether the cap stopped the read.
  Result<StreamOutcome> ReadLog(const std::string& name, size_t max_bytes,
                                const std::function<void(std::string_view line)>& on_line) const;
  // The last `max_bytes` of the log (read through in a stream; memory stays within max_bytes).
  Result<std::string> LogTail(const std::string& name, size_t max_bytes,
                              size_t max_read_bytes = size_t{2} << 30) const;

  const PlatformCall& call() const { return call_; }

 private:
  PlatformCall call_;
};

}  // namespace dw::platforms::flink
