// Receipts: writing the next link of the hash chain and walking the chain to verify it.
#include <algorithm>
#include <map>
#include <string_view>
#include <thread>

#include "actions/actions.h"
#include "actions/receipt_anchor.h"
#include "actions/receipt_content.h"
#include "base/redaction.h"

namespace dw::actions {
namespace {

// Writers racing for the head each lose at most a few rounds; on a loaded host with several
// writers 8 rounds were seen to run out, so the bound is generous (each round is one read and one
// refused insert).
constexpr int kAppendAttempts = 64;

// The part of a body after its content, which every receipt body ends with because keys are
// sorted (content < prev < seq < written_at): ,"prev":"H","seq":N,"written_at":"
std::string LinkMarker(const std::string& prev, int64_t seq) {
  return ",\"prev\":\"" + prev + "\",\"seq\":" + std::to_string(seq) + ",\"written_at\":\"";
}

// Whether `body` names `prev` and `seq` as its own link. Reads the tail only: the content comes
// first and cannot end after the top-level written_at, so the last marker is the real one.
bool BodyNamesLink(std::string_view body, const std::string& prev, int64_t seq) {
  static constexpr std::string_view kStart = "{\"content\":";
  static constexpr std::string_view kWritten = ",\"written_at\":\"";
  if (body.substr(0, kStart.size()) != kStart) return false;
  if (body.size() < 2 || body.substr(body.size() - 2) != "\"}") return false;
  size_t w = body.rfind(kWritten);
  if (w == std::string_view::npos) return false;
  std::string marker = LinkMarker(prev, seq);
  size_t marker_head = marker.size() - kWritten.size();
  if (w < marker_head) return false;
  if (body.substr(w - marker_head, marker.size()) != marker) return false;
  // Nothing but the timestamp between the marker and the closing quote.
  std::string_view stamp = body.substr(w + kWritten.size(), body.size() - 2 - w - kWritten.size());
  return stamp.find('"') == std::string_view::npos && stamp.find('\\') == std::string_view::npos;
}

// The newest receipt a delivered resolution notice announced must be in the chain with the
// announced hash (receipt_anchor.h).
Status CheckAnnouncedHead(store::StateStore& store, const std::map<int64_t, std::string>& hashes, ChainVerdict& v) {
  Result<std::optional<AnnouncedHead>> newest = LatestAnnouncedHead(store);
  if (!newest.ok()) return newest.status();
  if (!newest->has_value()) return Status::Ok();
  const AnnouncedHead& a = **newest;
  const std::string announced = a.Where() + ", sent " + FormatRfc3339(a.sent_at) + ", announced receipt " +
                                std::to_string(a.seq) + " with hash '" + a.hash + "'";
  auto held = hashes.find(a.seq);
  if (held == hashes.end()) {
    v.ok = false;
    v.first_bad_seq = v.head.seq + 1;
    v.problem = announced + ", but the chain " +
                (v.head.seq == 0 ? std::string("is empty") : "ends at receipt " + std::to_string(v.head.seq)) +
                ": receipts were cut off or deleted";
  } else if (held->second != a.hash) {
    v.ok = false;
    v.first_bad_seq = a.seq;
    v.problem = announced + ", but receipt " + std::to_string(a.seq) + " in the store hashes to '" + held->second +
                "': the chain was rewritten";
  }
  return Status::Ok();
}

}  // namespace

Result<store::ReceiptRecord> WriteReceipt(store::StateStore& store, const Json& content,
                                          const Clock& clock) {
  if (!content.is_object()) return InvalidArgument("a receipt's content must be a JSON object");
  // Redacted before it is hashed: the store keeps the hashed bytes and refuses a secret in them.
  Json redacted = content;
  // Dated by --now, a replay or a test, never by the machine: said inside what is hashed, so no
  // reader takes the date for the real one (docs/cli.md, "--now").
  if (IsSimulatedClock(clock)) redacted[kSimulatedClockKey] = "simulated";
  RedactSecretsIn(redacted);
  Result<std::string> encoded_content = CanonicalJson(redacted);
  if (!encoded_content.ok()) return encoded_content.status();
  Status last;
  for (int attempt = 0; attempt < kAppendAttempts; ++attempt) {
    Result<std::optional<store::ReceiptRecord>> head = store.GetReceipt(0);
    if (!head.ok()) return head.status();
    int64_t seq = head->has_value() ? (*head)->seq + 1 : 1;
    std::string prev = head->has_value() ? (*head)->hash : "";
    // Built by hand around the already canonical content; equal to CanonicalJson of the object.
    std::string body = "{\"content\":" + *encoded_content + LinkMarker(prev, seq) +
                       FormatRfc3339(clock.Now()) + "\"}";
    store::ReceiptRecord rec;
    rec.seq = seq;
    rec.prev_hash = prev;
    rec.hash = Sha256Hex(body);
    rec.body = std::move(body);
    Result<int64_t> appended = store.AppendReceipt(rec.prev_hash, rec.hash, rec.body);
    if (appended.ok()) {
      rec.seq = *appended;
      rec.written_at = clock.Now();
      return rec;
    }
    last = appended.status();
    // Another writer appended first: read the new head and try again, after letting it finish.
    if (last.code() != StatusCode::kFailedPrecondition &&
        last.code() != StatusCode::kAlreadyExists)
      return last;
    std::this_thread::yield();
  }
  return Unavailable("could not append a receipt: other writers kept moving the chain (" +
                     last.message() + ")");
}

Result<ReceiptHead> CurrentReceiptHead(store::StateStore& store) {
  Result<std::optional<store::ReceiptRecord>> head = store.GetReceipt(0);
  if (!head.ok()) return head.status();
  ReceiptHead out;
  if (head->has_value()) {
    out.seq = (*head)->seq;
    out.hash = (*head)->hash;
  }
  return out;
}

Result<ChainVerdict> VerifyReceiptChain(store::StateStore& store,
                                        const std::string& expected_head) {
  ChainVerdict v;
  std::string prev;
  int64_t expected_seq = 1;
  std::map<int64_t, std::string> hashes;  // seq -> hash, for the action log's cross-check
  auto fail = [&](int64_t seq, std::string problem) {
    v.ok = false;
    v.first_bad_seq = seq;
    v.problem = std::move(problem);
  };
  Status scanned = store.ScanReceipts([&](const store::ReceiptRecord& r) -> Status {
    if (!v.ok) return Status::Ok();  // keep counting after the first failure
    ++v.receipts;
    const std::string n = std::to_string(r.seq);
    if (r.seq != expected_seq) {
      fail(r.seq, "receipt " + n + " follows receipt " + std::to_string(expected_seq - 1) +
                      ": receipt " + std::to_string(expected_seq) +
                      (r.seq > expected_seq ? " is missing" : " is out of order"));
    } else if (r.prev_hash != prev) {
      fail(r.seq, "receipt " + n + " says the previous hash is '" + r.prev_hash +
                      "' but the previous receipt's hash is '" + prev + "'");
    } else if (Sha256Hex(r.body) != r.hash) {
      fail(r.seq, "receipt " + n + "'s body does not hash to its recorded hash (edited)");
    } else if (!BodyNamesLink(r.body, prev, r.seq)) {
      fail(r.seq, "receipt " + n + "'s body does not name its own place in the chain (seq " + n +
                      " after '" + prev + "')");
    } else {
      v.head = {r.seq, r.hash};
      hashes[r.seq] = r.hash;
    }
    prev = r.hash;
    ++expected_seq;
    return Status::Ok();
  });
  if (!scanned.ok()) return scanned;
  // A chain verifies by itself after its tail is deleted, or after one receipt is edited and
  // every later hash recomputed. Two other records of the store say what it must hold: the action
  // log names each resolution receipt when it is written (seq and hash), and a resolved incident
  // has its receipt. Both are checked, so emptying or rewriting the chain needs more than the
  // receipts table; the head each resolution notice carried (the outbox, and the service that
  // received it) is the record outside the store (`--head`).
  if (v.ok) {
    Result<std::vector<store::ActionEventRecord>> written = store.ActionEvents(kReceiptsSubject);
    if (!written.ok()) return written.status();
    for (const store::ActionEventRecord& e : *written) {
      if (e.kind != "receipt_written") continue;
      const int64_t seq = e.body.value("seq", int64_t{0});
      const std::string hash = e.body.value("hash", "");
      const std::string incident = e.body.value("incident", "");
      auto held = hashes.find(seq);
      if (held == hashes.end()) {
        fail(seq, "the action log records receipt " + std::to_string(seq) + " for incident " + incident +
                      " (event " + std::to_string(e.seq) + "), but the chain " +
                      (v.head.seq == 0 ? std::string("is empty") : "ends at receipt " + std::to_string(v.head.seq)) +
                      ": receipts were deleted");
        break;
      }
      if (held->second != hash) {
        fail(seq, "receipt " + std::to_string(seq) + " hashes to '" + held->second + "', but the action log (event " +
                      std::to_string(e.seq) + ") recorded '" + hash + "' when it was written for incident " +
                      incident + ": the chain was rewritten");
        break;
      }
    }
  }
  if (v.ok && v.head.seq == 0) {
    Result<std::vector<store::IncidentRecord>> resolved = store.Incidents("resolved", 1);
    if (!resolved.ok()) return resolved.status();
    if (!resolved->empty())
      fail(1, "the chain is empty, but incident " + resolved->front().id +
                  " is resolved and a resolution always writes a receipt: receipts were deleted");
  }
  if (v.ok && expected_head.empty()) {
    Status anchored = CheckAnnouncedHead(store, hashes, v);
    if (!anchored.ok()) return anchored;
  }
  if (v.ok && !expected_head.empty() && expected_head != v.head.hash) {
    fail(v.head.seq + 1, v.head.seq == 0
                             ? "the chain is empty but the expected head is '" + expected_head + "'"
                             : "the chain ends at receipt " + std::to_string(v.head.seq) + " ('" +
                                   v.head.hash + "'), not at the expected head '" +
                                   expected_head + "': receipts were cut off or replaced");
  }
  return v;
}

Result<store::ReceiptRecord> ShowReceipt(store::StateStore& store, int64_t seq) {
  if (seq < 0) return InvalidArgument("a receipt's seq is 1 or more");
  Result<std::optional<store::ReceiptRecord>> r = store.GetReceipt(seq);
  if (!r.ok()) return r.status();
  if (!r->has_value())
    return NotFound(seq == 0 ? std::string("there are no receipts yet")
                             : "there is no receipt " + std::to_string(seq));
  return **r;
}

namespace {

Json ParsedBody(const std::string& body) {
  Json j = Json::parse(body, nullptr, /*allow_exceptions=*/false);
  return j.is_discarded() ? Json(body) : j;
}

// A section per receipt: its heading, then ReceiptText in a fence longer than any run of
// backticks a stored value holds, so nothing in a receipt can break out of it.
void AppendMarkdown(const store::ReceiptRecord& r, std::string& out) {
  const std::string text = ReceiptText(r);
  size_t longest = 0, run = 0;
  for (char c : text) {
    run = c == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  const std::string fence(std::max<size_t>(3, longest + 1), '`');
  out += "## Receipt " + std::to_string(r.seq) + "\n\n" + fence + "text\n" + text + fence + "\n\n";
}

}  // namespace

Result<std::string> ExportReceipts(store::StateStore& store, const std::string& format) {
  if (format != "json" && format != "md")
    return InvalidArgument("--format must be json or md, not '" + format + "'");
  Json all = Json::array();
  std::string md = "# Receipts\n\n";
  Status s = store.ScanReceipts([&](const store::ReceiptRecord& r) -> Status {
    if (format == "json") {
      all.push_back({{"seq", r.seq},
                     {"hash", r.hash},
                     {"prev_hash", r.prev_hash},
                     {"written_at", FormatRfc3339(r.written_at)},
                     {"body", ParsedBody(r.body)}});
    } else {
      AppendMarkdown(r, md);
    }
    return Status::Ok();
  });
  if (!s.ok()) return s;
  return format == "json" ? all.dump(2, ' ', false, Json::error_handler_t::replace) + "\n" : md;
}

// ---------------------------------------------------------------------------------------------
// The chain's anchor outside the store, and simulated clocks (receipt_anchor.h).

std::string AnnouncedHead::Where() const {
  return "notification " + std::to_string(message_id) + " (" + channel + ", incident " + incident_id + ")";
}

std::optional<std::pair<int64_t, std::string>> ReceiptNamedIn(const std::string& summary) {
  static constexpr std::string_view kOpen = "(receipt ", kHash = ", hash ";
  const size_t at = summary.rfind(kOpen);
  if (at == std::string::npos) return std::nullopt;
  size_t p = at + kOpen.size();
  int64_t seq = 0;
  size_t digits = 0;
  for (; p < summary.size() && summary[p] >= '0' && summary[p] <= '9' && digits < 18; ++p, ++digits)
    seq = seq * 10 + (summary[p] - '0');
  if (digits == 0 || seq <= 0 || summary.compare(p, kHash.size(), kHash) != 0) return std::nullopt;
  p += kHash.size();
  if (p + 65 > summary.size() || summary[p + 64] != ')') return std::nullopt;
  std::string hash = summary.substr(p, 64);
  for (char c : hash)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return std::nullopt;
  return std::make_pair(seq, hash);
}

Result<std::optional<AnnouncedHead>> LatestAnnouncedHead(store::StateStore& store) {
  // Every incident's messages: a resolution notice belongs to the incident it resolved.
  Result<std::vector<store::IncidentRecord>> incidents = store.Incidents("", 1'000'000);
  if (!incidents.ok()) return incidents.status();
  std::optional<AnnouncedHead> newest;
  for (const store::IncidentRecord& i : *incidents) {
    Result<std::vector<store::OutboxMessage>> messages = store.OutboxFor(i.id);
    if (!messages.ok()) return messages.status();
    for (const store::OutboxMessage& m : *messages) {
      if (m.event != "resolved" || m.state != "sent" || !m.payload.is_object()) continue;
      const Json notice = m.payload.value("notice", Json());
      if (!notice.is_object() || !notice.value("summary", Json()).is_string()) continue;
      auto named = ReceiptNamedIn(notice["summary"].get<std::string>());
      if (!named || (newest && newest->seq >= named->first)) continue;
      newest = AnnouncedHead{named->first, named->second, m.id, m.channel, m.incident_id, m.updated_at};
    }
  }
  return newest;
}

// Time comes from one real clock, RealClock(); every other clock (a SimulatedClock, `dw watch`'s
// clock started at --now) is not the machine's time.
bool IsSimulatedClock(const Clock& clock) { return &clock != &RealClock(); }

Result<int64_t> CountSimulatedReceipts(store::StateStore& store) {
  int64_t n = 0;
  Status s = store.ScanReceipts([&](const store::ReceiptRecord& r) -> Status {
    if (r.body.find("\"clock\":\"simulated\"") == std::string::npos) return Status::Ok();
    const Json body = Json::parse(r.body, nullptr, /*allow_exceptions=*/false);
    if (body.is_object() && body.contains("content") && body["content"].is_object() &&
        body["content"].value(kSimulatedClockKey, "") == "simulated")
      ++n;
    return Status::Ok();
  });
  if (!s.ok()) return s;
  return n;
}

}  // namespace dw::actions
