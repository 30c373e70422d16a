// ReceiptText: one receipt as a person or an auditor reads it on one screen — what happened, the
// cause, who approved what, what ran, what was checked and how to undo it — with the hashes that
// bind it to the chain. The stored body stays the record; this only reads it, and reads it as
// untrusted (a field of the wrong type is shown as its JSON, never trusted to be a string).
#include <string>

#include "actions/actions.h"
#include "actions/receipt_anchor.h"

namespace dw::actions {
namespace {

// A value as words: a string as it is, a list as "a, b", an object as "key: value; key: value",
// numbers and booleans as written. No JSON punctuation reaches the page.
std::string Flat(const Json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_null()) return "";
  std::string out;
  if (v.is_array()) {
    for (const Json& x : v) out += (out.empty() ? "" : ", ") + Flat(x);
    return out;
  }
  if (v.is_object()) {
    for (const auto& [k, x] : v.items()) out += (out.empty() ? "" : "; ") + k + ": " + Flat(x);
    return out;
  }
  return v.dump(-1, ' ', false, Json::error_handler_t::replace);
}

// `j[key]`, or null when `j` is not an object or has no such key: a stored body is read as
// untrusted, and Json::value would throw on a field of the wrong type.
Json Field(const Json& j, const char* key) {
  if (!j.is_object()) return Json();
  auto it = j.find(key);
  return it == j.end() ? Json() : *it;
}

// `j[key]` as words (Flat), "" when absent or null.
std::string Text(const Json& j, const char* key) {
  if (!j.is_object() || !j.contains(key)) return "";
  return Flat(j[key]);
}

// One line, without line breaks a stored value might carry (they would fake a section).
std::string Line(std::string s) {
  for (char& c : s)
    if (c == '\n' || c == '\r') c = ' ';
  return s;
}

void Append(std::string& out, const std::string& label, const std::string& value) {
  if (!value.empty()) out += label + Line(value) + "\n";
}

void AppendIncident(std::string& out, const Json& content) {
  const Json inc = Field(content, "incident");
  out += "Incident " + Line(Text(inc, "id")) + (Text(inc, "severity").empty() ? "" : " (" + Line(Text(inc, "severity")) + ")") +
         ": " + Line(Text(inc, "title")) + "\n";
  Append(out, "  domain ", Text(inc, "domain") + (Text(inc, "owner").empty() ? "" : ", owner " + Text(inc, "owner")));
  Append(out, "  first bad point ", Text(inc, "first_bad_at"));
  Append(out, "  opened ", Text(inc, "opened_at"));
  const std::string how = Text(inc, "how") == "verification" ? "by verification" : "by " + Text(inc, "resolved_by");
  Append(out, "  resolved ", Text(inc, "resolved_at") + " " + how + (Text(inc, "reason").empty() ? "" : ": " + Text(inc, "reason")));

  const Json cause = Field(content, "cause");
  std::string c = Text(cause, "kind");
  if (!Text(cause, "change").empty() && Text(cause, "change") != c) c += " (" + Text(cause, "change") + ")";
  if (!Text(cause, "asset").empty()) c += " on " + Text(cause, "asset");
  if (!Text(cause, "happened_at").empty()) c += " at " + Text(cause, "happened_at");
  out += "Cause: " + Line(c.empty() ? "not identified" : c) + "\n";
  Append(out, "  ", Text(cause, "explanation"));

  // The blast radius in one line: how much is downstream, of what kinds, what faces customers,
  // whose it is (the graph's report: by_kind {kind: {count}}, owners [{owner, count}]).
  const Json blast = Field(content, "blast_radius");
  if (blast.is_object() && blast.contains("total")) {
    std::string b = Text(blast, "total") + " asset(s) downstream";
    auto counted = [](const Json& n) { return n.is_object() ? Flat(Field(n, "count")) : Flat(n); };
    const Json kinds = Field(blast, "by_kind");
    if (kinds.is_object() && !kinds.empty()) {
      std::string k;
      for (const auto& [kind, n] : kinds.items()) k += (k.empty() ? "" : ", ") + kind + " " + counted(n);
      b += " (" + k + ")";
    }
    const Json facing = Field(blast, "customer_facing");
    if (facing.is_array() && !facing.empty()) b += "; " + std::to_string(facing.size()) + " customer-facing";
    const Json owners = Field(blast, "owners");
    if (owners.is_array() && !owners.empty()) {
      std::string o;
      for (const Json& x : owners)
        o += (o.empty() ? "" : ", ") + (x.is_object() ? Text(x, "owner") + " (" + counted(x) + ")" : Flat(x));
      b += "; owners " + o;
    }
    Append(out, "Blast radius: ", b);
  }

  out += "Approvals:\n";
  const Json proposals = Field(content, "proposals");
  if (!proposals.is_array() || proposals.empty()) out += "  none (nothing was proposed)\n";
  for (const Json& p : proposals.is_array() ? proposals : Json::array()) {
    std::string line = "  " + Text(p, "id") + " v" + Text(p, "version") + " " + Text(p, "kind") + ": " + Text(p, "status");
    const Json d = Field(p, "decision");
    if (!d.empty())
      line += " by " + Text(d, "by") + " at " + Text(d, "at") + " (" + Text(d, "surface") + ")" +
              (Text(d, "reason").empty() ? "" : ": " + Text(d, "reason"));
    else if (p.contains("request"))
      line += ", asked of " + Text(p["request"], "approvers") + " until " + Text(p["request"], "expires_at");
    out += Line(line) + "\n";
  }

  const Json runs = Field(content, "runs");
  const Json steps = Field(runs, "steps");
  const Json seen = Field(runs, "observed_on_platforms");
  out += "Runs:\n";
  if ((!steps.is_array() || steps.empty()) && (!seen.is_array() || seen.empty())) out += "  none recorded\n";
  for (const Json& s : steps.is_array() ? steps : Json::array())
    out += Line("  " + Text(s, "at") + " " + Text(s, "kind") + " by " + Text(s, "by")) + "\n";
  for (const Json& s : seen.is_array() ? seen : Json::array())
    out += Line("  " + Text(s, "happened_at") + " on the platform: " + Text(s, "kind") + " on " + Text(s, "asset") +
                (Text(s, "reason").empty() ? "" : " (" + Text(s, "reason") + ")")) + "\n";

  const Json checks = Field(content, "checks");
  if (checks.is_object() && !checks.empty()) {
    const Json items = Field(checks, "items");
    out += Line("Checks: " + std::string(Field(checks, "passed") == true ? "passed" : "failed") + " at " + Text(checks, "at") +
                " (" + std::to_string(items.is_array() ? items.size() : 0) + " item(s))" +
                (Text(checks, "plan").empty() ? "" : ": " + Text(checks, "plan"))) + "\n";
  } else {
    out += "Checks: none run (resolved by a person)\n";
  }

  const Json undo = Field(content, "undo");
  out += "Undo:\n";
  if (!undo.is_array() || undo.empty()) out += "  nothing to undo\n";
  for (const Json& u : undo.is_array() ? undo : Json::array())
    out += Line("  " + Text(u, "proposal") + " v" + Text(u, "version") + " " + Text(u, "kind") + ": " + Text(u, "undo")) + "\n";
}

}  // namespace

std::string ReceiptText(const store::ReceiptRecord& r) {
  std::string out = "Receipt " + std::to_string(r.seq);
  const Json body = Json::parse(r.body, nullptr, /*allow_exceptions=*/false);
  if (body.is_object() && body.contains("written_at")) out += ", written " + Line(Text(body, "written_at"));
  if (body.is_object() && body.contains("content") && Field(body, "content").is_object() &&
      Field(Field(body, "content"), kSimulatedClockKey) == "simulated")
    out += " (by a simulated clock: --now, a replay or a test; not the real time)";
  out += "\n  hash " + r.hash + "\n  after " + (r.prev_hash.empty() ? std::string("(the first receipt)") : r.prev_hash) + "\n";
  const Json content = body.is_object() ? Field(body, "content") : Json();
  if (!content.is_object()) {
    out += "(its body is not a receipt this version reads; dw receipts show --format json prints it)\n";
    return out;
  }
  if (Field(content, "kind") == "incident_resolved") {
    AppendIncident(out, content);
    return out;
  }
  // Other receipts (a schema registered, a stop switch thrown, ...): each field on its line.
  for (const auto& [key, value] : content.items()) out += Line(key + ": " + Flat(value)) + "\n";
  return out;
}

}  // namespace dw::actions
