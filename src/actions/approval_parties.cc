// Who must approve a proposal: its domain's approvers and, for one that holds, pauses or changes
// an asset, that asset's owner too; neither alone suffices.
#include <algorithm>
#include <set>

#include "actions/approval_log.h"
#include "actions/identity.h"

namespace dw::actions {
namespace {

// The kinds that act on someone's asset: the owner of what they touch is asked.
bool ActsOnAnAsset(const std::string& kind) {
  return kind == "hold" || kind == "flink_deployment_diff" || kind == "kestra_flow_diff";
}

// Who owns `asset` for `rec`: the hold target's owner, else the asset note's owner, else the
// approvers of the asset note's domain. Empty when nobody is named.
ApprovalParty OwnerOf(const config::Workspace& workspace, const Json& content, const std::string& asset) {
  for (const Json& t : content.value("targets", Json::array()))
    if (t.is_object() && t.value("consumer", "") == asset && LooksLikePersonEmail(t.value("owner", "")))
      return {"the owner of " + asset, {t.value("owner", "")}};
  for (const config::AssetNote& note : workspace.assets) {
    if (note.id != asset) continue;
    if (LooksLikePersonEmail(note.owner)) return {"the owner of " + asset, {note.owner}};
    if (const config::DomainConfig* d = FindDomain(workspace, note.domain); d != nullptr && !d->approvers.empty())
      return {"the approvers of domain " + note.domain + ", which owns " + asset, d->approvers};
  }
  return {};
}

}  // namespace

std::vector<ApprovalParty> RequestParties(const config::Workspace& workspace, const store::ProposalRecord& rec,
                                          ApprovalParty domain_party) {
  std::vector<ApprovalParty> parties = {std::move(domain_party)};
  if (!ActsOnAnAsset(rec.kind)) return parties;
  const Json content = rec.body.value("content", Json::object());
  if (!content.is_object()) return parties;
  for (const Json& touched : content.value("touches", Json::array())) {
    if (!touched.is_string()) continue;
    ApprovalParty owner = OwnerOf(workspace, content, touched.get<std::string>());
    if (owner.people.empty()) continue;
    const std::set<std::string> people(owner.people.begin(), owner.people.end());
    auto same = std::find_if(parties.begin(), parties.end(), [&](const ApprovalParty& p) {
      return std::set<std::string>(p.people.begin(), p.people.end()) == people;
    });
    // The same people asked twice are one party: one approval stands for both.
    if (same == parties.end()) parties.push_back(std::move(owner));
  }
  return parties;
}

std::vector<std::string> PartyPeople(const std::vector<ApprovalParty>& parties) {
  std::vector<std::string> out;
  for (const ApprovalParty& p : parties)
    for (const std::string& who : p.people)
      if (std::find(out.begin(), out.end(), who) == out.end()) out.push_back(who);
  return out;
}

std::string PartiesPhrase(const std::vector<ApprovalParty>& parties) {
  std::string out;
  for (size_t i = 0; i < parties.size(); ++i) {
    std::string who;
    for (const std::string& p : parties[i].people) who += (who.empty() ? "" : ", ") + p;
    out += (i == 0 ? "" : i + 1 == parties.size() ? " and " : ", ") + parties[i].role + " (" + who + ")";
  }
  return out;
}

}  // namespace dw::actions
