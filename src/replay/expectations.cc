#include "replay/expectations.h"

#include <algorithm>

#include "actions/actions.h"

namespace dw::replay {
namespace {

Verdict Ok(const Expectation& x, std::string seen) { return {x.text, x.line, true, "ok: " + seen}; }
Verdict Failed(const Expectation& x, std::string detail) { return {x.text, x.line, false, "FAILED: " + detail}; }

// True iff `j` holds `text` as a string value or inside one (the assets of a blast radius, ...).
bool HoldsString(const Json& j, const std::string& text) {
  if (j.is_string()) return j.get<std::string>().find(text) != std::string::npos;
  if (j.is_array() || j.is_object()) {
    for (const auto& [k, v] : j.items())
      if ((j.is_object() && k.find(text) != std::string::npos) || HoldsString(v, text)) return true;
  }
  return false;
}

std::string Describe(const incidents::Candidate& c) {
  return c.kind + " on " + c.asset_id + " at " + FormatRfc3339(c.happened_at);
}

std::string Ranking(const incidents::Diagnosis& d) {
  if (d.ranked.empty()) return "no candidate cause (" + d.summary + ")";
  std::string out;
  for (size_t i = 0; i < d.ranked.size() && i < 4; ++i)
    out += (i ? "; " : "") + std::to_string(i + 1) + ". " + Describe(d.ranked[i]);
  return out;
}

// Empty when `c` matches `want`, else what differs.
std::string CauseMismatch(const CauseExpectation& want, const incidents::Candidate& c) {
  if (!want.kinds.empty() && std::find(want.kinds.begin(), want.kinds.end(), c.kind) == want.kinds.end())
    return "kind " + c.kind;
  if (!want.asset.empty() && want.asset != c.asset_id) return "asset " + c.asset_id;
  std::string evidence = c.explanation;
  for (const auto& e : c.evidence) evidence += "\n" + e;
  for (const auto& s : want.evidence_contains)
    if (evidence.find(s) == std::string::npos) return "evidence without '" + s + "'";
  return "";
}

// The actions stage's keys, read from what the product stored: the incident's proposals, its
// verification events and its receipt (which must verify along the whole chain). Empty when they
// hold; `seen` gains what was found.
std::string ActionsMismatch(const IncidentExpectation& want, const incidents::Incident& inc, ReplayProduct& product,
                            std::string* seen) {
  auto store = product.State();
  if (!store.ok()) return "the state store could not be read: " + store.status().message();
  if (!want.proposals.empty()) {
    auto proposals = (*store)->ProposalsOfIncident(inc.id);
    if (!proposals.ok()) return "the proposals could not be read: " + proposals.status().message();
    std::string kinds;
    for (const auto& p : *proposals)
      if ((", " + kinds + ", ").find(", " + p.kind + ", ") == std::string::npos) kinds += (kinds.empty() ? "" : ", ") + p.kind;
    for (const auto& k : want.proposals)
      if ((", " + kinds + ", ").find(", " + k + ", ") == std::string::npos)
        return "a " + k + " proposal for " + inc.id + ", but its proposals are: " + (kinds.empty() ? "none" : kinds);
    *seen += ", proposals " + kinds;
  }
  if (want.verified) {
    auto events = (*store)->ActionEvents("incident:" + inc.id);
    if (!events.ok()) return "the action log could not be read: " + events.status().message();
    std::string last;
    bool passed = false;
    for (const auto& e : *events)
      if (e.kind == "verified" || e.kind == "verification_failed") {
        passed |= e.kind == "verified";
        last = e.body.value("summary", e.kind);
      }
    const bool resolved_by_verification = inc.status == incidents::IncidentStatus::kResolved &&
                                          !inc.transitions.empty() && inc.transitions.back().actor == "dw";
    if (*want.verified && !(passed && resolved_by_verification))
      return "verified: the verification passed and resolved " + inc.id + ", but " +
             (last.empty() ? std::string("no verification ran") : "the last said: " + last) + " and it is " +
             incidents::IncidentStatusName(inc.status);
    if (!*want.verified && passed) return "verified: false, but a verification of " + inc.id + " passed: " + last;
    *seen += *want.verified ? ", verified" : ", not verified";
  }
  if (want.receipt) {
    auto receipt = actions::ReceiptOfIncident(**store, inc.id);
    if (!receipt.ok()) return "the receipt could not be read: " + receipt.status().message();
    auto chain = actions::VerifyReceiptChain(**store);
    if (!chain.ok()) return "the receipt chain could not be read: " + chain.status().message();
    if (!*want.receipt) {
      if (receipt->has_value()) return "no receipt, but receipt " + std::to_string((*receipt)->seq) + " was written for " + inc.id;
    } else {
      if (!receipt->has_value()) return "a receipt for " + inc.id + ", but none was written (it is " +
                                        incidents::IncidentStatusName(inc.status) + ")";
      if (!chain->ok) return "a receipt chain that verifies, but receipt " + std::to_string(chain->first_bad_seq) +
                             " does not: " + chain->problem;
      if ((*receipt)->body.find("\"" + inc.id + "\"") == std::string::npos)
        return "receipt " + std::to_string((*receipt)->seq) + " does not name " + inc.id;
      *seen += ", receipt " + std::to_string((*receipt)->seq) + " verifies (" + std::to_string(chain->receipts) + " in the chain)";
    }
  }
  return "";
}

Verdict CheckIncident(const Expectation& x, ReplayProduct& product, const ProductTimeline& timeline) {
  const IncidentExpectation& want = *x.incident;
  auto found = product.Incidents(want.asset);
  if (!found.ok()) return Failed(x, "the incidents could not be read: " + found.status().message());
  if (found->empty()) {
    auto any = product.Incidents("");
    std::string others;
    if (any.ok())
      for (const auto& i : *any) others += (others.empty() ? "" : "; ") + i.id + " on " + (i.damaged_assets.empty() ? i.root_asset : i.damaged_assets.front());
    return Failed(x, "no incident holds " + want.asset + " (incidents opened: " + (others.empty() ? "none" : others) + ")");
  }
  // The earliest incident on the asset is the one the story is about.
  const incidents::Incident& inc = *std::min_element(found->begin(), found->end(), [](const auto& a, const auto& b) {
    return a.opened_at < b.opened_at;
  });
  std::string seen = inc.id + " opened " + FormatRfc3339(inc.opened_at);
  if (want.opened_by && inc.opened_at > *want.opened_by)
    return Failed(x, "opened by " + FormatRfc3339(*want.opened_by) + ", but " + inc.id + " opened at " + FormatRfc3339(inc.opened_at));
  auto trace = timeline.traces().find(inc.id);
  if (!want.severity.empty()) {
    int level = trace != timeline.traces().end() ? trace->second.highest_severity : inc.severity.level;
    if ("SEV" + std::to_string(level) != want.severity)
      return Failed(x, "severity " + want.severity + ", but the highest severity during the replay was SEV" +
                           std::to_string(level) + " (" + inc.severity.reason + ")");
    seen += ", " + want.severity;
  }
  if (want.acts_next) {
    bool met = false;
    std::string pairs;
    if (trace != timeline.traces().end())
      for (const auto& [consumer, at] : trace->second.acts_next) {
        met |= consumer == want.acts_next->first && at == want.acts_next->second;
        pairs += (pairs.empty() ? "" : "; ") + consumer + " at " + FormatRfc3339(at);
      }
    if (!met)
      return Failed(x, "acts_next " + want.acts_next->first + " at " + FormatRfc3339(want.acts_next->second) +
                           ", but the severity named " + (pairs.empty() ? std::string("no consumer acting next") : pairs));
  }
  for (const auto& key : want.holds) {
    bool held = std::any_of(inc.signals.begin(), inc.signals.end(),
                            [&](const incidents::SignalRef& r) { return r.key.rfind(key, 0) == 0; });
    if (!held) {
      std::string keys;
      for (const auto& r : inc.signals) keys += (keys.empty() ? "" : ", ") + r.key;
      return Failed(x, inc.id + " holds no signal " + key + " (it holds: " + keys + ")");
    }
  }
  if (!want.holds.empty()) seen += ", holds " + std::to_string(want.holds.size()) + " named signal(s)";
  if (!want.proposals.empty() || want.verified || want.receipt) {
    std::string miss = ActionsMismatch(want, inc, product, &seen);
    if (!miss.empty()) return Failed(x, miss);
  }
  bool needs_diagnosis = want.cause || want.second_cause || !want.ranked_below_cause.empty() ||
                         !want.blast_radius_includes.empty() || !want.impact.empty();
  if (!needs_diagnosis) return Ok(x, seen);
  auto d = product.Diagnose(inc.id);
  if (!d.ok()) return Failed(x, "the diagnosis of " + inc.id + " failed: " + d.status().message());
  if (want.cause) {
    // Where the expected cause ranks, if at all: "ranked third" and "not among the candidates"
    // are different failures of a diagnosis (the second says it never looked at that change).
    int rank = 0;
    for (size_t i = 0; i < d->ranked.size() && rank == 0; ++i)
      if (CauseMismatch(*want.cause, d->ranked[i]).empty()) rank = static_cast<int>(i) + 1;
    auto failed = [&](std::string detail) {
      Verdict v = Failed(x, std::move(detail));
      v.opened_at = inc.opened_at;
      v.cause_rank = rank;
      return v;
    };
    if (d->ranked.empty()) return failed("a cause ranked first, but the diagnosis of " + inc.id + " found " + Ranking(*d));
    std::string miss = CauseMismatch(*want.cause, d->ranked.front());
    if (!miss.empty())
      return failed("the cause ranked first has " + miss + "; the expected cause " +
                    (rank > 0 ? "is ranked " + std::to_string(rank)
                              : "is not among the " + std::to_string(d->ranked.size()) + " candidates at all") +
                    "; ranking: " + Ranking(*d));
    seen += ", cause " + Describe(d->ranked.front()) + " ranked first";
  }
  if (want.second_cause) {
    if (d->ranked.size() < 2) return Failed(x, "a second cause, but the ranking is: " + Ranking(*d));
    std::string miss = CauseMismatch(*want.second_cause, d->ranked[1]);
    if (!miss.empty()) return Failed(x, "the cause ranked second has " + miss + "; ranking: " + Ranking(*d));
  }
  for (const auto& asset : want.ranked_below_cause)
    if (!d->ranked.empty() && d->ranked.front().asset_id == asset)
      return Failed(x, asset + " ranked below the first cause, but it ranks first: " + Ranking(*d));
  for (const auto& asset : want.blast_radius_includes)
    if (!HoldsString(d->blast_radius, asset))
      return Failed(x, "the blast radius includes " + asset + ", but it is: " + d->blast_radius.dump());
  if (!want.blast_radius_includes.empty()) seen += ", blast radius holds " + std::to_string(want.blast_radius_includes.size()) + " named asset(s)";
  for (const auto& want_impact : want.impact) {
    std::optional<int64_t> count;
    const Json& impact = d->blast_radius.value("impact", Json::array());
    for (const auto& i : impact)
      if (i.is_object() && i.value("asset", "") == want_impact.asset && i.contains("count") && i["count"].is_number_integer())
        count = i["count"].get<int64_t>();
    if (!count) return Failed(x, "an impact count for " + want_impact.asset + ", but the blast radius counts: " + impact.dump());
    if ((want_impact.at_least && *count < *want_impact.at_least) || (want_impact.at_most && *count > *want_impact.at_most))
      return Failed(x, "an impact of " + (want_impact.at_least ? std::to_string(*want_impact.at_least) : std::string("any")) + " to " +
                           (want_impact.at_most ? std::to_string(*want_impact.at_most) : std::string("any")) + " for " +
                           want_impact.asset + ", but it counts " + std::to_string(*count));
    seen += ", " + std::to_string(*count) + " in reach of " + want_impact.asset;
  }
  return Ok(x, seen);
}

// CheckIncident with the incident's opening time and the cause's rank kept on every verdict.
Verdict CheckIncidentRanked(const Expectation& x, ReplayProduct& product, const ProductTimeline& timeline) {
  Verdict v = CheckIncident(x, product, timeline);
  if (v.ok && x.incident->cause) v.cause_rank = 1;
  if (!v.opened_at) {
    auto found = product.Incidents(x.incident->asset);
    if (found.ok() && !found->empty())
      v.opened_at = std::min_element(found->begin(), found->end(), [](const auto& a, const auto& b) {
                      return a.opened_at < b.opened_at;
                    })->opened_at;
  }
  return v;
}

Verdict CheckNoIncident(const Expectation& x, ReplayProduct& product) {
  auto found = product.Incidents(x.no_incident->asset);
  if (!found.ok()) return Failed(x, "the incidents could not be read: " + found.status().message());
  if (found->empty()) return Ok(x, "none opened");
  const auto& i = found->back();
  return Failed(x, std::to_string(found->size()) + " incident(s) opened, the first " + i.id + " at " +
                       FormatRfc3339(i.opened_at) + ": " + i.title);
}

Verdict CheckChange(const Expectation& x, store::StateStore& store) {
  const ChangeExpectation& want = *x.change;
  auto events = store.ChangeEventsFor(want.asset, FromUnixMillis(0), FromUnixMillis(7258118400000));  // to 2200-01-01 (nanosecond time points end in 2262);
  if (!events.ok()) return Failed(x, "the change timeline could not be read: " + events.status().message());
  std::string kinds;
  int matching = 0;
  for (const auto& e : *events) {
    if (e.kind == want.kind) ++matching;
    if ((", " + kinds + ", ").find(", " + e.kind + ", ") == std::string::npos) kinds += (kinds.empty() ? "" : ", ") + e.kind;
  }
  std::string seen = "the timeline of " + want.asset + " holds " + std::to_string(events->size()) + " event(s)" +
                     (kinds.empty() ? "" : " (" + kinds + ")");
  if ((matching > 0) == want.present) return Ok(x, seen);
  return Failed(x, seen);
}

Verdict CheckTool(const Expectation& x, ReplayProduct& product) {
  const ToolExpectation& want = *x.tool;
  auto result = product.CallTool(want.agent, want.name, want.arguments);
  if (!result.ok()) return Failed(x, "the call failed: " + result.status().message());
  std::string text = result->dump();
  if (result->value("isError", false))
    return Failed(x, "the tool answered isError: " + text.substr(0, 400));
  for (const auto& s : want.result_contains)
    if (text.find(s) == std::string::npos) return Failed(x, "the answer does not contain '" + s + "': " + text.substr(0, 400));
  for (const auto& s : want.result_excludes)
    if (text.find(s) != std::string::npos) return Failed(x, "the answer contains '" + s + "'");
  return Ok(x, "the answer holds what was expected");
}

}  // namespace

Verdict CheckExpectation(const Expectation& x, store::StateStore& store, ReplayProduct& product,
                         const ProductTimeline& timeline) {
  if (x.incident) return CheckIncidentRanked(x, product, timeline);
  if (x.no_incident) return CheckNoIncident(x, product);
  if (x.change) return CheckChange(x, store);
  return CheckTool(x, product);
}

}  // namespace dw::replay
