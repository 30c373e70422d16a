#include "observe/watch/watch_status.h"

#include <map>
#include <sstream>

#include "base/clock.h"
#include "store/sqlite_watch_lock.h"
#include "store/watch_leases.h"

namespace dw::observe::watch {
namespace {

std::string At(int64_t ms) { return FormatRfc3339(FromUnixMillis(ms)); }

Result<Json> SqliteStatus(const std::string& location) {
  auto watcher = store::CurrentSqliteWatcher(location);
  if (!watcher.ok()) return watcher.status();
  Json out = {{"backend", "sqlite"},
              {"note", "SQLite keeps a single dw watch replica; leases and job runs are recorded on PostgreSQL only"},
              {"replicas", Json::array()}};
  if (*watcher)
    out["replicas"].push_back({{"pid", (*watcher)->pid}, {"host", (*watcher)->host}, {"started", (*watcher)->started},
                               {"state", "alive"}});
  return out;
}

}  // namespace

Result<Json> ReadWatchStatus(store::StateStore& store, const std::string& state_location, int runs_per_replica) {
  store::WatchLeases* leases = store::WatchLeasesOf(store);
  if (leases == nullptr) return SqliteStatus(state_location);
  auto now = leases->DatabaseNowMs();
  if (!now.ok()) return now.status();
  auto replicas = leases->Replicas();
  if (!replicas.ok()) return replicas.status();
  auto open = leases->OpenLeases();
  if (!open.ok()) return open.status();
  // Enough recent runs to fill every replica's share.
  auto runs = leases->RecentRuns(std::max<int>(1, runs_per_replica) * std::max<int>(1, static_cast<int>(replicas->size())) * 4);
  if (!runs.ok()) return runs.status();

  Json unheld = Json::array();
  std::map<std::string, Json> held;
  for (const auto& l : *open) {
    Json j = {{"job", l.job}, {"due", At(l.due_ms)}, {"attempts", l.attempts}, {"taken", At(l.taken_ms)},
              {"expires", At(l.expires_ms)}};
    if (l.expires_ms > *now) {
      held[l.holder].push_back(j);
    } else {
      j["last_holder"] = l.holder;
      unheld.push_back(j);
    }
  }
  std::map<std::string, Json> recent;
  for (const auto& r : *runs) {
    Json& list = recent[r.replica_id];
    if (list.is_array() && static_cast<int>(list.size()) >= runs_per_replica) continue;
    list.push_back({{"job", r.job},
                    {"due", At(r.due_ms)},
                    {"started", At(r.started_ms)},
                    {"finished", r.finished_ms ? Json(At(*r.finished_ms)) : Json(nullptr)},
                    {"outcome", r.outcome},
                    {"message", r.message}});
  }
  Json list = Json::array();
  int hidden = 0;
  constexpr int64_t kDay = 24LL * 3600 * 1000;
  for (const auto& w : *replicas) {
    // Replicas that stopped over a day ago are history, not who watches now.
    if (w.stopped_ms && *now - w.heartbeat_ms > kDay) {
      ++hidden;
      continue;
    }
    // Silent: no heartbeat for a lease time; its leases are (or will be) taken over.
    std::string state = w.stopped_ms ? "stopped" : (*now - w.heartbeat_ms > w.lease_ms ? "silent" : "alive");
    list.push_back({{"id", w.id},
                    {"host", w.host},
                    {"pid", w.pid},
                    {"started", At(w.started_ms)},
                    {"last_heartbeat", At(w.heartbeat_ms)},
                    {"heartbeat_age_ms", *now - w.heartbeat_ms},
                    {"state", state},
                    {"lease_ms", w.lease_ms},
                    {"clock_offset_ms", w.clock_offset_ms},
                    {"refusing", w.refusing},
                    {"leases", held.count(w.id) ? held[w.id] : Json::array()},
                    {"recent_runs", recent.count(w.id) ? recent[w.id] : Json::array()}});
  }
  return Json{{"backend", "postgresql"},
              {"now", At(*now)},
              {"replicas", list},
              {"stopped_over_a_day_ago", hidden},
              {"unheld_leases", unheld}};
}

std::string FormatWatchStatus(const Json& s) {
  std::ostringstream out;
  const std::string backend = s.value("backend", "");
  if (backend == "sqlite") {
    out << "state store: SQLite (" << s.value("note", "") << ")\n";
    if (s["replicas"].empty()) out << "no dw watch is running on it\n";
    for (const Json& r : s["replicas"])
      out << "dw watch pid " << r.value("pid", 0) << " on " << r.value("host", "") << ", started "
          << r.value("started", "") << "\n";
    return out.str();
  }
  out << "state store: PostgreSQL, its time " << s.value("now", "") << "; " << s["replicas"].size()
      << " replica(s)\n";
  for (const Json& r : s["replicas"]) {
    out << "\nreplica " << r.value("id", "") << " (" << r.value("state", "") << ")\n"
        << "  host " << r.value("host", "") << ", pid " << r.value("pid", 0) << ", started " << r.value("started", "")
        << "\n  last heartbeat " << r.value("last_heartbeat", "") << " (" << r.value("heartbeat_age_ms", 0)
        << " ms ago), lease time " << r.value("lease_ms", 0) << " ms, clock offset " << r.value("clock_offset_ms", 0)
        << " ms\n";
    if (!r.value("refusing", "").empty()) out << "  REFUSES leases: " << r.value("refusing", "") << "\n";
    out << "  leases held: " << r["leases"].size() << "\n";
    for (const Json& l : r["leases"])
      out << "    " << l.value("job", "") << " due " << l.value("due", "") << ", expires " << l.value("expires", "")
          << "\n";
    out << "  recent runs:\n";
    for (const Json& run : r["recent_runs"])
      out << "    " << run.value("job", "") << " due " << run.value("due", "") << ": " << run.value("outcome", "")
          << (run.value("message", "").empty() ? "" : " (" + run.value("message", "") + ")") << "\n";
  }
  if (s.value("stopped_over_a_day_ago", 0) > 0)
    out << "\n(" << s.value("stopped_over_a_day_ago", 0) << " replica(s) that stopped over a day ago not shown)\n";
  if (!s["unheld_leases"].empty()) {
    out << "\nleases waiting to be taken over (their holder went silent or gave them back):\n";
    for (const Json& l : s["unheld_leases"])
      out << "  " << l.value("job", "") << " due " << l.value("due", "") << ", last held by "
          << l.value("last_holder", "") << "\n";
  }
  return out.str();
}

}  // namespace dw::observe::watch
