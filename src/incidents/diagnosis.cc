#include "incidents/diagnosis.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "graph/blast_radius.h"
#include "incidents/cause_shape.h"
#include "incidents/change_facets.h"
#include "incidents/lineage_walk.h"
#include "incidents/own_cause.h"
#include "incidents/routine_runs.h"
#include "incidents/signal_shape.h"
#include "incidents/severity.h"
#include "observe/changes/change_kinds.h"

namespace dw::incidents {

namespace {

constexpr size_t kWalkBudget = 20000;
constexpr size_t kPerAssetQueries = 64;  // more upstream assets than this: one range scan
// What is usual for a flow's runs is learnt from this long before the window too (a daily flow has
// one run in a day), for at most this many flows.
constexpr auto kRunHistory = std::chrono::hours(24 * 7);
constexpr size_t kRunHistoryAssets = 16;
constexpr size_t kMaxEvidenceLines = 24;

std::string Hhmm(TimePoint t) { return FormatRfc3339(t).substr(11, 5); }

// Evidence lines a person can follow: log lines, execution ids, URLs, savepoints.
std::vector<std::string> EvidenceLines(const store::ChangeEvent& e) {
  std::vector<std::string> out;
  const Json& ev = e.evidence;
  if (!ev.is_object()) return out;
  for (const char* key : {"restore_line", "log_line"})
    if (ev.contains(key) && ev[key].is_string()) out.push_back(std::string(key == std::string("log_line") ? "log: " : "restore: ") + ev[key].get<std::string>());
  for (const char* key : {"savepoint_path", "execution_id", "job_id", "flow_revision", "from_revision", "to_revision",
                          "state", "url", "query_id", "user",
                          "statement_type", "rows_inserted", "rows_updated", "rows_deleted", "query_tag"})
    if (ev.contains(key) && ((ev[key].is_string() && !ev[key].get<std::string>().empty()) || ev[key].is_number()))
      out.push_back(std::string(key) + ": " + (ev[key].is_string() ? ev[key].get<std::string>() : ev[key].dump()));
  if (ev.contains("log_excerpt") && ev["log_excerpt"].is_array())
    for (const Json& l : ev["log_excerpt"]) {
      if (out.size() >= 12) break;
      if (l.is_object()) out.push_back("log: " + l.value("message", std::string()));
    }
  // Java stack traces as the collectors keep them: first line and last "Caused by:" (a Flink
  // exception's trace, each failed Connect task's trace_head).
  if (ev.contains("trace") && ev["trace"].is_string()) out.push_back("trace: " + ev["trace"].get<std::string>());
  if (ev.contains("tasks") && ev["tasks"].is_array())
    for (const Json& t : ev["tasks"])
      if (t.is_object() && t.contains("trace_head") && t["trace_head"].is_string())
        out.push_back("task " + (t.contains("id") ? t["id"].dump() : std::string("?")) + " trace: " + t["trace_head"].get<std::string>());
  if (!e.reason.empty()) out.push_back("collector: " + e.reason);
  return out;
}

struct Scored {
  Candidate c;
  bool own = false;      // its change explains, on its own, the damage of a damaged asset it writes
  std::string fold_key;  // alike candidates fold into the best
  size_t change = 0;     // the change it is a facet of (GroupFacets)
  std::string reason;    // the collector's, for the facet line
};

bool IsRunEvent(const store::ChangeEvent& e) {
  return e.kind == observe::changes::kExecution || e.kind == observe::changes::kExecutionReplay;
}

}  // namespace

TimePoint FirstBadPoint(const Incident& incident) {
  std::optional<TimePoint> data, any;
  for (const SignalRef& s : incident.signals) {
    any = any ? std::min(*any, s.first_at) : s.first_at;
    if (s.kind != SignalKind::kChange) data = data ? std::min(*data, s.first_at) : s.first_at;
  }
  if (data) return *data;
  return any.value_or(incident.first_bad_at);
}

Result<Diagnosis> RankCauses(const Incident& incident, store::StateStore& store, const graph::GraphIndex* index,
                             const DeskOptions& options, TimePoint now,
                             std::vector<graph::ImpactQuery>* impact_queries) {
  Diagnosis d;
  d.incident_id = incident.id;
  d.first_bad_at = FirstBadPoint(incident);
  d.window_from = d.first_bad_at - options.diagnosis_window;
  // Changes dated after the first bad point are read too, up to a window after it (and no later
  // than now): one whose time is only an upper bound (seen then, happened at or before) may still
  // have come first; one its platform dates after the damage cannot, and is dropped below.
  const TimePoint window_to =
      std::max(d.first_bad_at, std::min(now, d.first_bad_at + options.diagnosis_window)) + std::chrono::milliseconds(1);

  std::vector<SignalShape> shapes;
  for (const SignalRef& s : incident.signals) shapes.push_back(s.shape);
  // Each damaged asset's own shapes, to tell damage carried down from damage of its own.
  std::map<std::string, std::vector<SignalShape>> shapes_of;
  for (const SignalRef& s : incident.signals)
    if (s.kind != SignalKind::kChange && !s.asset_id.empty()) shapes_of[s.asset_id].push_back(s.shape);
  // Whether some damage of `up` could show as some damage of `down` (CouldPropagate); true when
  // either has no signal of its own.
  auto carried = [&](const std::string& up, const std::string& down) {
    auto u = shapes_of.find(up), d = shapes_of.find(down);
    if (u == shapes_of.end() || d == shapes_of.end()) return true;
    for (SignalShape a : u->second)
      for (SignalShape b : d->second)
        if (CouldPropagate(a, b)) return true;
    return false;
  };

  // The damaged assets: those the signals name, and the incident's own list.
  std::set<std::string> damaged(incident.damaged_assets.begin(), incident.damaged_assets.end());
  for (const SignalRef& s : incident.signals)
    if (!s.asset_id.empty() && s.kind != SignalKind::kChange) damaged.insert(s.asset_id);

  // Where to read events: (asset, hops to the damage, path to the damage).
  struct Place {
    std::string asset;
    uint32_t hops = 0;
    std::vector<std::string> path;  // from the asset to the damaged asset
    bool downstream_of_damage = false;
    std::string damaged_above;  // a damaged asset it is downstream of
    // Downstream of damaged_above, yet upstream of damage that damaged_above could not have
    // carried down: judged as a cause of that damage.
    bool own_damage = false;
    // The damaged assets with signals of their own that it writes (itself when it is one, else
    // those it has an edge into): its changes are judged against their damage first.
    std::vector<std::string> writes;
  };
  std::vector<Place> places;
  if (index != nullptr) {
    std::vector<graph::AssetIndex> starts;
    for (const std::string& a : damaged) {
      graph::AssetIndex n = index->Find(a);
      if (n != graph::kNone) {
        starts.push_back(n);
      } else {
        places.push_back({a, 0, {a}, false, "", false, {a}});
        d.notes.push_back(a + " is not in the context graph: only its own change events were read");
      }
    }
    // What lies downstream of any damaged asset (bounded): a change there cannot explain the damage
    // above it.
    LineageWalker walker(*index);
    std::unordered_map<graph::AssetIndex, graph::AssetIndex> below;  // asset -> a damaged asset above it
    {
      const auto& down = walker.WalkAll(starts, WalkDirection::kDownstream, options.max_depth, kWalkBudget);
      for (size_t i = 0; i < down.size(); ++i)
        if (down[i].depth > 0) below.emplace(down[i].asset, walker.PathToStart(i).back());
    }
    const auto& up = walker.WalkAll(starts, WalkDirection::kUpstream, options.max_depth, kWalkBudget);
    if (walker.truncated())
      d.notes.push_back("the upstream walk stopped at " + std::to_string(kWalkBudget) + " assets");
    for (size_t i = 0; i < up.size(); ++i) {
      Place p;
      p.asset = index->id(up[i].asset);
      p.hops = up[i].depth;
      for (graph::AssetIndex a : walker.PathToStart(i)) p.path.push_back(index->id(a));
      auto it = below.find(up[i].asset);
      if (it != below.end() && !damaged.count(p.asset)) {
        p.damaged_above = index->id(it->second);
        // Downstream of damage, it cannot explain that damage; but the damaged asset it feeds
        // may hold damage that the one above could not have carried down (a doubled load below
        // a table with new nulls): then it is judged as a cause of that damage of its own.
        p.downstream_of_damage = p.path.empty() || carried(p.damaged_above, p.path.back());
        p.own_damage = !p.downstream_of_damage;
      }
      // A damaged asset is its own writer (the statements that wrote it); another asset writes the
      // damaged assets it has an edge into.
      if (shapes_of.count(p.asset)) {
        p.writes.push_back(p.asset);
      } else {
        for (graph::EdgeIndex ei : index->out(up[i].asset)) {
          const graph::EdgeEntry& e = index->edge(ei);
          const std::string& dst = index->id(e.dst);
          if (!e.IsStale() && e.dst != up[i].asset && shapes_of.count(dst) &&
              std::find(p.writes.begin(), p.writes.end(), dst) == p.writes.end())
            p.writes.push_back(dst);
        }
      }
      std::sort(p.writes.begin(), p.writes.end());
      places.push_back(std::move(p));
    }
  } else {
    for (const std::string& a : damaged) places.push_back({a, 0, {a}, false, "", false, {a}});
    d.notes.push_back("no context graph: only the damaged assets' own change events were read");
  }

  // Read the events of every place: one indexed query per asset for a few assets; one range scan
  // of the window, kept by asset, when the upstream is wide (thousands of queries cost more).
  std::vector<std::pair<store::ChangeEvent, size_t>> events;  // event, place
  for (const Place& p : places) d.assets_examined.push_back(p.asset);
  if (places.size() <= kPerAssetQueries) {
    for (size_t p = 0; p < places.size(); ++p) {
      auto got = store.ChangeEventsFor(places[p].asset, d.window_from, window_to);
      if (!got.ok()) return got.status();
      for (store::ChangeEvent& e : *got) events.emplace_back(std::move(e), p);
    }
  } else {
    std::unordered_map<std::string, size_t> place_of;
    for (size_t p = 0; p < places.size(); ++p) place_of.emplace(places[p].asset, p);
    auto got = store.ChangeEventsBetween(d.window_from, window_to);
    if (!got.ok()) return got.status();
    for (store::ChangeEvent& e : *got) {
      auto it = place_of.find(e.asset_id);
      if (it != place_of.end()) events.emplace_back(std::move(e), it->second);
    }
    std::stable_sort(events.begin(), events.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
  }
  events.erase(std::remove_if(events.begin(), events.end(),
                              [&d, &options](const auto& ev) { return !MayPrecede(ev.first, d.first_bad_at, options.diagnosis_window); }),
               events.end());
  d.events_examined = events.size();
  // The other runs on the same asset (for a duplicated run, and what is usual for the flow):
  // events are grouped by place.
  std::unordered_map<size_t, std::vector<store::ChangeEvent>> same_asset;
  for (const auto& [e, p] : events)
    if (IsRunEvent(e)) same_asset[p].push_back(e);
  // Runs before the window teach what is usual (a daily flow runs once a day): read for the
  // flows with runs in the window, a bounded few.
  {
    std::vector<size_t> flows;
    for (const auto& [p, runs] : same_asset) flows.push_back(p);
    std::sort(flows.begin(), flows.end());
    if (flows.size() > kRunHistoryAssets) {
      d.notes.push_back("what is usual for a flow's runs was learnt from the window alone for " +
                        std::to_string(flows.size() - kRunHistoryAssets) + " flow(s)");
      flows.resize(kRunHistoryAssets);
    }
    for (size_t p : flows) {
      auto got = store.ChangeEventsFor(places[p].asset, d.window_from - kRunHistory, d.window_from);
      if (!got.ok()) return got.status();
      for (store::ChangeEvent& e : *got)
        if (IsRunEvent(e)) same_asset[p].push_back(std::move(e));
    }
  }
  // Run times are told in the workspace's zone, as every other time of the answer.
  const config::TimeZone zone = config::ZoneOrUtc(options.timezone);
  std::unordered_map<size_t, RunProfile> profiles;
  for (const auto& [p, runs] : same_asset) profiles.emplace(p, LearnRuns(runs, &zone));
  const std::vector<store::ChangeEvent> none;
  RunProfile no_profile;
  no_profile.zone = &zone;

  const double half_life_ms = 6.0 * 3600 * 1000;
  std::vector<Scored> scored;
  std::vector<const store::ChangeEvent*> scored_events;  // parallel to scored
  std::vector<bool> scored_exceptional;
  for (const auto& [e, p] : events) {
    const Place& place = places[p];
    auto others = same_asset.find(p);
    const std::vector<store::ChangeEvent>& alike_runs = others == same_asset.end() ? none : others->second;
    auto prof = profiles.find(p);
    const RunProfile& profile = prof == profiles.end() ? no_profile : prof->second;
    // A writer of a damaged asset is judged against that asset's own damage first: the damaged
    // asset whose damage its change explains on its own, if any, and the shapes it is fitted to.
    std::string own_asset;
    std::vector<SignalShape> written_shapes;
    for (const std::string& w : place.writes) {
      auto found = shapes_of.find(w);
      if (found == shapes_of.end()) continue;  // a damaged asset with no signal of its own
      const std::vector<SignalShape>& own = found->second;
      written_shapes.insert(written_shapes.end(), own.begin(), own.end());
      if (own_asset.empty() && ExplainsOnItsOwn(e, own, alike_runs, index)) own_asset = w;
    }
    if (place.downstream_of_damage && own_asset.empty()) {
      d.ruled_out.push_back(e.kind + " on " + e.asset_id + " at " + FormatRfc3339(e.happened_at) +
                            ": downstream of the damaged " + place.damaged_above + ", so it cannot explain it");
      continue;
    }
    Candidate c;
    c.event_id = e.id;
    c.dedup_key = e.dedup_key;
    c.asset_id = e.asset_id;
    c.kind = e.kind;
    c.cause_kind = "";  // set below from the shape fit
    c.happened_at = e.happened_at;
    double before_ms = std::max<double>(0, std::chrono::duration<double, std::milli>(d.first_bad_at - e.happened_at).count());
    // Seen after the first bad point, with a time that is only an upper bound: it may have come
    // first, but nothing says how long before; weighed at most half of a change dated right before
    // the damage, and less the later it was seen.
    const bool seen_after = e.happened_at > d.first_bad_at;
    const double after_ms = seen_after ? std::chrono::duration<double, std::milli>(e.happened_at - d.first_bad_at).count() : 0;
    c.score.time_proximity = seen_after ? 0.5 * std::pow(0.5, after_ms / half_life_ms) : std::pow(0.5, before_ms / half_life_ms);
    c.score.lineage_distance = 1.0 / (1.0 + place.hops);
    c.score.risk = std::clamp(std::isfinite(e.risk) ? e.risk : 0.0, 0.0, 1.0);
    const double collector_risk = c.score.risk;
    ShapeFit fit = FitShape(e, written_shapes.empty() ? shapes : written_shapes, alike_runs, index, &profile);
    // A run that looks like the last N of its flow is weak evidence unless its own evidence names
    // a mechanism (a stale input, a second run for the slot); an exceptional one is a change a
    // person or the platform made, weighed as one.
    const RunJudgement run = JudgeRun(e, profile, alike_runs);
    if (run.known && !run.exceptional && fit.cause_kind == e.kind) {
      fit.fit *= 0.5;
      c.score.risk = std::min(c.score.risk, 0.1);
      fit.counter_evidence.insert(fit.counter_evidence.begin(), "routine: " + run.sentence);
    } else if (run.exceptional) {
      c.score.risk = std::max(c.score.risk, 0.5);
    }
    c.score.shape_fit = fit.fit;
    c.cause_kind = fit.cause_kind;
    c.score.total = kWeightTime * c.score.time_proximity + kWeightDistance * c.score.lineage_distance +
                    kWeightRisk * c.score.risk + kWeightShape * c.score.shape_fit;
    c.explanation = fit.explanation;
    c.evidence = EvidenceLines(e);
    if (run.exceptional) c.evidence.insert(c.evidence.begin(), "exceptional: " + run.sentence);
    c.counter_evidence = fit.counter_evidence;
    if (before_ms > 12 * 3600 * 1000.0)
      c.counter_evidence.push_back("it happened " + graph::HumanDuration(std::chrono::milliseconds(static_cast<int64_t>(before_ms))) +
                                   " before the first bad point");
    if (seen_after)
      c.counter_evidence.push_back("its platform keeps no time of it: it was seen at " + FormatRfc3339(e.happened_at) +
                                   ", after the first bad point (" + FormatRfc3339(d.first_bad_at) +
                                   "), and happened at or before then, so it may have come first");
    if (collector_risk < 0.3 && !run.exceptional) c.counter_evidence.push_back("its collector judged it low-risk (" + e.reason + ")");
    c.path = place.path;
    if (place.downstream_of_damage)  // and its change explains the damage of what it writes
      c.counter_evidence.push_back("it also reads the damaged " + place.damaged_above + ", but it writes " + own_asset +
                                   " and its own change explains that damage: judged as a cause of " + own_asset +
                                   ", not ruled out as downstream");
    else if (place.own_damage)
      c.counter_evidence.push_back("it also reads the damaged " + place.damaged_above + ", whose damage does not explain " +
                                   place.path.back() + "'s: judged as a cause of the latter");
    scored.push_back({std::move(c), !own_asset.empty(), e.asset_id + "\n" + fit.cause_kind + "\n" + fit.explanation, 0, e.reason});
    scored_events.push_back(&e);
    scored_exceptional.push_back(run.exceptional);
  }
  // One change, one candidate: the facets of one change (change_facets.h) are ranked once, by
  // the best of them, with the others gathered as its evidence.
  {
    const std::vector<size_t> change = GroupFacets(scored_events, scored_exceptional);
    for (size_t i = 0; i < scored.size(); ++i) scored[i].change = change[i];
  }
  // Each damaged asset's own writers are judged first: a change that explains, on its own, the
  // damage of an asset it writes ranks above every change that could only have explained it from
  // further up.
  std::sort(scored.begin(), scored.end(), [](const Scored& a, const Scored& b) {
    if (a.own != b.own) return a.own;
    if (a.c.score.total != b.c.score.total) return a.c.score.total > b.c.score.total;
    if (a.c.happened_at != b.c.happened_at) return a.c.happened_at > b.c.happened_at;
    return a.c.dedup_key < b.c.dedup_key;
  });
  // Gather each change's facets into its best one, then fold alike candidates (the same kind of
  // change on the same asset, explained the same way: a thousand green runs of one flow) into the
  // best of them.
  std::unordered_map<size_t, size_t> head_of;  // change -> index in scored of its best facet
  std::vector<Scored*> heads;
  for (size_t i = 0; i < scored.size(); ++i) {
    auto [it, first] = head_of.emplace(scored[i].change, i);
    if (first) {
      heads.push_back(&scored[i]);
      continue;
    }
    Candidate& head = scored[it->second].c;
    const Candidate& f = scored[i].c;
    Facet facet{f.kind, f.asset_id, f.happened_at, f.dedup_key};
    head.facets.push_back(facet);
    std::string line = "same change: the " + f.kind + (f.asset_id == head.asset_id ? "" : " on " + f.asset_id) + " at " +
                       Hhmm(f.happened_at) + (scored[i].reason.empty() ? "" : " (" + scored[i].reason.substr(0, 200) + ")");
    head.evidence.push_back(line);
    for (const std::string& l : f.evidence)
      if (head.evidence.size() < kMaxEvidenceLines && std::find(head.evidence.begin(), head.evidence.end(), l) == head.evidence.end())
        head.evidence.push_back(l);
  }
  std::unordered_map<std::string, size_t> folded;  // fold key -> index in d.ranked
  std::vector<size_t> alike;
  for (Scored* sp : heads) {
    Scored& s = *sp;
    auto it = folded.find(s.fold_key);
    if (it != folded.end()) {
      ++alike[it->second];
      continue;
    }
    if (d.ranked.size() >= kMaxCandidatesListed) continue;
    folded.emplace(s.fold_key, d.ranked.size());
    alike.push_back(0);
    d.ranked.push_back(std::move(s.c));
  }
  for (size_t i = 0; i < d.ranked.size(); ++i)
    if (alike[i] > 0) d.ranked[i].counter_evidence.push_back(std::to_string(alike[i]) + " more like it on the same asset scored no higher");

  if (d.ranked.empty()) {
    d.summary = "no change event on the damaged assets or upstream of them in the " +
                graph::HumanDuration(options.diagnosis_window) + " before the first bad point (" +
                FormatRfc3339(d.first_bad_at) + "); looked at " + std::to_string(d.assets_examined.size()) + " asset(s)";
  } else {
    const Candidate& top = d.ranked.front();
    d.summary = "the " + top.kind + " on " + top.asset_id + " at " + Hhmm(top.happened_at) + " ranks first (score " +
                std::to_string(static_cast<int>(std::lround(top.score.total * 100))) + "/100): " + top.explanation;
  }

  // The blast radius as of now, with impact counted from the earliest bad point.
  TimePoint since = incident.first_bad_at;
  for (const SignalRef& s : incident.signals) since = std::min(since, s.first_at);
  std::vector<std::string> assets(damaged.begin(), damaged.end());
  DeskOptions no_counts = options;
  no_counts.impact_counter = nullptr;
  Sized sized = SizeBlastRadius(index, assets, now, no_counts, since);
  d.severity = sized.severity;
  d.blast_radius = std::move(sized.blast_radius);
  if (impact_queries) *impact_queries = std::move(sized.impact_queries);
  return d;
}

namespace {
Json FacetsToJson(const std::vector<Facet>& facets) {
  Json out = Json::array();
  for (const Facet& f : facets)
    out.push_back({{"kind", f.kind}, {"asset", f.asset_id}, {"happened_at", FormatRfc3339(f.happened_at)}, {"dedup_key", f.dedup_key}});
  return out;
}
}  // namespace

Json DiagnosisToJson(const Diagnosis& d) {
  Json ranked = Json::array();
  int rank = 0;
  for (const Candidate& c : d.ranked) {
    ranked.push_back({{"rank", ++rank},
                      {"event_id", c.event_id},
                      {"dedup_key", c.dedup_key},
                      {"asset", c.asset_id},
                      {"kind", c.kind},
                      {"cause_kind", c.cause_kind},
                      {"happened_at", FormatRfc3339(c.happened_at)},
                      {"score", {{"total", c.score.total},
                                 {"time_proximity", c.score.time_proximity},
                                 {"lineage_distance", c.score.lineage_distance},
                                 {"risk", c.score.risk},
                                 {"shape_fit", c.score.shape_fit}}},
                      {"explanation", c.explanation},
                      {"evidence", c.evidence},
                      {"counter_evidence", c.counter_evidence},
                      {"path", c.path},
                      {"facets", FacetsToJson(c.facets)}});
  }
  return {{"incident_id", d.incident_id},
          {"first_bad_at", FormatRfc3339(d.first_bad_at)},
          {"window_from", FormatRfc3339(d.window_from)},
          {"summary", d.summary},
          {"ranked", ranked},
          {"assets_examined", d.assets_examined},
          {"events_examined", d.events_examined},
          {"ruled_out", d.ruled_out},
          {"severity", {{"level", d.severity.level},
                        {"name", "SEV" + std::to_string(d.severity.level)},
                        {"reason", d.severity.reason},
                        {"consumer", d.severity.consumer},
                        {"acts_at", d.severity.acts_at ? Json(FormatRfc3339(*d.severity.acts_at)) : Json(nullptr)}}},
          {"blast_radius", d.blast_radius},
          {"notes", d.notes}};
}

}  // namespace dw::incidents
