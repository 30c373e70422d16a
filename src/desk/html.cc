#include "desk/html.h"

#include <cstdio>

#include "base/rfc3339.h"

namespace dw::desk {

std::string UrlEncode(std::string_view text) {
  static const char* kHex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : text) {
    if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.' ||
        c == '_' || c == '~') {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    }
  }
  return out;
}

std::string IncidentHref(const std::string& id) { return "/incidents/" + UrlEncode(id); }
std::string AssetHref(const std::string& id) { return "/assets/" + UrlEncode(id); }
std::string ReceiptHref(int64_t seq) { return "/receipts/" + std::to_string(seq); }

std::string Link(const std::string& href, const std::string& text) {
  return "<a href=\"" + EscapeMarkup(href) + "\">" + EscapeMarkup(text) + "</a>";
}

std::string ShortTime(TimePoint t, const config::TimeZone& zone) {
  const std::string s = config::FormatWithOffset(t, zone);  // 2026-11-24T15:02:00+01:00 or ...Z
  if (s.size() < 20) return s;
  const std::string offset = s.substr(19);
  return s.substr(0, 10) + " " + s.substr(11, 5) + " " + (offset == "Z" ? "UTC" : offset);
}

std::string ShortTime(const std::string& rfc3339, const config::TimeZone& zone) {
  auto t = ParseRfc3339(rfc3339);
  return t.ok() ? ShortTime(*t, zone) : rfc3339;
}

std::string Countdown(std::chrono::milliseconds left) {
  const bool overdue = left.count() < 0;
  int64_t s = (overdue ? -left.count() : left.count()) / 1000;
  const int64_t d = s / 86400, h = (s % 86400) / 3600, m = (s % 3600) / 60;
  std::string text;
  if (d > 0) text = std::to_string(d) + "d " + std::to_string(h) + "h";
  else if (h > 0) text = std::to_string(h) + "h " + std::to_string(m) + "m";
  else if (m > 0) text = std::to_string(m) + "m";
  else text = std::to_string(s) + "s";
  return overdue ? "overdue by " + text : text;
}

std::string Document(const std::string& title, const std::string& main_html) {
  std::string out;
  out.reserve(main_html.size() + 1024);
  out += "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
         "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>";
  out += EscapeMarkup(title);
  out += " · Data Workers</title>\n<link rel=\"stylesheet\" href=\"/desk.css\">\n</head>\n<body>\n"
         "<header class=\"top\"><a class=\"brand\" href=\"/\">Data Workers</a>\n"
         "<nav aria-label=\"Sections\"><a href=\"/\">Incidents</a> <a href=\"/assets\">Assets</a> "
         "<a href=\"/receipts\">Receipts</a></nav></header>\n<main>\n";
  out += main_html;
  out += "</main>\n</body>\n</html>\n";
  return out;
}

Page MessagePage(int status, const std::string& heading, const std::string& sentence) {
  Page p;
  p.status = status;
  p.body = Document(heading, "<h1>" + EscapeMarkup(heading) + "</h1>\n<p class=\"message\">" +
                                 EscapeMarkup(sentence) + "</p>\n<p><a href=\"/\">All incidents</a> · "
                                 "<a href=\"/assets\">Assets</a> · <a href=\"/receipts\">Receipts</a></p>\n");
  return p;
}

Page StatusPage(const Status& status, const std::string& heading) {
  int code = 503;
  if (status.code() == StatusCode::kNotFound) code = 404;
  if (status.code() == StatusCode::kInvalidArgument) code = 400;
  return MessagePage(code, heading, status.message());
}

std::string JsonBlock(const Json& value) {
  return "<pre class=\"json\" tabindex=\"0\">" + EscapeMarkup(value.dump(2, ' ', false, Json::error_handler_t::replace)) + "</pre>\n";
}

Page NotFoundPage(const std::string& what) {
  return MessagePage(404, "Not found", what + " was not found.");
}

}  // namespace dw::desk
