// A proposal in sentences (see proposal_reading.h).
#include "desk/proposal_reading.h"

#include "desk/html.h"
#include "desk/incident_parts.h"

namespace dw::desk {
namespace {

std::string Text(const Json& o, const char* key) {
  return o.is_object() && o.contains(key) && o[key].is_string() ? o[key].get<std::string>() : "";
}

Json List(const Json& o, const char* key) {
  return o.is_object() && o.contains(key) && o[key].is_array() ? o[key] : Json::array();
}

// A paragraph "<label>: text" when text is not empty.
std::string Said(const std::string& label, const std::string& text) {
  if (text.empty()) return "";
  return "<p><strong>" + EscapeMarkup(label) + ":</strong> " + EscapeMarkup(text) + "</p>\n";
}

// The strings of `list` as a list (`ordered`: numbered).
std::string Items(const Json& list, bool ordered) {
  std::string s;
  for (const Json& v : list)
    if (v.is_string()) s += "<li>" + EscapeMarkup(v.get<std::string>()) + "</li>\n";
  if (s.empty()) return "";
  return ordered ? "<ol>\n" + s + "</ol>\n" : "<ul>\n" + s + "</ul>\n";
}

std::string HoldSteps(const Json& content, const config::TimeZone& zone) {
  std::string s;
  for (const Json& t : List(content, "targets")) {
    if (!t.is_object()) continue;
    std::string who = Text(t, "owner");
    s += "<li><strong>" + EscapeMarkup(Text(t, "consumer")) + "</strong>" +
         (who.empty() ? "" : " (owner " + EscapeMarkup(who) + ")") +
         (t.value("customer_facing", false) ? ", customer-facing" : "") +
         (Text(t, "next_run").empty() ? "" : ", next run " + EscapeMarkup(ShortTime(Text(t, "next_run"), zone))) +
         ".<br>Step: " + EscapeMarkup(Text(t, "step")) + "<br>Undo: " + EscapeMarkup(Text(t, "undo")) + "</li>\n";
  }
  return s.empty() ? "" : "<p class=\"label\">What will happen</p>\n<ol>\n" + s + "</ol>\n";
}

std::string RunPlanSteps(const Json& content) {
  std::string s;
  for (const Json& step : List(content, "steps")) {
    if (!step.is_object()) continue;
    const std::string after = Text(step, "after"), pre = Text(step, "precondition"), owner = Text(step, "owner");
    s += "<li>" + EscapeMarkup(Text(step, "action")) + " <span class=\"muted\">(" + EscapeMarkup(Text(step, "asset")) +
         (owner.empty() ? "" : ", asked of " + EscapeMarkup(owner)) + ")</span>" +
         (after.empty() ? "" : "; after " + EscapeMarkup(after)) +
         (pre.empty() ? "" : "; only if " + EscapeMarkup(pre)) + "</li>\n";
  }
  return s.empty() ? "" : "<p class=\"label\">What will happen, in this order</p>\n<ol>\n" + s + "</ol>\n";
}

std::string VerificationItems(const Json& content) {
  std::string s;
  for (const Json& i : List(content, "items")) {
    if (!i.is_object()) continue;
    std::string test = Text(i, "op").empty() ? Text(i, "threshold")
                                             : Text(i, "op") + " " + (i.contains("value") ? i["value"].dump() : "");
    s += "<li>" + EscapeMarkup(Text(i, "kind")) + " " + EscapeMarkup(Text(i, "name")) +
         (test.empty() ? "" : ": " + EscapeMarkup(test)) + (i.value("failing_now", false) ? " (failing now)" : "") +
         "</li>\n";
  }
  return s.empty() ? "" : "<p class=\"label\">What will be checked</p>\n<ul>\n" + s + "</ul>\n";
}

}  // namespace

std::string ProposalReadingHtml(const std::string& kind, const Json& content, const config::TimeZone& zone) {
  if (!content.is_object()) return "<p class=\"message\">This proposal's content is not readable.</p>\n";
  std::string s = Said("What", Text(content, "title")) + Said("Why", Text(content, "why"));
  // The blast radius in one line: every asset the proposal touches.
  std::string touches;
  for (const Json& a : List(content, "touches"))
    if (a.is_string()) touches += (touches.empty() ? "" : ", ") + a.get<std::string>();
  s += Said("Touches", touches);
  if (kind == "hold") {
    s += HoldSteps(content, zone) + Said("Until", Text(content, "until"));
  } else if (kind == "run_plan") {
    s += RunPlanSteps(content);
    if (!List(content, "excluded").empty()) s += "<p class=\"label\">Not rerun</p>\n" + Items(List(content, "excluded"), false);
  } else if (kind == "verification_plan") {
    s += VerificationItems(content) + Said("When", Text(content, "when"));
  } else {
    if (!List(content, "changes").empty()) s += "<p class=\"label\">What changes</p>\n" + Items(List(content, "changes"), false);
    if (!List(content, "steps").empty()) s += "<p class=\"label\">The owner's steps</p>\n" + Items(List(content, "steps"), true);
    for (const char* key : {"subject", "schema_type", "registry", "flow", "file"}) s += Said(key, Text(content, key));
  }
  // Diffs as diffs, wherever the kind keeps them.
  for (auto it = content.begin(); it != content.end(); ++it)
    if (it.value().is_string()) {
      const std::string v = it.value().get<std::string>();
      if (v.rfind("--- ", 0) == 0 || v.rfind("@@ ", 0) == 0)
        s += "<p class=\"label\">" + EscapeMarkup(it.key() == "undo_diff" ? "The undo, as a diff" : "The change, as a diff") +
             "</p>" + DiffBlock(v);
    }
  s += Said("Undo", Text(content, "undo"));
  if (!List(content, "evidence").empty()) s += "<p class=\"label\">Evidence</p>\n" + Items(List(content, "evidence"), false);
  // Ids and URLs are long unbroken words: they wrap rather than widen a phone's page.
  return "<div class=\"reading\">\n" + s + "</div>\n";
}

}  // namespace dw::desk
