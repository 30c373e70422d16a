// Internal to desk/: the pieces every page is built from. Values are escaped here or by the
// caller with EscapeMarkup; a function taking `*_html` takes markup already built by these helpers.
#pragma once

#include <chrono>
#include <string>
#include <string_view>

#include "base/clock.h"
#include "base/markup_escape.h"
#include "base/status.h"
#include "config/time_zone.h"
#include "desk/desk.h"

namespace dw::desk {

// Percent-encodes every byte outside A-Z a-z 0-9 - . _ ~ (a path segment or a query value).
std::string UrlEncode(std::string_view text);

std::string IncidentHref(const std::string& id);
std::string AssetHref(const std::string& id);
std::string ReceiptHref(int64_t seq);

// <a href="href">text</a>, both escaped.
std::string Link(const std::string& href, const std::string& text);

// `t` in the workspace's zone, the one every time on a page reads in: "2026-11-24 14:02 UTC",
// "2026-11-24 15:02 +01:00" (Europe/Berlin).
std::string ShortTime(TimePoint t, const config::TimeZone& zone);
// The same for an RFC 3339 text; the text itself when it does not parse.
std::string ShortTime(const std::string& rfc3339, const config::TimeZone& zone);
// "6h 55m", "3d 4h", "45s"; "overdue by 12m" for a negative span.
std::string Countdown(std::chrono::milliseconds left);

// The whole document: doctype, lang, title, the stylesheet, the header with the navigation and
// `main_html` inside <main>.
std::string Document(const std::string& title, const std::string& main_html);

// A page with `status` whose body says `sentence` (escaped) under `heading`.
Page MessagePage(int status, const std::string& heading, const std::string& sentence);
// The page for a failed Status: 404 for kNotFound, 400 for kInvalidArgument, 503 otherwise.
Page StatusPage(const Status& status, const std::string& heading);

// Pretty JSON, escaped, inside <pre>.
std::string JsonBlock(const Json& value);

}  // namespace dw::desk
