#include "platforms/flink/restore_log.h"

#include <cctype>
#include <chrono>

namespace dw::platforms::flink {
namespace {

bool Digits(std::string_view s, size_t pos, size_t n) {
  if (pos + n > s.size()) return false;
  for (size_t i = pos; i < pos + n; ++i)
    if (!std::isdigit(static_cast<unsigned char>(s[i]))) return false;
  return true;
}

int Num(std::string_view s, size_t pos, size_t n) {
  int v = 0;
  for (size_t i = pos; i < pos + n; ++i) v = v * 10 + (s[i] - '0');
  return v;
}

// The token after `marker` up to the next space (or end), without a trailing '.'.
std::string TokenAfter(std::string_view line, size_t marker_end) {
  size_t end = line.find_first_of(" \t", marker_end);
  std::string_view tok = line.substr(marker_end, end == std::string_view::npos ? end : end - marker_end);
  while (!tok.empty() && (tok.back() == '.' || tok.back() == ',')) tok.remove_suffix(1);
  return std::string(tok);
}

}  // namespace

std::optional<int64_t> ParseLog4jTimestamp(std::string_view l) {
  // yyyy-MM-dd HH:mm:ss,SSS
  if (!Digits(l, 0, 4) || l.size() < 23 || l[4] != '-' || !Digits(l, 5, 2) || l[7] != '-' ||
      !Digits(l, 8, 2) || (l[10] != ' ' && l[10] != 'T') || !Digits(l, 11, 2) || l[13] != ':' ||
      !Digits(l, 14, 2) || l[16] != ':' || !Digits(l, 17, 2) || (l[19] != ',' && l[19] != '.') ||
      !Digits(l, 20, 3))
    return std::nullopt;
  using namespace std::chrono;
  year_month_day ymd{year{Num(l, 0, 4)}, month{static_cast<unsigned>(Num(l, 5, 2))},
                     day{static_cast<unsigned>(Num(l, 8, 2))}};
  if (!ymd.ok()) return std::nullopt;
  int h = Num(l, 11, 2), m = Num(l, 14, 2), s = Num(l, 17, 2), ms = Num(l, 20, 3);
  if (h > 23 || m > 59 || s > 60) return std::nullopt;
  auto days = sys_days(ymd).time_since_epoch();
  return duration_cast<milliseconds>(days).count() + ((h * 60 + m) * 60 + s) * 1000LL + ms;
}

void RestoreLogScanner::Feed(std::string_view line) {
  ++lines_;
  // Cheap pre-filter: every recognised line has one of these words.
  if (line.find("avepoint") == std::string_view::npos &&
      line.find("heckpoint state") == std::string_view::npos)
    return;
  RestoreLogLine f;
  static constexpr std::string_view kStarting = "Starting job ";
  static constexpr std::string_view kFromSavepoint = " from savepoint ";
  static constexpr std::string_view kSkippingEmpty = "Skipping empty savepoint state for operator ";
  static constexpr std::string_view kSkippingSavepoint = "Skipping savepoint state for operator ";
  static constexpr std::string_view kSkippedCheckpoint = "Skipped checkpoint state for operator ";
  static constexpr std::string_view kCannotMap = "state for operator ";
  if (auto p = line.find(kStarting); p != std::string_view::npos &&
                                     line.find(kFromSavepoint, p) != std::string_view::npos) {
    f.kind = RestoreLineKind::kRestoreStarted;
    f.job_id = TokenAfter(line, p + kStarting.size());
    size_t sp = line.find(kFromSavepoint, p) + kFromSavepoint.size();
    f.savepoint_path = TokenAfter(line, sp);
    f.allow_non_restored_state = line.find("(allowing non restored state)") != std::string_view::npos;
    current_job_ = f.job_id;
  } else if (auto q = line.find(kSkippingEmpty); q != std::string_view::npos) {
    f.kind = RestoreLineKind::kSkippedEmptyState;
    f.operator_id = TokenAfter(line, q + kSkippingEmpty.size());
  } else if (auto r = line.find(kSkippingSavepoint); r != std::string_view::npos) {
    f.kind = RestoreLineKind::kSkippedState;
    f.operator_id = TokenAfter(line, r + kSkippingSavepoint.size());
  } else if (auto c = line.find(kSkippedCheckpoint); c != std::string_view::npos) {
    f.kind = RestoreLineKind::kSkippedState;
    f.from_checkpoint = true;
    f.operator_id = TokenAfter(line, c + kSkippedCheckpoint.size());
  } else if (line.find("Failed to rollback to checkpoint/savepoint") != std::string_view::npos) {
    f.kind = RestoreLineKind::kRestoreRefused;
    if (auto m = line.find(kCannotMap); m != std::string_view::npos)
      f.operator_id = TokenAfter(line, m + kCannotMap.size());
  } else {
    return;
  }
  if (f.job_id.empty()) f.job_id = current_job_;
  f.time_ms = ParseLog4jTimestamp(line).value_or(0);
  f.line = std::string(line.substr(0, 2000));
  findings_.push_back(std::move(f));
}

}  // namespace dw::platforms::flink
