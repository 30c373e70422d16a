// IncidentDesk: evaluation (signals → incidents), reads, a person's transitions and diagnosis.
// Every write of one call happens in one store transaction.
#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>
#include <unordered_map>
#include <unordered_set>

#include "config/suggest.h"
#include "incidents/diagnosis.h"
#include "incidents/grouping.h"
#include "incidents/incident_codec.h"
#include "incidents/incidents.h"
#include "incidents/lifecycle.h"
#include "incidents/own_cause.h"
#include "incidents/release_guard.h"
#include "incidents/severity.h"

namespace dw::incidents {

namespace {

constexpr double kGroupingRisk = 0.5;  // changes at least this risky can tie damage together
constexpr int kMaxIncidentsRead = 100000;

std::string IdFor(TimePoint opened, const std::string& root, const std::string& first_key) {
  uint64_t h = 1469598103934665603ULL;
  for (char c : root + "\n" + first_key + "\n" + std::to_string(ToUnixMillis(opened))) {
    h ^= static_cast<unsigned char>(c);
    h *= 1099511628211ULL;
  }
  std::string t = FormatRfc3339(opened);  // 2026-11-24T14:02:00.000Z
  char hex[8];
  std::snprintf(hex, sizeof hex, "%06llx", static_cast<unsigned long long>(h & 0xffffff));
  return "inc-" + t.substr(0, 4) + t.substr(5, 2) + t.substr(8, 2) + "-" + t.substr(11, 2) + t.substr(14, 2) + "-" + hex;
}

SignalRef RefOf(const Signal& s) {
  SignalRef r;
  r.kind = s.kind;
  r.key = s.key;
  r.asset_id = s.asset_id;
  r.shape = s.shape;
  r.first_at = s.at;
  r.last_at = s.at;
  r.count = 1;
  r.bad_now = true;
  r.value = s.value;
  r.expected = s.expected;
  r.summary = s.summary;
  r.evidence = s.evidence;
  return r;
}

void AddUnique(std::vector<std::string>& list, const std::string& v) {
  if (std::find(list.begin(), list.end(), v) == list.end()) list.push_back(v);
}

// Each damaged asset of the pass whose own writers explain its own signals' shapes (own_cause.h),
// with those writers, judged against the change events of the diagnosis window before its signals.
std::map<std::string, std::vector<std::string>> OwnCausesOfPass(const graph::GraphIndex* index, const GroupingInput& in,
                                                                 const std::vector<const Signal*>& damage_signal,
                                                                 const std::vector<Incident>& active,
                                                                 const EventsByAsset& events,
                                                                 std::chrono::milliseconds window, int max_depth) {
  struct Own {
    std::vector<SignalShape> shapes;
    TimePoint first_bad;
  };
  std::map<std::string, Own> own;
  std::unordered_set<std::string> damaged;
  for (const Incident& a : active) damaged.insert(a.damaged_assets.begin(), a.damaged_assets.end());
  for (size_t i = 0; i < in.damage.size(); ++i) {
    damaged.insert(in.damage[i].asset);
    const Signal& s = *damage_signal[i];
    if (s.kind == SignalKind::kChange || s.asset_id.empty()) continue;  // the release guard's: no shape of its own
    auto [it, added] = own.try_emplace(s.asset_id, Own{{}, s.at});
    it->second.shapes.push_back(s.shape);
    it->second.first_bad = std::min(it->second.first_bad, s.at);
  }
  std::map<std::string, std::vector<std::string>> out;
  if (events.empty()) return out;
  auto is_damaged = [&damaged](const std::string& a) { return damaged.count(a) > 0; };
  for (const auto& [asset, o] : own) {
    std::vector<std::string> writers =
        OwnCauseWriters(index, asset, o.shapes, o.first_bad, window, events, is_damaged, max_depth);
    if (!writers.empty()) out[asset] = std::move(writers);
  }
  return out;
}

}  // namespace

DeskOptions DeskOptionsFor(const config::Workspace& ws) {
  DeskOptions o;
  o.group_window = ws.incident_group_window;
  o.timezone = ws.timezone;
  if (!ws.notify.empty()) o.notify = &ws;
  return o;
}

IncidentDesk::IncidentDesk(store::StateStore& store, const graph::ContextGraph* graph, const Clock& clock,
                           DeskOptions options)
    : store_(store), graph_(graph), clock_(clock), options_(std::move(options)) {}

IncidentDesk::IncidentDesk(store::StateStore& store, const graph::GraphIndex* index, const Clock& clock,
                           DeskOptions options)
    : store_(store), index_(index), clock_(clock), options_(std::move(options)) {}

Result<std::vector<Incident>> IncidentDesk::Active() {
  std::vector<Incident> out;
  for (IncidentStatus s : {IncidentStatus::kOpen, IncidentStatus::kAcknowledged, IncidentStatus::kMitigated}) {
    auto rows = store_.Incidents(IncidentStatusName(s), kMaxIncidentsRead);
    if (!rows.ok()) return rows.status();
    for (const store::IncidentRecord& r : *rows) {
      auto i = FromRecord(r);
      if (!i.ok()) return i.status();
      out.push_back(std::move(*i));
    }
  }
  std::sort(out.begin(), out.end(), [](const Incident& a, const Incident& b) {
    return a.opened_at != b.opened_at ? a.opened_at < b.opened_at : a.id < b.id;
  });
  return out;
}

// An abbreviated id is looked for among the newest incidents this many, and must be at least this
// long ("inc-" and a little more), so that "i" does not pick an incident.
constexpr int kPrefixSearchIncidents = 5000;
constexpr size_t kMinIdPrefix = 6;

Result<Incident> IncidentDesk::Load(const std::string& id) {
  auto row = store_.GetIncident(id);
  if (!row.ok()) return row.status();
  if (!row->has_value()) {
    auto all = store_.Incidents("", kPrefixSearchIncidents);
    if (!all.ok()) return all.status();
    std::vector<std::string> ids, matches;
    for (const auto& r : *all) {
      ids.push_back(r.id);
      // An id may be abbreviated, as git abbreviates commits: a prefix one incident alone has.
      if (id.size() >= kMinIdPrefix && r.id.compare(0, id.size(), id) == 0) matches.push_back(r.id);
    }
    std::string shown = id.substr(0, 80);
    if (matches.size() == 1) {
      row = store_.GetIncident(matches.front());
      if (!row.ok()) return row.status();
      if (row->has_value()) return FromRecord(**row);
    } else if (matches.size() > 1) {
      std::string listed;
      for (size_t i = 0; i < matches.size() && i < 5; ++i) listed += (i ? ", " : "") + matches[i];
      return InvalidArgument("incident id " + shown + " is ambiguous: " + std::to_string(matches.size()) +
                             " incidents start with it (" + listed + (matches.size() > 5 ? ", ..." : "") +
                             "); give more of the id");
    }
    if (ids.empty()) return NotFound("no incident " + shown + ": the store holds no incident yet");
    return NotFound("no incident " + shown + config::ClosestList(id, ids, 3));
  }
  return FromRecord(**row);
}

Status IncidentDesk::LinkRecurrence(Incident& incident) {
  if (incident.cause_kind.empty() || incident.recurrence_of) return Status::Ok();
  auto rows = store_.IncidentsOverlapping(incident.opened_at - options_.recurrence_window, incident.opened_at);
  if (!rows.ok()) return rows.status();
  for (auto it = rows->rbegin(); it != rows->rend(); ++it) {  // newest first
    if (it->id == incident.id || it->opened_at >= incident.opened_at) continue;
    auto earlier = FromRecord(*it);
    if (!earlier.ok()) continue;  // a damaged row is not a reason to refuse the link search
    if (earlier->cause_kind == incident.cause_kind && earlier->cause_asset == incident.cause_asset) {
      incident.recurrence_of = earlier->id;
      incident.notes.push_back("the same cause (" + incident.cause_kind + " on " + incident.cause_asset +
                               ") was behind " + earlier->id + ", opened " + FormatRfc3339(earlier->opened_at));
      return Status::Ok();
    }
  }
  return Status::Ok();
}

Result<EvaluationReport> IncidentDesk::Evaluate(const SignalBatch& batch) {
  const TimePoint now = clock_.Now();
  EvaluationReport report;
  report.signals_seen = batch.signals.size();
  report.gaps = batch.gaps;
  report.notes = batch.notes;

  auto active_or = Active();
  if (!active_or.ok()) return active_or.status();
  std::vector<Incident> active = std::move(*active_or);
  std::unordered_map<std::string, std::pair<size_t, size_t>> held;  // key -> (incident, signal)
  for (size_t i = 0; i < active.size(); ++i)
    for (size_t s = 0; s < active[i].signals.size(); ++s) held.emplace(active[i].signals[s].key, std::make_pair(i, s));
  std::vector<bool> changed(active.size(), false), good_seen(active.size(), false);

  GroupingInput in;
  in.window = options_.group_window;
  std::vector<const Signal*> damage_signal;
  std::unordered_set<std::string> fresh_keys;
  std::optional<TimePoint> earliest, latest;
  for (const Signal& s : batch.signals) {
    if (s.bad) ++report.signals_bad;
    auto h = held.find(s.key);
    if (h != held.end()) {
      SignalRef& ref = active[h->second.first].signals[h->second.second];
      if (s.at <= ref.last_at && !(s.at == ref.last_at && ref.bad_now != s.bad)) {
        ++report.signals_ignored;  // seen already
        continue;
      }
      ref.last_at = std::max(ref.last_at, s.at);
      ref.bad_now = s.bad;
      if (s.bad) ++ref.count;
      if (!s.bad) good_seen[h->second.first] = true;
      changed[h->second.first] = true;
      continue;
    }
    if (!s.bad) continue;  // normal, and nothing it could verify
    if (!fresh_keys.insert(s.key).second) {
      ++report.signals_ignored;  // the same source twice in one batch
      continue;
    }
    if (s.kind == SignalKind::kChange) {
      GuardVerdict guard = WithIndex([&](const graph::GraphIndex* ix) {
        return ix ? JudgeRestore(*ix, s.asset_id, options_.max_depth) : GuardVerdict{};
      });
      if (!guard.customer_facing_reached) {
        ++report.signals_ignored;
        report.notes.push_back(s.key.substr(7) + " on " + s.asset_id + ": " +
                               (guard.known ? "its writes reach no customer-facing consumer"
                                            : "the job is not in the context graph, so what it reaches is unknown") +
                               "; not an incident by itself, kept as a cause for diagnosis");
        continue;
      }
      std::vector<std::string> damaged = guard.damaged;
      if (damaged.empty()) damaged.push_back(s.asset_id);
      for (const std::string& d : damaged) {
        in.damage.push_back({d, s.at});
        damage_signal.push_back(&s);
      }
      in.changes.push_back({s.asset_id, s.key, s.at, "restore_skipped_state"});
    } else {
      in.damage.push_back({s.asset_id.empty() ? s.key : s.asset_id, s.at});
      damage_signal.push_back(&s);
    }
    earliest = earliest ? std::min(*earliest, s.at) : s.at;
    latest = latest ? std::max(*latest, s.at) : s.at;
  }

  std::vector<Incident> opened;
  if (!in.damage.empty()) {
    // The changes of the diagnosis window before the signals: a damaged asset's own cause is judged
    // as far back as diagnosis looks (a flow revision saved the day before that inserts twice);
    // only those within the group window tie damage together.
    // Changes dated after the signals are read too, as diagnosis reads them (up to a window after,
    // no later than now): one whose time is only an upper bound (time_bound: at_or_before, seen by
    // a later pass) may have come first, and ties damage and is an own cause as in diagnosis; one
    // its platform dates after the signals is dropped (GroupSignals, MayPrecede).
    const TimePoint group_from = *earliest - options_.group_window;
    const TimePoint events_to =
        std::max(*latest, std::min(now, *latest + std::max(options_.group_window, options_.diagnosis_window)));
    auto events = store_.ChangeEventsBetween(std::min(group_from, *earliest - options_.diagnosis_window),
                                             events_to + std::chrono::milliseconds(1));
    if (!events.ok()) return events.status();
    std::unordered_set<std::string> keys;
    for (const auto& c : in.changes) keys.insert(c.key);
    for (const store::ChangeEvent& e : *events) {
      const bool upper_bound = TimeIsUpperBound(e);
      if (e.happened_at > *latest && !upper_bound) continue;  // dated after the damage by its platform
      if (e.happened_at >= group_from && e.risk >= kGroupingRisk && keys.insert("change:" + e.dedup_key).second)
        in.changes.push_back({e.asset_id, "change:" + e.dedup_key, e.happened_at, e.kind, upper_bound});
    }
    std::stable_sort(in.changes.begin(), in.changes.end(),
                     [](const auto& a, const auto& b) { return a.at != b.at ? a.at < b.at : a.key < b.key; });
    for (const Incident& a : active) {
      GroupingInput::OpenIncident o{a.id, a.damaged_assets, a.first_bad_at};
      o.assets.push_back(a.root_asset);
      in.open.push_back(std::move(o));
    }
    EventsByAsset by_asset;
    for (store::ChangeEvent& e : *events) by_asset[e.asset_id].push_back(std::move(e));
    in.own_cause = WithIndex([&](const graph::GraphIndex* ix) {
      return OwnCausesOfPass(ix, in, damage_signal, active, by_asset, options_.diagnosis_window, options_.max_depth);
    });
    std::vector<SignalGroup> groups =
        WithIndex([&](const graph::GraphIndex* ix) { return GroupSignals(ix, in); });

    std::unordered_map<std::string, size_t> active_no;
    for (size_t i = 0; i < active.size(); ++i) active_no[active[i].id] = i;
    for (const SignalGroup& g : groups) {
      std::vector<const Signal*> sigs;
      std::unordered_set<const Signal*> seen;
      for (size_t d : g.damage)
        if (seen.insert(damage_signal[d]).second) sigs.push_back(damage_signal[d]);
      Incident* inc = nullptr;
      if (!g.incident_id.empty()) {
        inc = &active[active_no[g.incident_id]];
        changed[active_no[g.incident_id]] = true;
      } else {
        opened.emplace_back();
        inc = &opened.back();
        const Signal* guard = nullptr;
        for (const Signal* s : sigs)
          if (s->kind == SignalKind::kChange && !guard) guard = s;
        // The change that ties the group is its first known cause (diagnosis refines it), so a
        // recurrence links at once; without one the cause waits for the first diagnosis.
        if (guard) {
          inc->root_asset = guard->asset_id;
          inc->cause_kind = "restore_skipped_state";
          inc->cause_asset = guard->asset_id;
        } else if (!g.changes.empty()) {
          inc->root_asset = in.changes[g.changes.front()].asset;
          inc->cause_kind = in.changes[g.changes.front()].kind;
          inc->cause_asset = inc->root_asset;
        } else {
          inc->root_asset = g.most_upstream;
        }
        inc->opened_at = now;
        inc->first_bad_at = sigs.front()->at;
        inc->id = IdFor(now, inc->root_asset, sigs.front()->key);
        for (int n = 2;; ++n) {  // two incidents opened in the same minute on one root
          auto clash = store_.GetIncident(inc->id);
          if (!clash.ok()) return clash.status();
          bool in_batch = std::any_of(opened.begin(), opened.end() - 1, [&](const Incident& o) { return o.id == inc->id; });
          if (!clash->has_value() && !in_batch) break;
          inc->id = IdFor(now, inc->root_asset, sigs.front()->key) + "-" + std::to_string(n);
        }
        const Signal& first = *sigs.front();
        inc->title = guard ? "the release guard: " + guard->summary.substr(0, 200) : first.summary.substr(0, 200);
        inc->transitions.push_back({"", "open", "dw", now,
                                    guard ? "opened by the release guard at the collection that saw the restore"
                                          : "opened by " + std::to_string(sigs.size()) + " signal(s)"});
      }
      std::unordered_set<std::string> has;
      for (const SignalRef& r : inc->signals) has.insert(r.key);
      for (const Signal* s : sigs) {
        if (!has.insert(s->key).second) continue;
        inc->signals.push_back(RefOf(*s));
        inc->first_bad_at = std::min(inc->first_bad_at, s->at);
      }
      std::set<std::string> damaged(inc->damaged_assets.begin(), inc->damaged_assets.end());
      for (const std::string& a : g.assets)
        if (a.find("://") != std::string::npos) damaged.insert(a);
      inc->damaged_assets.assign(damaged.begin(), damaged.end());
      for (const std::string& n : g.notes) AddUnique(inc->notes, n);
      for (const Signal* s : sigs)
        if (s->asset_id.empty()) AddUnique(inc->notes, s->key + " names no asset: the incident stands on it alone");
      inc->updated_at = now;
    }
  }

  // Domain and owner of new incidents; severity of all that still need someone.
  DeskOptions no_counts = options_;
  no_counts.impact_counter = nullptr;
  auto size_up = [&](Incident& inc, bool fresh) {
    std::vector<std::string> assets = inc.damaged_assets;
    Sized sized = WithIndex([&](const graph::GraphIndex* ix) {
      if (fresh && ix) {
        for (const std::string& a : std::vector<std::string>{inc.root_asset}) {
          graph::AssetIndex n = ix->Find(a);
          if (n == graph::kNone) continue;
          inc.domain = ix->str(ix->asset(n).domain);
          inc.owner = ix->str(ix->asset(n).owner);
        }
        for (const std::string& a : assets) {
          graph::AssetIndex n = ix->Find(a);
          if (n == graph::kNone) continue;
          if (inc.domain.empty()) inc.domain = ix->str(ix->asset(n).domain);
          if (inc.owner.empty()) inc.owner = ix->str(ix->asset(n).owner);
        }
      }
      return SizeBlastRadius(ix, assets, now, no_counts, std::nullopt);
    });
    bool moved = sized.severity.level != inc.severity.level || sized.severity.consumer != inc.severity.consumer;
    inc.severity = sized.severity;
    return moved;
  };

  // Verification: an incident whose metric and check signals are all back to normal resolves.
  std::vector<bool> raised(active.size(), false), verified(active.size(), false);
  for (size_t i = 0; i < active.size(); ++i) {
    Incident& inc = active[i];
    const int level_before = inc.severity.level;
    if (good_seen[i]) {
      std::vector<std::string> back;
      bool all_good = true, any_data = false;
      for (const SignalRef& r : inc.signals) {
        if (r.kind == SignalKind::kChange) continue;
        any_data = true;
        if (r.bad_now) all_good = false;
        else back.push_back(r.key);
      }
      if (any_data && all_good) {
        std::string list;
        for (const std::string& b : back) list += (list.empty() ? "" : ", ") + b;
        DW_RETURN_IF_ERROR(ApplyTransition(inc, IncidentStatus::kResolved, "dw", now,
                                           "verified: every signal that opened it is back to normal (" + list + ")"));
        report.resolved.push_back(inc.id);
        changed[i] = true;
        verified[i] = true;
        continue;
      }
    }
    if (size_up(inc, false) || changed[i]) {
      changed[i] = true;
      inc.updated_at = now;
    }
    raised[i] = inc.severity.level < level_before;  // SEV1 is the worst
  }

  // An incident opened without a known cause is diagnosed once before its open notice is written,
  // so the alert and the finding card carry the cause ranked first and its explanation (the
  // first Diagnose would store the same cause a moment later, after the notice had gone out).
  std::map<std::string, std::string> open_explanation;
  for (Incident& inc : opened) {
    size_up(inc, true);
    if (options_.notify != nullptr && inc.cause_kind.empty()) {
      std::vector<graph::ImpactQuery> unused;
      auto d = WithIndex([&](const graph::GraphIndex* ix) { return RankCauses(inc, store_, ix, options_, now, &unused); });
      if (d.ok() && !d->ranked.empty()) {
        inc.cause_kind = d->ranked.front().cause_kind;
        inc.cause_asset = d->ranked.front().asset_id;
        open_explanation[inc.id] = d->ranked.front().explanation;
      }
    }
    DW_RETURN_IF_ERROR(LinkRecurrence(inc));
  }

  // The notices are written with the incidents: an incident never changes without its outbox
  // message, and a rolled-back pass leaves neither.
  using platforms::notify::EventKind;
  Status written = store_.InTransaction([&](store::StateStore& tx) -> Status {
    for (size_t i = 0; i < active.size(); ++i) {
      if (!changed[i]) continue;
      DW_RETURN_IF_ERROR(tx.PutIncident(ToRecord(active[i])));
      if (options_.notify == nullptr) continue;
      const Incident& inc = active[i];
      if (raised[i]) {
        auto n = NoticeOf(*options_.notify, inc, EventKind::kSeverityRaised, inc.severity.reason);
        n.revision = n.severity;  // raised to SEV2, later to SEV1: two messages
        DW_RETURN_IF_ERROR(EnqueueNotice(*options_.notify, tx, clock_, n));
      }
      if (verified[i])
        DW_RETURN_IF_ERROR(EnqueueNotice(*options_.notify, tx, clock_,
                                         NoticeOf(*options_.notify, inc, EventKind::kVerified,
                                                  inc.transitions.back().reason)));
    }
    for (const Incident& inc : opened) {
      DW_RETURN_IF_ERROR(tx.PutIncident(ToRecord(inc)));
      if (options_.notify != nullptr)
        DW_RETURN_IF_ERROR(EnqueueNotice(*options_.notify, tx, clock_,
                                         NoticeOf(*options_.notify, inc, EventKind::kOpen,
                                                  open_explanation.count(inc.id) ? open_explanation[inc.id] : inc.title)));
    }
    return Status::Ok();
  });
  if (!written.ok()) return written;
  for (const Incident& inc : opened) report.opened.push_back(inc.id);
  for (size_t i = 0; i < active.size(); ++i)
    if (changed[i] && std::find(report.resolved.begin(), report.resolved.end(), active[i].id) == report.resolved.end())
      report.updated.push_back(active[i].id);
  return report;
}

Result<Incident> IncidentDesk::Get(const std::string& id) {
  auto inc = Load(id);
  if (!inc.ok()) return inc.status();
  if (IsActive(inc->status)) {  // severity as of now: it rises as the deadline nears
    DeskOptions no_counts = options_;
    no_counts.impact_counter = nullptr;
    const TimePoint now = clock_.Now();
    Sized sized = WithIndex([&](const graph::GraphIndex* ix) {
      return SizeBlastRadius(ix, inc->damaged_assets, now, no_counts, std::nullopt);
    });
    inc->severity = sized.severity;
  }
  return inc;
}

Result<Incident> IncidentDesk::Move(const std::string& id, IncidentStatus to, const std::string& actor,
                                    const std::string& reason, CloseReason close) {
  // "dw" is the product itself, allowed only for resolution by verification (no person passes it).
  if (!(actor == "dw" && to == IncidentStatus::kResolved)) DW_RETURN_IF_ERROR(CheckPersonActor(actor));
  auto inc = Load(id);
  if (!inc.ok()) return inc.status();
  const TimePoint now = clock_.Now();
  std::string why = reason;
  if (to == IncidentStatus::kClosed) why = std::string("closed as ") + CloseReasonName(close) + (reason.empty() ? "" : ": " + reason);
  DW_RETURN_IF_ERROR(ApplyTransition(*inc, to, actor, now, why));
  inc->close_reason = close;
  Status written = store_.InTransaction([&](store::StateStore& tx) -> Status {
    if (to == IncidentStatus::kClosed) {
      // The detector learns these points as normal from now on (a person said they are).
      for (const SignalRef& s : inc->signals) {
        if (s.kind != SignalKind::kMetric || s.key.rfind("metric:", 0) != 0) continue;
        store::MetricMark mark;
        mark.metric = s.key.substr(7);
        mark.from = std::min(s.first_at, now);
        mark.to = std::max(s.last_at, mark.from);
        mark.author = actor;
        mark.note = "incident " + inc->id + " closed as " + CloseReasonName(close) + " by " + actor +
                    (reason.empty() ? "" : ": " + reason);
        auto added = tx.AddMetricMark(mark);
        if (!added.ok()) return added.status();
      }
    }
    // No notice here: the resolution is told with the receipt that records it
    // (actions::NotifyResolved), so the alert closes with the receipt's summary and hash.
    return tx.PutIncident(ToRecord(*inc));
  });
  if (!written.ok()) return written;
  return inc;
}

Result<Incident> IncidentDesk::Acknowledge(const std::string& id, const std::string& actor, const std::string& reason) {
  return Move(id, IncidentStatus::kAcknowledged, actor, reason, CloseReason::kNone);
}
Result<Incident> IncidentDesk::Mitigate(const std::string& id, const std::string& actor, const std::string& reason) {
  return Move(id, IncidentStatus::kMitigated, actor, reason, CloseReason::kNone);
}
Result<Incident> IncidentDesk::Resolve(const std::string& id, const std::string& actor, const std::string& reason) {
  DW_RETURN_IF_ERROR(CheckPersonActor(actor));  // a person: "dw" is refused here
  return Move(id, IncidentStatus::kResolved, actor, reason, CloseReason::kNone);
}
Result<Incident> IncidentDesk::ResolveByVerification(const std::string& id, const std::string& reason) {
  return Move(id, IncidentStatus::kResolved, "dw", "verified: " + reason, CloseReason::kNone);
}
Result<Incident> IncidentDesk::Close(const std::string& id, const std::string& actor, CloseReason reason,
                                     const std::string& note) {
  if (reason == CloseReason::kNone) return InvalidArgument("close needs a reason: expected or false_positive");
  return Move(id, IncidentStatus::kClosed, actor, note, reason);
}

Result<Diagnosis> IncidentDesk::Diagnose(const std::string& id) {
  auto inc = Load(id);
  if (!inc.ok()) return inc.status();
  const TimePoint now = clock_.Now();
  std::vector<graph::ImpactQuery> queries;
  auto d = WithIndex([&](const graph::GraphIndex* ix) { return RankCauses(*inc, store_, ix, options_, now, &queries); });
  if (!d.ok()) return d.status();
  // impact_sql runs on the warehouse: outside the graph's lock.
  if (options_.impact_counter && !queries.empty()) {
    TimePoint since = inc->first_bad_at;
    for (const SignalRef& s : inc->signals) since = std::min(since, s.first_at);
    graph::BlastRadiusReport report{std::move(d->blast_radius), std::move(queries)};
    graph::FillImpactCounts(&report, since, options_.impact_counter);
    d->blast_radius = std::move(report.body);
  }
  std::string kind = d->ranked.empty() ? "" : d->ranked.front().cause_kind;
  std::string asset = d->ranked.empty() ? "" : d->ranked.front().asset_id;
  if (kind != inc->cause_kind || asset != inc->cause_asset) {
    inc->cause_kind = kind;
    inc->cause_asset = asset;
    inc->recurrence_of.reset();
    DW_RETURN_IF_ERROR(LinkRecurrence(*inc));
    inc->updated_at = now;
    DW_RETURN_IF_ERROR(store_.PutIncident(ToRecord(*inc)));
  }
  if (inc->recurrence_of) d->notes.push_back("a recurrence of " + *inc->recurrence_of + " (the same cause on the same asset within 30 days)");
  return d;
}

Result<std::vector<CoverWindow>> IncidentDesk::WindowsCovering(const std::string& metric, const std::string& asset_id) {
  auto rows = store_.IncidentsOverlapping(FromUnixMillis(0), clock_.Now() + std::chrono::milliseconds(1));
  if (!rows.ok()) return rows.status();
  std::vector<CoverWindow> out;
  for (const store::IncidentRecord& r : *rows) {
    auto inc = FromRecord(r);
    if (!inc.ok()) return inc.status();
    if (inc->close_reason != CloseReason::kNone) continue;  // a person said the points are normal
    bool covers = !asset_id.empty() && (inc->root_asset == asset_id ||
                                        std::find(inc->damaged_assets.begin(), inc->damaged_assets.end(), asset_id) !=
                                            inc->damaged_assets.end());
    for (const SignalRef& s : inc->signals)
      if (!metric.empty() && s.key == "metric:" + metric) covers = true;
    if (covers) out.push_back({inc->id, inc->first_bad_at, inc->closed_at});
  }
  return out;
}

namespace {

// Drops from `batch` the signals observed before `cursor` (read again in a pass's overlap) whose
// source belongs to an incident resolved or closed at or after the signal's time: that signal was
// judged, and closed, already.
Status DropSignalsOfClosedIncidents(store::StateStore& store, TimePoint from, TimePoint cursor, TimePoint now,
                                    SignalBatch& batch) {
  bool any = false;
  for (const Signal& s : batch.signals) any |= s.at < cursor;
  if (!any) return Status::Ok();
  auto rows = store.IncidentsOverlapping(from, now + std::chrono::milliseconds(1));
  if (!rows.ok()) return rows.status();
  std::unordered_map<std::string, TimePoint> closed;  // signal key -> latest close of an incident holding it
  for (const store::IncidentRecord& r : *rows) {
    auto inc = FromRecord(r);
    if (!inc.ok()) return inc.status();
    if (!inc->closed_at) continue;
    for (const SignalRef& ref : inc->signals) {
      auto [it, added] = closed.emplace(ref.key, *inc->closed_at);
      if (!added) it->second = std::max(it->second, *inc->closed_at);
    }
  }
  std::erase_if(batch.signals, [&](const Signal& s) {
    auto c = closed.find(s.key);
    return s.at < cursor && c != closed.end() && c->second >= s.at;
  });
  return Status::Ok();
}

// The gaps observed before `cursor` were reported by the pass that read them first.
void DropGapsReadAgain(TimePoint cursor, SignalBatch& batch) {
  std::erase_if(batch.gaps, [&](const ObservationGap& g) { return g.at < cursor; });
}

}  // namespace

Result<EvaluationReport> RunSignalPass(const config::Workspace& ws, IncidentDesk& desk, store::StateStore& store,
                                       const Clock& clock, std::chrono::milliseconds overlap) {
  const TimePoint now = clock.Now();
  // The cursor, then the high-water mark: every row stamped at or below the mark is committed and
  // visible to the reads below, and what commits meanwhile is above it, left for the next pass.
  // In this order a cursor another replica moved meanwhile is still at or below the mark.
  auto seq_cursor = store.GetCursor(kLastSeqCursor);
  if (!seq_cursor.ok()) return seq_cursor.status();
  auto through = store.CommittedSeq();
  if (!through.ok()) return through.status();
  GatherOptions g;
  g.through_seq = *through;
  if (seq_cursor->has_value()) {
    int64_t after = 0;
    try {
      size_t used = 0;
      after = std::stoll(**seq_cursor, &used);
      if (used != (*seq_cursor)->size() || after < 0) throw std::invalid_argument("trailing");
    } catch (const std::exception&) {
      return DataLoss("store cursor " + std::string(kLastSeqCursor) + " is not a commit sequence number: " + **seq_cursor);
    }
    // A cursor past the store's own sequence was not written by a pass of this store (a restored
    // or copied cursor table): reading from it would skip everything up to it.
    if (after > *through)
      return DataLoss("store cursor " + std::string(kLastSeqCursor) + " is " + std::to_string(after) +
                      ", past the store's last committed sequence " + std::to_string(*through));
    g.after_seq = after;
  }
  SignalBatch batch;
  if (g.after_seq) {
    auto read = GatherSignals(ws, store, clock, g);
    if (!read.ok()) return read.status();
    batch = *std::move(read);
  } else {
    // The store's first pass by the sequence: by time, from the last pass's time or the window.
    auto cursor = store.GetCursor(kLastPassCursor);
    if (!cursor.ok()) return cursor.status();
    g.since = now - ws.incident_group_window;
    if (cursor->has_value()) {
      try {
        g.since = FromUnixMillis(std::stoll(**cursor));
      } catch (const std::exception&) {
        return DataLoss("store cursor " + std::string(kLastPassCursor) + " is not a time: " + **cursor);
      }
    }
    const TimePoint read_from = g.since;
    g.since = read_from - overlap;
    auto read = GatherSignals(ws, store, clock, g);
    if (!read.ok()) return read.status();
    batch = *std::move(read);
    if (overlap.count() > 0) {
      DW_RETURN_IF_ERROR(DropSignalsOfClosedIncidents(store, g.since, read_from, now, batch));
      DropGapsReadAgain(read_from, batch);
    }
  }
  auto report = desk.Evaluate(batch);
  if (!report.ok()) return report.status();
  DW_RETURN_IF_ERROR(store.SetCursor(kLastSeqCursor, std::to_string(*through)));
  // When the pass ran: what `dw status` shows, and where a store without the sequence starts.
  DW_RETURN_IF_ERROR(store.SetCursor(kLastPassCursor, std::to_string(ToUnixMillis(now))));
  return report;
}

}  // namespace dw::incidents
