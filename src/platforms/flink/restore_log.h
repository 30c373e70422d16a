// Reads the JobManager log for what no REST field says: that a restore dropped state. Recognised
// lines (see ../shared/reference/README.md):
//   Starting job <jid> from savepoint <path> (allowing non restored state)   -> restore started
//   Skipping savepoint state for operator <id>.                              -> state dropped
//   Skipped checkpoint state for operator <id>.                              -> state dropped
//   Skipping empty savepoint state for operator <id>.                        -> harmless, no finding
//   Failed to rollback to checkpoint/savepoint ... Cannot map ... state for operator ... -> refused
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dw::platforms::flink {

enum class RestoreLineKind {
  kRestoreStarted,        // "Starting job ... from savepoint ..."
  kSkippedState,          // savepoint or checkpoint state of an operator was dropped
  kSkippedEmptyState,     // empty state skipped: nothing lost
  kRestoreRefused,        // the restore failed because state could not be mapped
};

struct RestoreLogLine {
  RestoreLineKind kind = RestoreLineKind::kRestoreStarted;
  int64_t time_ms = 0;        // from the log4j timestamp at the start of the line; 0 if none
  std::string job_id;         // the job, from this line or the last "Starting job" before it
  std::string savepoint_path; // kRestoreStarted only
  bool allow_non_restored_state = false;  // kRestoreStarted only
  std::string operator_id;    // kSkippedState / kSkippedEmptyState / kRestoreRefused
  bool from_checkpoint = false;  // kSkippedState: "Skipped checkpoint state" rather than savepoint
  std::string line;           // the line as read (cut to 2,000 characters)
};

// Parses "2026-11-24 14:02:01,234 ..." at the start of a line (UTC) into Unix ms; nullopt if the
// line does not start with such a timestamp.
std::optional<int64_t> ParseLog4jTimestamp(std::string_view line);

// Feeds lines one at a time; keeps only the findings, so memory does not grow with the log.
class RestoreLogScanner {
 public:
  // Looks at one line; records it if it is one of the recognised lines.
  void Feed(std::string_view line);
  const std::vector<RestoreLogLine>& findings() const { return findings_; }
  size_t lines_read() const { return lines_; }

 private:
  std::vector<RestoreLogLine> findings_;
  std::string current_job_;
  size_t lines_ = 0;
};

}  // namespace dw::platforms::flink
