// Routine versus exceptional executions (issue 37): what is usual for a flow's runs is learnt from
// its own change timeline (how often it runs and at what offset, what starts it), and a run is
// judged against it. A run that looks like the last N is routine, weak evidence of anything; a
// replay, a backfill or a run for another slot, a run started by a person or the API where the
// flow is scheduled, a retried or restarted task, a run at an unusual time, or one that did not
// end in SUCCESS is exceptional. The answer says why in words a person checks against the
// platform ("runs hourly at :00; this one was a replay of 02:00 started at 06:41").
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "config/time_zone.h"
#include "store/records.h"

namespace dw::incidents {

// Runs of a flow needed before "usual" is claimed: fewer and every run is judged unknown.
inline constexpr int kMinRunsForUsual = 3;

// What is usual for one flow's executions.
struct RunProfile {
  int runs = 0;  // executions it was learnt from (replays excluded)
  // The median gap between consecutive starts, and the offset within it most runs start at
  // (UTC; a daily run's time of day, an hourly run's minute); absent when the runs say none.
  std::optional<std::chrono::seconds> cadence;
  std::optional<std::chrono::seconds> phase;
  // What starts most runs: "schedule", "flow", "webhook", "manual or API", or the trigger's own
  // type name; "" when the runs do not say, or no kind starts most of them.
  std::string usual_trigger;
  // The zone its times are told in (the workspace's; null: UTC), and the latest run's start, at
  // which a time of day is read in that zone (a daily run at 05:30 UTC is "06:30" in Berlin in
  // winter and "07:30" in summer).
  const config::TimeZone* zone = nullptr;
  std::optional<TimePoint> latest_start;
  // "runs hourly at :00", "runs daily at 02:00", "runs about every 40 min" (in `zone`); "" when
  // unknown.
  std::string Describe() const;
};

// Learns what is usual from `events` (any kinds; only executions of the asset of the first
// execution count, replays excluded). Deterministic; unknown parts stay empty.
// Its sentences tell times in `zone` (the workspace's; null: UTC), which must outlive the profile.
RunProfile LearnRuns(const std::vector<store::ChangeEvent>& events, const config::TimeZone* zone = nullptr);

// A run judged against its flow's profile.
struct RunJudgement {
  bool known = false;        // the profile had at least kMinRunsForUsual runs, or the run says
                             // by itself it is exceptional (a replay, a retried task)
  bool exceptional = false;  // known and unlike the usual run
  std::vector<std::string> why;  // what makes it exceptional, one phrase each
  // "runs hourly at :00; this one was a replay of 02:00 started at 06:41", or for a routine run
  // "runs hourly at :00; this one looks like the last 12 (scheduled, at :00, SUCCESS)".
  std::string sentence;
};

// Judges `run` (an execution or execution_replay) against `profile`; `events` are the flow's other
// events (to name the execution a replay re-ran). Not an execution: known is false.
RunJudgement JudgeRun(const store::ChangeEvent& run, const RunProfile& profile,
                      const std::vector<store::ChangeEvent>& events);

// Whether `run` ran again for an earlier slot than its start: a backfill (a label naming backfill)
// or a run whose trigger's `scheduled_date` is more than 10 minutes before it started. Such a run
// writes that slot a second time: on top of what the slot's own run wrote (a flow that appends)
// or in its place (a flow that reloads). A replay is not one (it re-runs an execution).
bool RerunsPastSlot(const store::ChangeEvent& run);

// When the run started: evidence `start` (RFC 3339) when it parses, else happened_at.
TimePoint RunStart(const store::ChangeEvent& run);

// The kind of what started the run: "schedule", "flow", "webhook", "manual or API" (evidence
// `trigger` null), the trigger type's last segment otherwise; "" when the evidence does not say.
std::string TriggerKind(const store::ChangeEvent& run);

}  // namespace dw::incidents
