// A replayed variant judged against what its generator planted, and the family summary.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "replay/families/family.h"

namespace dw::replay::families {

const char* OutcomeName(Outcome o) {
  switch (o) {
    case Outcome::kFirst: return "cause first";
    case Outcome::kTop3: return "cause in top 3";
    case Outcome::kRankedLower: return "cause ranked below 3";
    case Outcome::kNotAmongCandidates: return "cause not among the candidates";
    case Outcome::kMissed: return "missed (no incident on the damaged asset)";
    case Outcome::kQuiet: return "quiet";
    case Outcome::kIncidentOnBenign: return "incident on a benign variant";
    case Outcome::kReplayFailed: return "replay failed";
  }
  return "?";
}

VariantVerdict ReplayFailed(const Story& story, const std::string& why) {
  return {story.name, story.family, story.benign, Outcome::kReplayFailed, 0, std::nullopt, why, 0};
}

VariantVerdict Judge(const Story& story, const ReplayReport& report) {
  VariantVerdict v{story.name, story.family, story.benign, Outcome::kReplayFailed, 0, std::nullopt, "", report.wall_ms};
  // The generated scenario's last expectation is the one the family is judged by (an incident
  // with the planted cause, or no incident at all).
  if (report.verdicts.empty()) {
    v.detail = "no verdict";
    return v;
  }
  const Verdict& x = report.verdicts.back();
  v.detail = x.detail;
  for (size_t i = 0; i + 1 < report.verdicts.size(); ++i)
    if (!report.verdicts[i].ok) v.other_failures.push_back(report.verdicts[i].detail);
  if (story.benign) {
    v.outcome = x.ok ? Outcome::kQuiet : Outcome::kIncidentOnBenign;
    return v;
  }
  if (!x.opened_at) {
    v.outcome = Outcome::kMissed;
    return v;
  }
  if (story.first_bad_write)
    v.delay_minutes = std::chrono::duration<double>(*x.opened_at - *story.first_bad_write).count() / 60.0;
  v.rank = std::max(0, x.cause_rank);
  v.outcome = v.rank == 1 ? Outcome::kFirst
              : v.rank == 0 ? Outcome::kNotAmongCandidates
              : v.rank <= 3 ? Outcome::kTop3
                            : Outcome::kRankedLower;
  return v;
}

namespace {

std::string Pct(int n, int of) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%", of ? 100.0 * n / of : 0.0);
  return buf;
}

std::string Min(double m) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.0f", m);
  return buf;
}

struct Tally {
  int incident = 0, first = 0, top3 = 0, lower = 0, not_among = 0, missed = 0, failed = 0;
  int benign = 0, benign_incidents = 0;
  int other_failed = 0;  // variants with another expectation that failed
  std::vector<double> delays;
};

std::map<std::string, Tally> TallyByFamily(const std::vector<VariantVerdict>& verdicts, Tally* all) {
  std::map<std::string, Tally> by;
  for (const auto& v : verdicts) {
    for (Tally* t : {&by[v.family], all}) {
      if (v.outcome == Outcome::kReplayFailed) ++t->failed;
      t->other_failed += !v.other_failures.empty();
      if (v.benign) {
        ++t->benign;
        t->benign_incidents += v.outcome == Outcome::kIncidentOnBenign;
        continue;
      }
      if (v.outcome == Outcome::kReplayFailed) continue;
      ++t->incident;
      t->first += v.outcome == Outcome::kFirst;
      t->top3 += v.outcome == Outcome::kFirst || v.outcome == Outcome::kTop3;
      t->lower += v.outcome == Outcome::kRankedLower;
      t->not_among += v.outcome == Outcome::kNotAmongCandidates;
      t->missed += v.outcome == Outcome::kMissed;
      if (v.delay_minutes) t->delays.push_back(*v.delay_minutes);
    }
  }
  return by;
}

double Median(std::vector<double> xs) {
  std::sort(xs.begin(), xs.end());
  return xs.empty() ? 0 : xs.size() % 2 ? xs[xs.size() / 2] : (xs[xs.size() / 2 - 1] + xs[xs.size() / 2]) / 2;
}

}  // namespace

std::string SummaryText(const std::vector<VariantVerdict>& verdicts) {
  std::string out;
  for (const auto& v : verdicts) {
    out += v.name + ": " + OutcomeName(v.outcome);
    if (v.rank > 1) out += " (ranked " + std::to_string(v.rank) + ")";
    if (v.delay_minutes) out += ", opened " + Min(*v.delay_minutes) + " min after the first bad write";
    if (v.outcome != Outcome::kFirst && v.outcome != Outcome::kQuiet) out += "\n    " + v.detail;
    for (const auto& f : v.other_failures) out += "\n    also failed: " + f;
    out += "\n";
  }
  Tally all;
  auto by = TallyByFamily(verdicts, &all);
  out += "\n";
  if (all.incident)
    out += "incident variants: " + std::to_string(all.incident) + "; right cause first " + Pct(all.first, all.incident) +
           ", in the top 3 " + Pct(all.top3, all.incident) + ", ranked below 3: " + std::to_string(all.lower) +
           ", cause not among the candidates: " + std::to_string(all.not_among) + ", missed: " + std::to_string(all.missed) + "\n";
  if (all.benign)
    out += "benign variants: " + std::to_string(all.benign) + "; incidents on them: " + std::to_string(all.benign_incidents) + "\n";
  if (all.failed) out += "replays that could not run: " + std::to_string(all.failed) + "\n";
  if (all.other_failed)
    out += "variants where another expectation failed: " + std::to_string(all.other_failed) + "\n";
  out += "per family (detection delay after the first bad write, minutes; the seed pages' desk: 63 and 145):\n";
  for (const auto& [family, t] : by) {
    out += "  " + family + ": ";
    if (t.benign) {
      out += std::to_string(t.benign - t.benign_incidents) + "/" + std::to_string(t.benign) + " quiet\n";
      continue;
    }
    out += std::to_string(t.first) + "/" + std::to_string(t.incident) + " first, " + std::to_string(t.top3) + " top 3, " +
           std::to_string(t.not_among) + " not among, " + std::to_string(t.missed) + " missed";
    if (!t.delays.empty())
      out += "; delay median " + Min(Median(t.delays)) + ", max " + Min(*std::max_element(t.delays.begin(), t.delays.end()));
    out += "\n";
  }
  return out;
}

Json SummaryJson(const std::vector<VariantVerdict>& verdicts) {
  Json variants = Json::array();
  for (const auto& v : verdicts) {
    Json j = {{"name", v.name}, {"family", v.family}, {"benign", v.benign}, {"outcome", OutcomeName(v.outcome)},
              {"rank", v.rank}, {"detail", v.detail}, {"wall_ms", v.wall_ms}};
    if (v.delay_minutes) j["delay_minutes"] = *v.delay_minutes;
    if (!v.other_failures.empty()) j["other_failures"] = v.other_failures;
    variants.push_back(std::move(j));
  }
  Tally all;
  auto by = TallyByFamily(verdicts, &all);
  Json families = Json::object();
  for (const auto& [family, t] : by) {
    Json f = {{"incident", t.incident}, {"first", t.first}, {"top3", t.top3}, {"not_among_candidates", t.not_among},
              {"missed", t.missed}, {"benign", t.benign}, {"incidents_on_benign", t.benign_incidents}, {"failed", t.failed},
              {"other_expectations_failed", t.other_failed}};
    if (!t.delays.empty()) {
      f["delay_median_minutes"] = Median(t.delays);
      f["delay_max_minutes"] = *std::max_element(t.delays.begin(), t.delays.end());
    }
    families[family] = std::move(f);
  }
  return {{"variants", variants}, {"families", families},
          {"incident", all.incident}, {"first", all.first}, {"top3", all.top3}, {"not_among_candidates", all.not_among},
          {"missed", all.missed}, {"benign", all.benign}, {"incidents_on_benign", all.benign_incidents}, {"failed", all.failed},
          {"other_expectations_failed", all.other_failed}};
}

}  // namespace dw::replay::families
