// `dw receipts verify|head|show|export`, `dw keys issue`, `dw approve`, `dw deny`, `dw stop`,
// `dw approval-link`:
// argument translation only; everything they decide is decided in actions/.
#include "app/cli_actions.h"

#include <cstdlib>
#include <filesystem>
#include <iostream>

#include "actions/actions.h"
#include "app/command_start.h"
#include "base/redaction.h"
#include "actions/receipt_anchor.h"
#include "store/clock_kind.h"
#include "workspace/services.h"

namespace dw::app {

std::string ApprovalLinkKeyFromEnv() { return actions::ApprovalLinkKeyFromEnvironment(); }

struct ActionCommands {
  CLI::App* verify = nullptr;
  CLI::App* head = nullptr;
  CLI::App* show = nullptr;
  CLI::App* export_ = nullptr;
  CLI::App* issue = nullptr;
  CLI::App* approve = nullptr;
  CLI::App* deny = nullptr;
  CLI::App* stop = nullptr;
  CLI::App* link = nullptr;
  std::string base_url;  // empty: the workspace's desk.url, else dw serve's default address
  std::string expected_head;
  int64_t seq = 0;
  std::string format = "json";
  std::string show_format = "text";
  std::string email, out;
  std::string proposal, as, key, reason;
  int64_t version = 0;
  bool lift = false;
};

std::shared_ptr<ActionCommands> AddActionCommands(CLI::App& app) {
  auto c = std::make_shared<ActionCommands>();
  auto* receipts = app.add_subcommand("receipts", "the hash-chained receipts: verify, head, show, export");
  receipts->require_subcommand(1);
  c->verify = receipts->add_subcommand("verify", "walk the chain; name the first receipt that does not verify");
  c->verify->add_option("--head", c->expected_head,
                        "the head hash recorded elsewhere (a notification, a ticket): catches truncation");
  c->head = receipts->add_subcommand("head", "print the newest receipt's seq and hash");
  c->show = receipts->add_subcommand("show", "print one receipt: cause, approvals, runs, checks, undo");
  c->show->add_option("SEQ", c->seq, "the receipt's seq (default: the newest)")->check(CLI::NonNegativeNumber);
  c->show->add_option("--format", c->show_format, "text (a page a person reads; the default) or json (the stored body)")
      ->check(CLI::IsMember({"text", "json"}));
  c->export_ = receipts->add_subcommand("export", "every receipt as JSON or Markdown");
  c->export_->add_option("--format", c->format, "json or md (default json)")
      ->check(CLI::IsMember({"json", "md"}));

  auto* keys = app.add_subcommand("keys", "people's signing keys for approvals");
  keys->require_subcommand(1);
  c->issue = keys->add_subcommand("issue", "make an Ed25519 key pair; store the public key, hand out the private one");
  c->issue->add_option("EMAIL", c->email, "the person's email")->required();
  c->issue->add_option("--out", c->out, "private key file to write, mode 0600 (default EMAIL.ed25519.pem)");

  for (auto** cmd : {&c->approve, &c->deny}) {
    bool is_approve = cmd == &c->approve;
    *cmd = app.add_subcommand(is_approve ? "approve" : "deny",
                              is_approve ? "approve a proposal, signed with your key"
                                         : "deny a proposal, signed with your key, with a reason");
    (*cmd)->add_option("PROPOSAL", c->proposal, "the proposal id")->required();
    (*cmd)->add_option("--as", c->as, "your email (an approver of the proposal's domain)")->required();
    (*cmd)->add_option("--key", c->key, "your private key file (from dw keys issue)")->required();
    (*cmd)->add_option("--version", c->version, "the version you decide (default: the newest)")
        ->check(CLI::PositiveNumber);
    auto* reason = (*cmd)->add_option("--reason", c->reason, "why");
    if (!is_approve) reason->required();
  }

  c->link = app.add_subcommand("approval-link",
                                "print a single-use signed link for an approver to decide a pending proposal on the desk");
  c->link->add_option("PROPOSAL", c->proposal, "the proposal id (its newest version must be pending)")->required();
  c->link->add_option("--as", c->as, "the approver the link is for (named by the pending request)")->required();
  c->link->add_option("--base-url", c->base_url,
                      "where the desk is served (default: the workspace's desk.url, else http://127.0.0.1:8808)");

  c->stop = app.add_subcommand("stop", "halt all autonomous dispatch in the workspace (recorded)");
  c->stop->add_flag("--lift", c->lift, "lift the stop switch (recorded)");
  c->stop->add_option("--as", c->as, "who (default $USER)");
  c->stop->add_option("--reason", c->reason, "why");
  return c;
}

namespace {

// Loads the workspace's services and store, or prints why not (exit 1; 2 for a bad --now).
struct Opened {
  std::shared_ptr<workspace::Services> services;
  store::StateStore* store = nullptr;
  int exit_code = 0;
};

Opened Open(const GlobalOptions& g, const std::string& cmd, bool records = false) {
  Opened o;
  StartedCommand start = StartCommand(g, cmd, {.workspace_error_exit = 1, .records = records});
  if (!start) {
    o.exit_code = start.exit_code;
    return o;
  }
  o.services = start.services;
  Result<store::StateStore*> st = o.services->state();
  if (!st.ok()) {
    std::cerr << "dw " << cmd << ": state store: " << st.status().message() << "\n";
    o.exit_code = 1;
    return o;
  }
  o.store = *st;
  return o;
}

std::string User() {
  const char* u = std::getenv("USER");
  return u != nullptr && *u != '\0' ? u : "unknown";
}

int Fail(const std::string& cmd, const Status& s) {
  std::cerr << "dw " << cmd << ": " << s.message() << "\n";
  return s.code() == StatusCode::kInvalidArgument ? 2 : 1;
}

int Verify(const GlobalOptions& g, const ActionCommands& c) {
  Opened o = Open(g, "receipts verify");
  if (o.store == nullptr) return o.exit_code;
  Result<actions::ChainVerdict> v = actions::VerifyReceiptChain(*o.store, c.expected_head);
  if (!v.ok()) return Fail("receipts verify", v.status());
  // Without --head the chain is checked against the head a delivered notification announced.
  Result<std::optional<actions::AnnouncedHead>> announced =
      c.expected_head.empty() ? actions::LatestAnnouncedHead(*o.store) : std::optional<actions::AnnouncedHead>();
  if (!announced.ok()) return Fail("receipts verify", announced.status());
  if (!v->ok) {
    if (announced->has_value() && v->problem.rfind((*announced)->Where(), 0) == 0)
      std::cout << "the chain does not hold the announced head: " << v->problem << "\n";
    else
      std::cout << "receipt " << v->first_bad_seq << " does not verify: " << v->problem << "\n";
    return 1;
  }
  // A receipt says who approved; the decision behind it must still verify.
  Result<std::vector<actions::RejectedDecision>> rejected =
      actions::AuditDecisions(*o.store, actions::TrustOf(o.services->workspace()), o.services->clock());
  if (!rejected.ok()) return Fail("receipts verify", rejected.status());
  int forged = 0, unchecked = 0;
  for (const actions::RejectedDecision& r : *rejected) {
    if (r.checkable) {
      ++forged;
      std::cout << "decision without a valid signature: " << r.reason << "\n";
    } else {
      ++unchecked;
    }
  }
  if (forged > 0) return 1;
  std::cout << v->receipts << " receipt(s) verify; head " << v->head.seq << " "
            << (v->head.hash.empty() ? "(empty)" : v->head.hash)
            << (!c.expected_head.empty() ? " (matches --head)"
                : !announced->has_value()
                    ? " (no delivered notification announced a receipt yet: nothing outside the store to check against)"
                    : " (holds receipt " + std::to_string((*announced)->seq) + " as " + (*announced)->Where() +
                          " announced it)")
            << "\n";
  // Dates recorded by --now: allowed only in a store created as a simulated-clock store, and said.
  Result<bool> simulated = store::IsSimulatedClockStore(*o.store);
  if (!simulated.ok()) return Fail("receipts verify", simulated.status());
  Result<int64_t> stamped = actions::CountSimulatedReceipts(*o.store);
  if (!stamped.ok()) return Fail("receipts verify", stamped.status());
  if (*simulated || *stamped > 0)
    std::cout << (*simulated ? "this state store was created as a simulated-clock store (" +
                                   std::string(store::kSimulatedClockEnv) +
                                   "=1): decisions and receipts in it may be dated by --now; "
                             : std::string(""))
              << *stamped << " receipt(s) say they were dated by a simulated clock, not the real time\n";
  if (unchecked > 0)
    std::cout << unchecked << " decision(s) taken on the desk were not checked: DW_APPROVAL_LINK_KEY is not set here\n";
  return 0;
}

int Head(const GlobalOptions& g) {
  Opened o = Open(g, "receipts head");
  if (o.store == nullptr) return o.exit_code;
  Result<actions::ReceiptHead> h = actions::CurrentReceiptHead(*o.store);
  if (!h.ok()) return Fail("receipts head", h.status());
  if (h->seq == 0) {
    std::cout << "no receipts yet\n";
    return 0;
  }
  std::cout << h->seq << " " << h->hash << "\n";
  return 0;
}

int Show(const GlobalOptions& g, const ActionCommands& c) {
  Opened o = Open(g, "receipts show");
  if (o.store == nullptr) return o.exit_code;
  Result<store::ReceiptRecord> r = actions::ShowReceipt(*o.store, c.seq);
  if (!r.ok()) return Fail("receipts show", r.status());
  if (c.show_format == "text") {
    std::cout << actions::ReceiptText(*r);
    return 0;
  }
  Json body = Json::parse(r->body, nullptr, false);
  Json out = {{"seq", r->seq}, {"hash", r->hash}, {"prev_hash", r->prev_hash},
              {"body", body.is_discarded() ? Json(r->body) : body}};
  std::cout << out.dump(2, ' ', false, Json::error_handler_t::replace) << "\n";
  return 0;
}

int Export(const GlobalOptions& g, const ActionCommands& c) {
  Opened o = Open(g, "receipts export");
  if (o.store == nullptr) return o.exit_code;
  Result<std::string> text = actions::ExportReceipts(*o.store, c.format);
  if (!text.ok()) return Fail("receipts export", text.status());
  std::cout << *text;
  return 0;
}

int Issue(const GlobalOptions& g, const ActionCommands& c) {
  Opened o = Open(g, "keys issue");
  if (o.store == nullptr) return o.exit_code;
  std::string path = c.out.empty() ? c.email + ".ed25519.pem" : c.out;
  // Refuse an existing file before a key is stored, so a refusal leaves nothing half done.
  if (std::filesystem::exists(path))
    return Fail("keys issue", InvalidArgument(path + " already exists; a key file is never overwritten"));
  Result<actions::IssuedKey> k =
      actions::IssuePersonKey(*o.store, c.email, o.services->clock(), User());
  if (!k.ok()) return Fail("keys issue", k.status());
  Status written = actions::WritePrivateKeyFile(path, k->private_key_pem);
  if (!written.ok()) return Fail("keys issue", written);
  const std::string fingerprint = actions::KeyFingerprint(k->public_key_pem);
  std::cout << "issued an Ed25519 key for " << c.email << "; private key in " << path
            << " (mode 0600: hand it to the person, it is not kept); public key " << fingerprint << "\n";
  // The key counts once the workspace file, which people review, names it: the store alone
  // never makes anyone an approver.
  bool declared = false;
  if (auto p = o.services->workspace().people.find(c.email); p != o.services->workspace().people.end())
    declared = std::find(p->second.keys.begin(), p->second.keys.end(), fingerprint) != p->second.keys.end();
  if (!declared)
    std::cout << "before " << c.email << " can decide with it, declare it in dataworkers.yaml (and have the "
              << "change reviewed):\npeople:\n  " << c.email << ":\n    keys: [\"" << fingerprint << "\"]\n";
  return 0;
}

int DecideCmd(const GlobalOptions& g, const ActionCommands& c, actions::Verdict verdict) {
  const std::string cmd = verdict == actions::Verdict::kApprove ? "approve" : "deny";
  Opened o = Open(g, cmd, /*records=*/true);
  if (o.store == nullptr) return o.exit_code;
  Result<std::string> key = actions::ReadPrivateKeyFile(c.key);
  if (!key.ok()) return Fail(cmd, key.status());
  int64_t version = c.version;
  if (version == 0) {
    Result<actions::ProposalState> st =
        actions::GetProposalState(*o.store, actions::TrustOf(o.services->workspace()), c.proposal, 0,
                                  o.services->clock());
    // An unknown proposal still goes to Decide, which refuses and records it.
    version = st.ok() ? st->record.version : 1;
  }
  actions::DecisionStatement s =
      actions::NewStatement(c.as, c.proposal, version, verdict, c.reason, o.services->clock());
  Result<std::string> sig = actions::SignStatement(s, *key);
  if (!sig.ok()) return Fail(cmd, sig.status());
  Result<actions::DecisionOutcome> out =
      actions::Decide(*o.store, o.services->workspace(), {s, "cli", *sig}, o.services->clock());
  if (!out.ok()) return Fail(cmd, out.status());
  if (!out->accepted) {
    std::cerr << "dw " << cmd << ": refused: " << out->reason << " (recorded)\n";
    return 1;
  }
  std::cout << out->reason << "\n";
  return 0;
}

int Link(const GlobalOptions& g, const ActionCommands& c) {
  // No key, or a weak one, is the command's setup and not a refusal of the proposal: exit 2.
  const std::string key = ApprovalLinkKeyFromEnv();
  if (key.empty()) {
    std::cerr << "dw approval-link: set DW_APPROVAL_LINK_KEY, the key links are signed with (make one with: "
                 "openssl rand -hex 32), to the same value for dw serve, which checks them\n";
    return 2;
  }
  if (Status weak = actions::CheckApprovalLinkKey(key); !weak.ok()) {
    std::cerr << "dw approval-link: " << weak.message() << "\n";
    return 2;
  }
  Opened o = Open(g, "approval-link");
  if (o.store == nullptr) return o.exit_code;
  Result<std::string> token = actions::IssueApprovalLink(*o.store, actions::TrustOf(o.services->workspace(), key), c.proposal,
                                                                 c.as, key, o.services->clock());
  if (!token.ok()) return Fail("approval-link", token.status());
  std::string base = c.base_url;
  if (base.empty()) base = o.services->workspace().desk.url;
  if (base.empty()) {
    base = "http://127.0.0.1:8808";
    std::cerr << "dw approval-link: the workspace sets no desk.url and --base-url was not given: the link "
                 "assumes the desk at " << base << " (dw serve's default); set desk.url to where people "
                 "open the desk\n";
  }
  while (!base.empty() && base.back() == '/') base.pop_back();
  std::cout << base << "/approve/" << *token << "\n";
  return 0;
}

int Stop(const GlobalOptions& g, const ActionCommands& c) {
  Opened o = Open(g, "stop", /*records=*/true);
  if (o.store == nullptr) return o.exit_code;
  Status s = actions::SetStopSwitch(*o.store, !c.lift, c.as.empty() ? User() : c.as, c.reason,
                                    o.services->clock());
  if (!s.ok()) return Fail("stop", s);
  std::cout << (c.lift ? "stop switch lifted: autonomous dispatch resumes as each domain's "
                         "autonomy allows\n"
                       : "stop switch set: no autonomous dispatch anywhere in the workspace "
                         "until `dw stop --lift`\n");
  return 0;
}

}  // namespace

std::optional<int> RunActionCommands(const GlobalOptions& g, const ActionCommands& c) {
  if (*c.verify) return Verify(g, c);
  if (*c.head) return Head(g);
  if (*c.show) return Show(g, c);
  if (*c.export_) return Export(g, c);
  if (*c.issue) return Issue(g, c);
  if (*c.approve) return DecideCmd(g, c, actions::Verdict::kApprove);
  if (*c.deny) return DecideCmd(g, c, actions::Verdict::kDeny);
  if (*c.stop) return Stop(g, c);
  if (*c.link) return Link(g, c);
  return std::nullopt;
}

}  // namespace dw::app
