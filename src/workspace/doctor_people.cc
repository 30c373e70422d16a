// `dw doctor` on who is told and who decides: each notification channel, each person a request
// would ask, and the desk's link key.
#include <map>
#include <set>

#include "actions/actions.h"
#include "base/person_identity.h"
#include "net/mail_client.h"
#include "platforms/notify/notify.h"
#include "workspace/doctor_checks.h"

namespace dw::workspace::doctor {
namespace {

// Everyone a request for a decision may ask, with why: the domains' approvers and escalations, and
// the owners of assets (a hold of an asset asks its owner too).
std::map<std::string, std::vector<std::string>> Deciders(const config::Workspace& ws) {
  std::map<std::string, std::vector<std::string>> out;
  for (const auto& [name, d] : ws.domains) {
    for (const std::string& p : d.approvers) out[p].push_back("approver of domain " + name);
    for (const std::string& p : d.escalate_to) out[p].push_back("escalation of domain " + name);
  }
  for (const config::AssetNote& a : ws.assets)
    if (LooksLikePersonEmail(a.owner)) out[a.owner].push_back("owner of " + a.id);
  return out;
}

std::string Roles(const std::vector<std::string>& roles) {
  std::string out;
  for (size_t i = 0; i < roles.size() && i < 3; ++i) out += (i ? ", " : "") + roles[i];
  if (roles.size() > 3) out += " and " + std::to_string(roles.size() - 3) + " more";
  return out;
}

// A fingerprint as people compare it: the algorithm and the first 12 hex digits.
std::string Short(const std::string& fingerprint) { return fingerprint.substr(0, std::min<size_t>(19, fingerprint.size())) + "…"; }

DoctorFinding OnePerson(const config::Workspace& ws, store::StateStore* store, const std::string& email,
                        const std::vector<std::string>& roles, bool links, bool proxy) {
  const std::string who = "as " + Roles(roles) + ",";
  auto person = ws.people.find(email);
  const std::vector<std::string> declared = person == ws.people.end() ? std::vector<std::string>() : person->second.keys;
  if (declared.empty()) {
    if (links) return Found("approvals", email, Verdict::kOk, who + " decides through signed approval links (no key declared)");
    if (proxy) return Found("approvals", email, Verdict::kOk, who + " decides through the desk behind the trusted SSO proxy");
    return Found("approvals", email, Verdict::kProblem,
                 who + " cannot decide: no key is declared under people." + email +
                     ".keys, and the desk can neither sign approval links nor trust a proxy",
                 "run `dw keys issue " + email + "` and declare the fingerprint it prints under people." + email +
                     ".keys, or set desk.url and DW_APPROVAL_LINK_KEY");
  }
  if (store == nullptr)
    return Found("approvals", email, Verdict::kNotChecked, who + " the store did not open, so the key it holds was not compared");
  Result<std::optional<store::PersonKeyRecord>> stored = store->GetPersonKey(email);
  if (!stored.ok())
    return Found("approvals", email, Verdict::kProblem, who + " the store's key could not be read: " + stored.status().message(),
                 "see the state store's finding above");
  if (!stored->has_value())
    return Found("approvals", email, Verdict::kProblem,
                 who + " people." + email + ".keys declares a key, but the store holds none for this person",
                 "run `dw keys issue " + email + "` against this store and declare the fingerprint it prints");
  const std::string fp = actions::KeyFingerprint((*stored)->public_key_pem);
  for (const std::string& d : declared)
    if (d == fp) return Found("approvals", email, Verdict::kOk, who + " decides with a signed statement (key " + Short(fp) + ")");
  return Found("approvals", email, Verdict::kProblem,
               who + " the store's key " + Short(fp) + " is not one people." + email + ".keys declares",
               "declare " + fp + " under people." + email + ".keys if this person issued it, or issue a new key");
}

}  // namespace

std::vector<DoctorFinding> CheckApprovals(const config::Workspace& ws, store::StateStore* store, const std::string& desk_key) {
  std::vector<DoctorFinding> out;
  const Status key_status = desk_key.empty() ? FailedPrecondition("unset") : actions::CheckApprovalLinkKey(desk_key);
  const bool wants_key = !ws.desk.url.empty() || !ws.desk.trusted_proxies.empty();
  if (!desk_key.empty() && key_status.ok()) {
    out.push_back(Found("approvals", "DW_APPROVAL_LINK_KEY", Verdict::kOk, "set, and not easy to guess"));
  } else if (!desk_key.empty()) {
    out.push_back(Found("approvals", "DW_APPROVAL_LINK_KEY", Verdict::kProblem, key_status.message(),
                        "make one with `openssl rand -hex 32` and set it where dw serve and dw watch run"));
  } else if (wants_key) {
    out.push_back(Found("approvals", "DW_APPROVAL_LINK_KEY", Verdict::kProblem,
                        "not set, but the desk is configured: approval messages cannot carry links and the desk "
                        "cannot seal the decisions taken on it",
                        "make one with `openssl rand -hex 32` and set it where dw serve and dw watch run"));
  } else {
    out.push_back(Found("approvals", "DW_APPROVAL_LINK_KEY", Verdict::kNotChecked,
                        "not set and no desk configured: decisions are signed with people's own keys"));
  }
  const bool sealed = key_status.ok();
  const bool links = sealed && !ws.desk.url.empty();
  const bool proxy = sealed && !ws.desk.trusted_proxies.empty();
  const auto deciders = Deciders(ws);
  if (deciders.empty())
    out.push_back(Found("approvals", "-", Verdict::kNotChecked,
                        "no domain names approvers and no asset an owner: no request for a decision can reach anyone"));
  for (const auto& [email, roles] : deciders) out.push_back(OnePerson(ws, store, email, roles, links, proxy));
  return out;
}

std::vector<DoctorFinding> CheckNotify(Services& services, const DoctorOptions& options) {
  const config::Workspace& ws = services.workspace();
  std::vector<DoctorFinding> out;
  auto mail = net::MakeCurlMailClient();
  for (const std::string& name : platforms::notify::ChannelNames(ws)) {
    Result<platforms::notify::ChannelCheck> c =
        platforms::notify::CheckChannel(ws, name, services.http(), *mail, services.clock(), options.timeout);
    if (!c.ok()) {
      out.push_back(Found("notify", name, Verdict::kProblem, c.status().message(), "check notify." + name));
    } else if (!c->configured) {
      out.push_back(Found("notify", name, Verdict::kProblem, c->detail, "fix notify." + name + " as the message says"));
    } else if (!c->accepted.has_value()) {
      out.push_back(Found("notify", name, Verdict::kNotChecked,
                          c->detail + "; `dw notify test " + name + "` sends a test message"));
    } else if (*c->accepted) {
      out.push_back(Found("notify", name, Verdict::kOk, c->detail));
    } else {
      out.push_back(Found("notify", name, Verdict::kProblem, c->detail, "fix the credentials of notify." + name));
    }
  }
  if (out.empty()) out.push_back(Found("notify", "-", Verdict::kNotChecked, "no channel under notify: incidents are only stored and shown"));
  return out;
}

}  // namespace dw::workspace::doctor
