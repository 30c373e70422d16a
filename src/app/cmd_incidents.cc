// `dw incidents scan|list|show|diagnose|ack|mitigate|resolve|close|verify`: the judgement stage from the
// command line. Translates arguments and prints; every decision is incidents/'s.
#include <iostream>

#include "actions/actions.h"
#include "app/command_start.h"
#include "app/commands.h"
#include "config/time_zone.h"
#include "workspace/incident_desk.h"
#include "workspace/observation_gaps.h"
#include "workspace/proposals.h"
#include "base/rfc3339.h"
#include "config/duration.h"

namespace dw::app {
namespace {

int Fail(const std::string& what, const Status& s) {
  std::cerr << "dw incidents " << what << ": " << s.message() << "\n";
  return s.code() == StatusCode::kInvalidArgument ? 2 : 1;
}

std::string Sev(const incidents::Severity& s) { return "SEV" + std::to_string(s.level); }

void PrintIncident(const incidents::Incident& i, const config::TimeZone& zone) {
  std::cout << i.id << "  " << incidents::IncidentStatusName(i.status)
            << (i.close_reason != incidents::CloseReason::kNone ? std::string(" (") + incidents::CloseReasonName(i.close_reason) + ")" : "")
            << "  " << Sev(i.severity) << "\n"
            << "  " << i.title << "\n"
            << "  root: " << i.root_asset << "  domain: " << (i.domain.empty() ? "-" : i.domain)
            << "  owner: " << (i.owner.empty() ? "-" : i.owner) << "\n"
            << "  opened " << config::FormatWithOffset(i.opened_at, zone) << ", first bad point " << config::FormatWithOffset(i.first_bad_at, zone) << "\n"
            << "  severity: " << i.severity.reason << "\n"
            << "  damaged:";
  for (const std::string& a : i.damaged_assets) std::cout << " " << a;
  std::cout << "\n  signals:\n";
  for (const incidents::SignalRef& s : i.signals)
    std::cout << "    " << incidents::SignalKindName(s.kind) << " " << s.key << " (" << incidents::SignalShapeName(s.shape)
              << ", " << s.count << "x, " << (s.bad_now ? "still bad" : "back to normal") << "): " << s.summary << "\n";
  std::cout << "  transitions:\n";
  for (const incidents::Transition& t : i.transitions)
    std::cout << "    " << config::FormatWithOffset(t.at, zone) << "  " << (t.from.empty() ? "-" : t.from) << " -> " << t.to << "  by "
              << t.actor << (t.reason.empty() ? "" : ": " + t.reason) << "\n";
  if (!i.cause_kind.empty()) std::cout << "  cause: " << i.cause_kind << " on " << i.cause_asset << "\n";
  if (i.recurrence_of) std::cout << "  recurs: " << *i.recurrence_of << "\n";
  for (const std::string& n : i.notes) std::cout << "  note: " << n << "\n";
}

void PrintNotifications(const std::vector<platforms::notify::NotificationStatus>& list,
                        const config::TimeZone& zone) {
  std::cout << "  notifications:" << (list.empty() ? " none" : "") << "\n";
  for (const auto& n : list) {
    std::cout << "    " << n.channel << " " << n.event << ": " << n.state << " after " << n.attempts << " attempt(s), "
              << config::FormatWithOffset(n.updated_at, zone);
    if (n.state == "sent" && n.answer.is_object() && n.answer.contains("detail") && n.answer["detail"].is_string()) std::cout << ": " << n.answer["detail"].get<std::string>();
    if (!n.last_error.empty()) std::cout << (n.state == "failed" ? ": FAILED: " : ": last error: ") << n.last_error;
    std::cout << "\n";
  }
}

void PrintDiagnosis(const incidents::Diagnosis& d, const config::TimeZone& zone) {
  std::cout << d.incident_id << ": " << d.summary << "\n"
            << "first bad point " << config::FormatWithOffset(d.first_bad_at, zone) << "; changes since " << config::FormatWithOffset(d.window_from, zone)
            << " on " << d.assets_examined.size() << " asset(s), " << d.events_examined << " event(s)\n"
            << Sev(d.severity) << ": " << d.severity.reason << "\n";
  int rank = 0;
  for (const incidents::Candidate& c : d.ranked) {
    std::cout << "\n" << ++rank << ". " << c.kind << " on " << c.asset_id << " at " << config::FormatWithOffset(c.happened_at, zone)
              << "  score " << static_cast<int>(c.score.total * 100 + 0.5) << "/100 (time "
              << static_cast<int>(c.score.time_proximity * 100 + 0.5) << ", lineage "
              << static_cast<int>(c.score.lineage_distance * 100 + 0.5) << ", risk "
              << static_cast<int>(c.score.risk * 100 + 0.5) << ", shape " << static_cast<int>(c.score.shape_fit * 100 + 0.5)
              << ")\n   " << c.explanation << "\n   path:";
    for (const std::string& p : c.path) std::cout << " " << p;
    std::cout << "\n";
    for (const std::string& e : c.evidence) std::cout << "   + " << e << "\n";
    for (const std::string& e : c.counter_evidence) std::cout << "   - " << e << "\n";
  }
  for (const std::string& r : d.ruled_out) std::cout << "ruled out: " << r << "\n";
  if (d.blast_radius.contains("impact"))
    for (const Json& im : d.blast_radius["impact"])
      std::cout << "in reach: " << im.value("asset", "") << ": "
                << (im.contains("count") ? im["count"].dump() + " since " + im.value("since", "")
                                         : im.value("error", im.value("note", ""))) << "\n";
  for (const std::string& n : d.notes) std::cout << "note: " << n << "\n";
}

bool LooksLikeEmail(const std::string& s) {
  size_t at = s.find('@');
  return at != std::string::npos && at > 0 && at + 1 < s.size() && s.find(' ') == std::string::npos;
}

Json VerificationToJson(const actions::VerificationOutcome& v) {
  Json items = Json::array();
  for (const auto& i : v.items)
    items.push_back({{"kind", i.item.kind}, {"metric", i.item.metric}, {"table", i.item.table}, {"check", i.item.check},
                     {"passed", i.passed}, {"observed", i.observed}, {"threshold", i.threshold}, {"sentence", i.sentence}});
  Json out = {{"incident", v.incident_id}, {"ran", v.ran}, {"passed", v.passed}, {"plan", v.plan_source},
              {"items", items}, {"summary", v.summary}, {"resolved", v.resolved}};
  out["receipt"] = v.receipt ? Json{{"seq", v.receipt->seq}, {"hash", v.receipt->hash}} : Json();
  return out;
}

void PrintProposals(const actions::ProposeOutcome& o) {
  std::cout << o.set.incident_id << ": proposals for the " << o.set.cause_kind << " on " << o.set.cause_asset
            << " (domain " << (o.set.domain.empty() ? "-" : o.set.domain) << ")\n";
  for (const actions::StoredProposal& s : o.stored) {
    const actions::DraftedProposal& p = s.proposal;
    std::cout << "\n" << actions::ProposalKindName(p.kind) << ": " << p.title << "\n";
    if (!p.drafted) {
      std::cout << "  " << p.not_drafted << "\n";
      continue;
    }
    std::cout << "  " << s.id << " v" << s.version << (s.new_version ? " (new)" : " (unchanged)") << ", " << s.status
              << ": " << s.sending << "\n  why: " << p.why << "\n  touches:";
    for (const std::string& t : p.touches) std::cout << " " << t;
    std::cout << "\n";
    const Json& c = p.content;
    if (c.contains("targets"))
      for (const Json& t : c["targets"]) std::cout << "  - " << t.value("step", "") << "\n    why: " << t.value("why", "") << "\n";
    if (c.contains("changes"))
      for (const Json& x : c["changes"]) std::cout << "  - " << x.get<std::string>() << "\n";
    if (c.contains("hold_bad_release")) std::cout << "  - " << c.value("hold_bad_release", "") << "\n";
    if (c.contains("image_note")) std::cout << "  image: " << c.value("image_note", "") << "\n";
    if (c.contains("diff")) std::cout << c.value("diff", "");
    if (c.contains("steps") && c["steps"].is_array()) {
      for (const Json& x : c["steps"]) {
        if (x.is_object()) {
          std::cout << "  " << x.value("order", 0) << ". " << x.value("action", "") << "\n     before the next: "
                    << x.value("precondition", "") << "\n";
        } else {
          std::cout << "  step: " << x.get<std::string>() << "\n";
        }
      }
    }
    if (c.contains("excluded"))
      for (const Json& x : c["excluded"]) std::cout << "  not rerun: " << x.get<std::string>() << "\n";
    if (c.contains("items"))
      for (const Json& x : c["items"])
        std::cout << "  - " << x.value("kind", "") << " " << x.value("name", "") << ": " << x.value("threshold", "") << "\n";
    std::cout << "  undo: " << p.undo << "\n";
  }
  for (const std::string& n : o.set.notes) std::cout << "note: " << n << "\n";
}

}  // namespace

int CmdIncidents(const GlobalOptions& g, const IncidentsCommand& c) {
  const std::string& what = c.action;
  // show, diagnose and list read; every other action records (a transition, a receipt, a proposal).
  const bool records = what != "show" && what != "diagnose" && what != "list";
  StartedCommand start = StartCommand(g, "incidents " + what, {.records = records});
  if (!start) return start.exit_code;
  const auto& services = start.services;
  const Clock* clock = &services->clock();
  // Every time an answer prints reads in the workspace's zone, with its offset.
  const config::TimeZone zone = config::ZoneOrUtc(services->workspace().timezone);
  auto desk = workspace::OpenIncidentDesk(*services);
  if (!desk.ok()) return Fail(what, desk.status());
  const bool json = c.format == "json";

  if (what == "scan") {
    auto store = services->state();
    if (!store.ok()) return Fail(what, store.status());
    auto r = incidents::RunSignalPass(services->workspace(), **desk, **store, *clock);
    if (!r.ok()) return Fail(what, r.status());
    if (json) {
      std::cout << incidents::EvaluationToJson(*r).dump(2) << "\n";
      return 0;
    }
    std::cout << r->signals_seen << " signal(s), " << r->signals_bad << " bad: " << r->opened.size() << " opened, "
              << r->updated.size() << " updated, " << r->resolved.size() << " resolved by verification\n";
    for (const std::string& id : r->opened) {
      auto i = (*desk)->Get(id);
      if (i.ok()) std::cout << "opened " << id << " (" << Sev(i->severity) << "): " << i->title << "\n";
    }
    for (const std::string& id : r->updated) std::cout << "updated " << id << "\n";
    for (const std::string& id : r->resolved) std::cout << "resolved " << id << " (verified)\n";
    for (const std::string& line : workspace::ObservationGapLines(r->gaps, clock->Now(), nullptr))
      std::cout << line << "\n";
    for (const std::string& n : r->notes) std::cout << "note: " << n << "\n";
    return 0;
  }

  if (what == "list") {
    incidents::IncidentFilter f;
    f.asset_id = c.asset;
    f.domain = c.domain;
    if (!c.status.empty()) f.status = incidents::ParseIncidentStatus(c.status);
    f.limit = c.limit;
    if (!c.since.empty()) {
      auto t = config::ParseTimeOrAgo("--since", c.since, clock->Now());
      if (!t.ok()) return Fail(what, t.status());
      f.from = *t;
    }
    if (!c.until.empty()) {
      auto t = config::ParseTimeOrAgo("--until", c.until, clock->Now());
      if (!t.ok()) return Fail(what, t.status());
      f.to = *t;
    }
    auto h = (*desk)->GetHistory(f);
    if (!h.ok()) return Fail(what, h.status());
    if (json) {
      std::cout << incidents::HistoryToJson(*h).dump(2) << "\n";
      return 0;
    }
    if (h->incidents.empty()) std::cout << "no incident matches\n";
    for (const incidents::Incident& i : h->incidents)
      std::cout << i.id << "  " << incidents::IncidentStatusName(i.status) << "  " << Sev(i.severity) << "  "
                << config::FormatWithOffset(i.opened_at, zone) << "  " << i.root_asset << "  " << i.title << "\n";
    if (h->total > h->incidents.size()) std::cout << "(" << h->total << " match; --limit shows more)\n";
    for (const incidents::RecurrenceCount& r : h->recurrences)
      if (r.incidents > 1) std::cout << "recurring: " << r.cause_kind << " on " << r.asset_id << ": " << r.incidents << " incidents\n";
    return 0;
  }

  // Every action below takes an incident id, whole or abbreviated to a prefix one incident alone
  // has: resolved once, here, so what they store and print names the incident's full id.
  Result<std::string> resolved = workspace::ResolveIncidentId(**desk, c.id);
  if (!resolved.ok()) return Fail(what, resolved.status());
  const std::string& id = *resolved;

  if (what == "diagnose") {
    auto d = (*desk)->Diagnose(id);
    if (!d.ok()) return Fail(what, d.status());
    if (json) std::cout << incidents::DiagnosisToJson(*d).dump(2) << "\n";
    else PrintDiagnosis(*d, zone);
    return 0;
  }

  if (what == "verify") {
    auto store = services->state();
    if (!store.ok()) return Fail(what, store.status());
    if (!LooksLikeEmail(c.actor)) return Fail(what, InvalidArgument("--as must be your email, not '" + c.actor + "'"));
    auto v = actions::VerifyIncident(**store, services->workspace(), **desk, id,
                                     workspace::VerifyOptionsFor(*services, c.actor), *clock);
    if (!v.ok()) return Fail(what, Status(v.status().code(), v.status().message() + " (refusal recorded)"));
    if (json) {
      std::cout << VerificationToJson(*v).dump(2) << "\n";
    } else {
      std::cout << v->summary << "\nplan: " << v->plan_source << "\n";
      for (const auto& item : v->items)
        std::cout << "  " << (item.passed ? "pass  " : "FAIL  ") << item.sentence << "\n";
      if (v->resolved) std::cout << id << " resolved by verification\n";
      else std::cout << id << " stays open; the failure is recorded and its owners are asked to look\n";
      if (v->receipt) std::cout << "receipt " << v->receipt->seq << " " << v->receipt->hash << "\n";
    }
    return v->passed ? 0 : 1;
  }

  if (what == "propose") {
    auto out = workspace::ProposeIncidentFixes(*services, id, "dw (cli)");
    if (!out.ok()) return Fail(what, out.status());
    if (json) std::cout << actions::ProposeOutcomeToJson(*out).dump(2) << "\n";
    else PrintProposals(*out);
    return 0;
  }

  Result<incidents::Incident> inc = Status(StatusCode::kInternal, "unknown action " + what);
  if (what == "show") {
    inc = (*desk)->Get(id);
  } else if (what == "ack") {
    inc = (*desk)->Acknowledge(id, c.actor, c.reason);
  } else if (what == "mitigate") {
    inc = (*desk)->Mitigate(id, c.actor, c.reason);
  } else if (what == "resolve") {
    inc = (*desk)->Resolve(id, c.actor, c.reason);
  } else if (what == "close") {
    if (c.expected == c.false_positive)
      return Fail(what, InvalidArgument("say why it is closed: --expected or --false-positive (one of them)"));
    inc = (*desk)->Close(id, c.actor, c.expected ? incidents::CloseReason::kExpected : incidents::CloseReason::kFalsePositive,
                         c.reason);
  }
  if (!inc.ok()) return Fail(what, inc.status());
  std::string receipt_line;
  if (what == "resolve") {
    // A resolution by a person gets its receipt too.
    auto store = services->state();
    if (!store.ok()) return Fail(what, store.status());
    auto written = actions::WriteResolutionReceipts(**store, services->workspace(), **desk, *clock);
    if (!written.ok()) return Fail(what, Status(written.status().code(), "resolved, but the receipt was not written (the next `dw watch` pass retries): " + written.status().message()));
    auto receipt = actions::ReceiptOfIncident(**store, id);
    if (receipt.ok() && receipt->has_value())
      receipt_line = "receipt " + std::to_string((*receipt)->seq) + " " + (*receipt)->hash;
  }
  // `show` lists every notification of the incident with its delivery state.
  std::optional<std::vector<platforms::notify::NotificationStatus>> sent;
  if (what == "show") {
    auto listed = (*desk)->Notifications(inc->id);
    if (!listed.ok()) return Fail(what, listed.status());
    sent = std::move(*listed);
  }
  if (json) {
    Json out = incidents::IncidentToJson(*inc);
    if (!receipt_line.empty()) out["receipt"] = receipt_line;
    if (sent) out["notifications"] = incidents::NotificationsToJson(*sent);
    std::cout << out.dump(2) << "\n";
  } else {
    PrintIncident(*inc, zone);
    if (!receipt_line.empty()) std::cout << receipt_line << "\n";
    if (sent) PrintNotifications(*sent, zone);
  }
  return 0;
}

}  // namespace dw::app
