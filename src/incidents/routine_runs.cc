#include "incidents/routine_runs.h"

#include <algorithm>
#include <map>
#include <set>

#include "base/rfc3339.h"
#include "observe/changes/change_kinds.h"

namespace dw::incidents {

namespace {

namespace k = observe::changes;
using std::chrono::seconds;

constexpr size_t kMaxRunsLearnt = 240;  // the latest runs only: "usual" is recent, and O(n^2) below

bool IsRunKind(const store::ChangeEvent& e) { return e.kind == k::kExecution || e.kind == k::kExecutionReplay; }

std::string RunField(const Json& ev, const char* key) {
  auto it = ev.is_object() ? ev.find(key) : ev.end();
  return it != ev.end() && it->is_string() ? it->get<std::string>() : std::string();
}

int64_t EpochSeconds(TimePoint t) { return std::chrono::duration_cast<seconds>(t.time_since_epoch()).count(); }

// The gap rounded to a schedule people write (every 15 min, hourly, daily) when within 10% of one.
seconds NiceCadence(seconds gap) {
  static const int64_t nice[] = {60, 300, 600, 900, 1200, 1800, 3600, 7200, 10800, 14400, 21600, 28800, 43200, 86400, 604800};
  for (int64_t n : nice)
    if (std::abs(gap.count() - n) * 10 <= n) return seconds(n);
  return seconds((gap.count() + 30) / 60 * 60);
}

int64_t CircularDistance(int64_t a, int64_t b, int64_t period) {
  int64_t d = std::abs(a - b) % period;
  return std::min(d, period - d);
}

// How far off its usual offset a run may start and still be on time (a scheduler's lag).
int64_t Tolerance(seconds cadence) { return std::max<int64_t>(60, std::min<int64_t>(300, cadence.count() / 6)); }

std::string RunTwoDigits(int64_t v) { return (v < 10 ? "0" : "") + std::to_string(v); }
// "06:05": `t`'s wall-clock time in `zone` (UTC when null).
std::string RunClock(TimePoint t, const config::TimeZone* zone) {
  return (zone ? config::FormatWithOffset(t, *zone) : FormatRfc3339(t)).substr(11, 5);
}

// ":05" for an hourly offset, "02:30" for a time of day: the UTC offset `phase_s` within
// `cadence`, read in `zone` as of `at` (a half-hour zone moves an hourly run's minute too).
std::string OffsetText(int64_t phase_s, seconds cadence, const config::TimeZone* zone, std::optional<TimePoint> at) {
  if (zone && at) {
    const int64_t c = cadence.count();
    phase_s = ((phase_s + zone->OffsetAt(EpochSeconds(*at))) % c + c) % c;
  }
  const int64_t minutes = phase_s / 60;
  if (cadence.count() <= 3600) return ":" + RunTwoDigits(minutes % 60);
  return RunTwoDigits((minutes / 60) % 24) + ":" + RunTwoDigits(minutes % 60);
}

std::string JoinPhrases(const std::vector<std::string>& parts) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) out += i + 1 == parts.size() ? " and " : ", ";
    out += parts[i];
  }
  return out;
}

bool LabelSays(const Json& labels, const std::string& needle) {
  if (!labels.is_array()) return false;
  for (const Json& l : labels) {
    if (!l.is_object()) continue;
    std::string key = l.value("key", std::string());
    std::transform(key.begin(), key.end(), key.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (key.find(needle) == std::string::npos) continue;
    const Json& v = l.contains("value") ? l["value"] : Json();
    if (v.is_boolean() ? v.get<bool>() : (v.is_string() && v.get<std::string>() != "false")) return true;
  }
  return false;
}

}  // namespace

TimePoint RunStart(const store::ChangeEvent& run) {
  const std::string start = RunField(run.evidence, "start");
  if (!start.empty())
    if (auto t = ParseRfc3339(start); t.ok()) return *t;
  return run.happened_at;
}

std::string TriggerKind(const store::ChangeEvent& run) {
  auto it = run.evidence.is_object() ? run.evidence.find("trigger") : run.evidence.end();
  if (it == run.evidence.end()) return "";
  if (it->is_null()) return "manual or API";
  if (!it->is_object()) return "";
  const std::string type = it->value("type", std::string());
  if (type.empty()) return "";
  for (const char* known : {"Schedule", "Flow", "Webhook"})
    if (type.find(known) != std::string::npos) {
      std::string out = known;
      out[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(out[0])));
      return out;
    }
  return type.substr(type.rfind('.') == std::string::npos ? 0 : type.rfind('.') + 1);
}

std::string RunProfile::Describe() const {
  if (!cadence) return "";
  const int64_t c = cadence->count();
  std::string every = c == 3600    ? "hourly"
                      : c == 86400 ? "daily"
                      : c == 604800 ? "weekly"
                      : c % 3600 == 0 ? "every " + std::to_string(c / 3600) + " h"
                                      : "every " + std::to_string(c / 60) + " min";
  std::string out = "runs " + every;
  if (phase) out += (c < 3600 ? " from " : " at ") + OffsetText(phase->count(), *cadence, zone, latest_start);
  return out;
}

RunProfile LearnRuns(const std::vector<store::ChangeEvent>& events, const config::TimeZone* zone) {
  RunProfile p;
  p.zone = zone;
  std::string asset;
  std::map<std::string, const store::ChangeEvent*> by_id;  // one per execution, whatever its states
  std::vector<const store::ChangeEvent*> runs;
  for (const store::ChangeEvent& e : events) {
    if (e.kind != k::kExecution) continue;
    if (asset.empty()) asset = e.asset_id;
    if (e.asset_id != asset) continue;
    const std::string id = RunField(e.evidence, "execution_id");
    if (!id.empty() && !by_id.emplace(id, &e).second) continue;
    runs.push_back(&e);
  }
  std::sort(runs.begin(), runs.end(), [](const auto* a, const auto* b) {
    return RunStart(*a) != RunStart(*b) ? RunStart(*a) < RunStart(*b) : a->dedup_key < b->dedup_key;
  });
  if (runs.size() > kMaxRunsLearnt) runs.erase(runs.begin(), runs.end() - kMaxRunsLearnt);
  p.runs = static_cast<int>(runs.size());
  if (!runs.empty()) p.latest_start = RunStart(*runs.back());
  if (p.runs < kMinRunsForUsual) return p;

  std::vector<int64_t> gaps;
  for (size_t i = 1; i < runs.size(); ++i) {
    int64_t g = EpochSeconds(RunStart(*runs[i])) - EpochSeconds(RunStart(*runs[i - 1]));
    if (g > 0) gaps.push_back(g);
  }
  if (!gaps.empty()) {
    std::nth_element(gaps.begin(), gaps.begin() + gaps.size() / 2, gaps.end());
    p.cadence = NiceCadence(seconds(gaps[gaps.size() / 2]));
    // The offset most runs start at, within the scheduler's tolerance; claimed only when at least
    // half of the runs start there (a flow started by events has none).
    const int64_t c = p.cadence->count(), tol = Tolerance(*p.cadence);
    std::vector<int64_t> phases;
    for (const auto* r : runs) phases.push_back((EpochSeconds(RunStart(*r)) % c + c) % c / 60 * 60);
    int64_t best = 0;
    size_t best_n = 0;
    for (int64_t candidate : std::set<int64_t>(phases.begin(), phases.end())) {
      size_t n = std::count_if(phases.begin(), phases.end(), [&](int64_t q) { return CircularDistance(q, candidate, c) <= tol; });
      if (n > best_n) best = candidate, best_n = n;
    }
    if (best_n * 2 >= phases.size()) p.phase = seconds(best);
  }
  std::map<std::string, int> triggers;
  int said = 0;
  for (const auto* r : runs) {
    std::string t = TriggerKind(*r);
    if (t.empty()) continue;
    ++said;
    ++triggers[t];
  }
  for (const auto& [t, n] : triggers)
    if (n * 2 > said) p.usual_trigger = t;
  return p;
}

bool RerunsPastSlot(const store::ChangeEvent& run) {
  if (!IsRunKind(run) || run.kind == k::kExecutionReplay) return false;
  const Json& ev = run.evidence;
  if (!ev.is_object()) return false;
  const std::string id = RunField(ev, "execution_id"), original = RunField(ev, "original_id");
  if (!original.empty() && original != id) return false;
  if (LabelSays(ev.value("labels", Json()), "backfill")) return true;
  auto slot = ParseRfc3339(RunField(ev, "scheduled_date"));
  return slot.ok() && EpochSeconds(RunStart(run)) - EpochSeconds(*slot) > 600;
}

RunJudgement JudgeRun(const store::ChangeEvent& run, const RunProfile& profile,
                      const std::vector<store::ChangeEvent>& events) {
  RunJudgement j;
  if (!IsRunKind(run)) return j;
  const Json& ev = run.evidence;
  const TimePoint start = RunStart(run);
  const std::string id = RunField(ev, "execution_id"), original = RunField(ev, "original_id");
  const bool replay = run.kind == k::kExecutionReplay || (!original.empty() && original != id);
  std::vector<std::string> why;
  if (replay) {
    std::string of = original.empty() ? std::string("an earlier execution") : "execution " + original;
    for (const store::ChangeEvent& o : events)
      if (!original.empty() && IsRunKind(o) && RunField(o.evidence, "execution_id") == original) {
        of = RunClock(RunStart(o), profile.zone) + "'s run (" + original + ")";
        break;
      }
    why.push_back("was a replay of " + of + " started at " + RunClock(start, profile.zone));
  }
  if (LabelSays(ev.value("labels", Json()), "backfill")) why.push_back("was a backfill");
  if (auto slot = ParseRfc3339(RunField(ev, "scheduled_date")); slot.ok() && !replay) {
    const int64_t late = EpochSeconds(start) - EpochSeconds(*slot);
    if (std::abs(late) > 600)
      why.push_back("ran for the " + RunClock(*slot, profile.zone) + " slot at " + RunClock(start, profile.zone));
  }
  const std::string trigger = TriggerKind(run);
  if (!profile.usual_trigger.empty() && !trigger.empty() && trigger != profile.usual_trigger)
    why.push_back(trigger == "manual or API" ? "was started by hand or by the API (its runs are started by " + profile.usual_trigger + ")"
                                             : "was started by " + trigger + " (its runs are started by " + profile.usual_trigger + ")");
  if (profile.cadence && profile.phase && !replay) {
    const int64_t c = profile.cadence->count();
    const int64_t phase = (EpochSeconds(start) % c + c) % c;
    if (CircularDistance(phase, profile.phase->count(), c) > Tolerance(*profile.cadence))
      why.push_back("started at " + RunClock(start, profile.zone) + ", off its usual " +
                    OffsetText(profile.phase->count(), *profile.cadence, profile.zone, start));
  }
  if (ev.contains("retried_tasks") && ev["retried_tasks"].is_array() && !ev["retried_tasks"].empty()) {
    std::vector<std::string> tasks;
    for (const Json& t : ev["retried_tasks"])
      if (t.is_string()) tasks.push_back(t.get<std::string>());
    why.push_back("retried task " + JoinPhrases(tasks));
  }
  if (!replay && ev.contains("state_history") && ev["state_history"].is_array())
    for (const Json& s : ev["state_history"])
      if (s.is_string() && s.get<std::string>() == "RESTARTED") {
        why.push_back("was restarted");
        break;
      }
  const std::string state = RunField(ev, "state");
  if (!state.empty() && state != "SUCCESS") why.push_back("ended " + state);

  j.known = profile.runs >= kMinRunsForUsual || !why.empty();
  if (!j.known) return j;
  j.exceptional = !why.empty();
  j.why = why;
  const std::string usual = profile.Describe();
  if (j.exceptional) {
    j.sentence = (usual.empty() ? std::string() : usual + "; ") + "this one " + JoinPhrases(why);
  } else {
    std::vector<std::string> like;
    if (!trigger.empty()) like.push_back(trigger == "schedule" ? "scheduled" : "started by " + trigger);
    if (profile.cadence && profile.phase) like.push_back("on time");
    if (!state.empty()) like.push_back(state);
    j.sentence = (usual.empty() ? std::string() : usual + "; ") + "this one looks like the last " +
                 std::to_string(profile.runs) + (like.empty() ? "" : " (" + JoinPhrases(like) + ")");
  }
  return j;
}

}  // namespace dw::incidents
