// `/receipts`, `/receipts/<seq>` and the exports: the hash-chained receipt log as pages, with the
// chain's verification state on each.
#include "actions/actions.h"
#include "actions/receipt_anchor.h"
#include "store/clock_kind.h"
#include "desk/desk.h"
#include "desk/html.h"

namespace dw::desk {
namespace {

constexpr size_t kListed = 500;

std::string ChainBanner(store::StateStore& store) {
  auto verdict = actions::VerifyReceiptChain(store);
  if (!verdict.ok())
    return "<p class=\"banner bad\" role=\"status\">The chain could not be verified: " +
           EscapeMarkup(verdict.status().message()) + "</p>\n";
  // A store created with a simulated clock (tests, scratch copies) says so: its dates are made up.
  auto simulated = store::IsSimulatedClockStore(store);
  const std::string clock_note =
      simulated.ok() && *simulated
          ? "<p class=\"banner\" role=\"note\">This state store runs on a simulated clock: the dates of its "
            "decisions and receipts may be set by --now, not the real time.</p>\n"
          : "";
  if (verdict->ok)
    return "<p class=\"banner good\" role=\"status\">The chain verifies: " + std::to_string(verdict->receipts) +
           " receipts, head " + EscapeMarkup(verdict->head.hash.substr(0, 16)) + "… (seq " +
           std::to_string(verdict->head.seq) + ").</p>\n" + clock_note;
  return "<p class=\"banner bad\" role=\"status\">The chain does NOT verify from receipt " +
         std::to_string(verdict->first_bad_seq) + ": " + EscapeMarkup(verdict->problem) + "</p>\n";
}

// What a receipt is about, in a line: its content's kind, summary or incident.
std::string Gist(const Json& content) {
  std::string s;
  for (const char* key : {"kind", "summary", "incident_id", "proposal_id"})
    if (content.contains(key) && content[key].is_string()) s += (s.empty() ? "" : " · ") + content[key].get<std::string>();
  return s.empty() ? "(no summary)" : s;
}

Json ParsedBody(const std::string& body) {
  Json j = Json::parse(body, nullptr, /*allow_exceptions=*/false);
  return j.is_discarded() ? Json(body) : j;
}

}  // namespace

Page ReceiptsPage(workspace::Services& services) {
  const config::TimeZone zone = config::ZoneOrUtc(services.workspace().timezone);
  auto store = services.state();
  if (!store.ok()) return StatusPage(store.status(), "The state store could not be opened");
  auto receipts = (*store)->Receipts();
  if (!receipts.ok()) return StatusPage(receipts.status(), "The receipts could not be read");
  std::string html = "<h1>Receipts</h1>\n" + ChainBanner(**store) +
                     "<p>Export: <a href=\"/receipts/export.json\">JSON</a> · <a href=\"/receipts/export.md\">Markdown</a></p>\n";
  if (receipts->empty()) {
    html += "<p>No receipt has been written yet.</p>\n";
  } else {
    html += "<div class=\"scroll\" tabindex=\"0\"><table><thead><tr><th scope=\"col\">Seq</th><th scope=\"col\">Written</th>"
            "<th scope=\"col\">About</th><th scope=\"col\">Hash</th></tr></thead><tbody>\n";
    size_t n = 0;
    for (auto it = receipts->rbegin(); it != receipts->rend() && n < kListed; ++it, ++n) {
      const Json body = ParsedBody(it->body);
      const Json content = body.is_object() && body.contains("content") ? body["content"] : Json::object();
      html += "<tr><td>" + Link(ReceiptHref(it->seq), std::to_string(it->seq)) + "</td><td class=\"nowrap\">" +
              EscapeMarkup(ShortTime(it->written_at, zone)) +
              (content.is_object() && content.value(actions::kSimulatedClockKey, "") == "simulated" ? " (simulated clock)" : "") +
              "</td><td>" + EscapeMarkup(Gist(content)) + "</td><td><code>" +
              EscapeMarkup(it->hash.substr(0, 16)) + "…</code></td></tr>\n";
    }
    html += "</tbody></table></div>\n";
    if (receipts->size() > kListed) html += "<p>The newest " + std::to_string(kListed) + " are listed.</p>\n";
  }
  Page page;
  page.body = Document("Receipts", html);
  return page;
}

Page ReceiptPage(workspace::Services& services, const std::string& seq_text) {
  const config::TimeZone zone = config::ZoneOrUtc(services.workspace().timezone);
  const std::optional<int64_t> parsed = ParsePositiveDecimal(seq_text, 18);
  if (!parsed)
    return MessagePage(400, "Bad receipt number", "A receipt is named by its sequence number, a positive integer.");
  const int64_t seq = *parsed;
  auto store = services.state();
  if (!store.ok()) return StatusPage(store.status(), "The state store could not be opened");
  auto receipt = actions::ShowReceipt(**store, seq);
  if (!receipt.ok()) {
    if (receipt.status().code() == StatusCode::kNotFound) return NotFoundPage("Receipt " + seq_text);
    return StatusPage(receipt.status(), "The receipt could not be read");
  }
  const Json body = ParsedBody(receipt->body);
  std::string html = "<h1>Receipt " + std::to_string(receipt->seq) + "</h1>\n" + ChainBanner(**store) +
                     "<dl class=\"facts\"><dt>Written</dt><dd>" + EscapeMarkup(ShortTime(receipt->written_at, zone)) +
                     "</dd><dt>Hash</dt><dd><code class=\"hash\">" + EscapeMarkup(receipt->hash) +
                     "</code></dd><dt>Previous</dt><dd>" +
                     (receipt->prev_hash.empty() ? std::string("none (the first receipt)")
                                                 : Link(ReceiptHref(receipt->seq - 1), receipt->prev_hash)) +
                     "</dd></dl>\n<h2>Content</h2>\n" +
                     JsonBlock(body.is_object() && body.contains("content") ? body["content"] : body) +
                     "<p>" + Link(ReceiptHref(receipt->seq + 1), "Next receipt") + " · <a href=\"/receipts\">All receipts</a></p>\n";
  Page page;
  page.body = Document("Receipt " + std::to_string(receipt->seq), html);
  return page;
}

Page ReceiptsExport(workspace::Services& services, const std::string& format) {
  auto store = services.state();
  if (!store.ok()) return StatusPage(store.status(), "The state store could not be opened");
  auto doc = actions::ExportReceipts(**store, format);
  if (!doc.ok()) return StatusPage(doc.status(), "The receipts could not be exported");
  Page page;
  page.body = std::move(*doc);
  page.content_type = format == "json" ? "application/json" : "text/markdown; charset=utf-8";
  page.download_name = "receipts." + format;
  return page;
}

}  // namespace dw::desk
