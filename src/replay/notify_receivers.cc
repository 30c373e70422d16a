#include "replay/notify_receivers.h"

#include <fstream>
#include <sstream>
#include <system_error>

#include "base/json.h"

namespace dw::replay {
namespace {

namespace fs = std::filesystem;

// Safe reads of what a receiver recorded (untrusted: a field may be missing or of another type).
const Json& Field(const Json& j, const char* key) {
  static const Json kNull;
  if (!j.is_object()) return kNull;
  auto it = j.find(key);
  return it == j.end() ? kNull : *it;
}
std::string Text(const Json& j, const char* key) {
  const Json& v = Field(j, key);
  return v.is_string() ? v.get<std::string>() : "";
}
// The array `key` of `j`, or an empty one.
const Json& Items(const Json& j, const char* key) {
  static const Json kEmpty = Json::array();
  const Json& v = Field(j, key);
  return v.is_array() ? v : kEmpty;
}

// dw-sim's receiver for a workspace channel.
std::string ReceiverPlatform(const std::string& channel) { return channel == "email" ? "smtp" : channel; }

// Every string value inside `j`, one per line (what a person could read in the message).
void Strings(const Json& j, std::string* out) {
  if (j.is_string()) {
    *out += j.get<std::string>() + "\n";
  } else if (j.is_array() || j.is_object()) {
    for (const auto& v : j) Strings(v, out);
  }
}

std::vector<std::string> SplitList(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  std::string item;
  while (std::getline(in, item, ',')) {
    size_t a = item.find_first_not_of(" \t"), b = item.find_last_not_of(" \t\r");
    if (a != std::string::npos) out.push_back(item.substr(a, b - a + 1));
  }
  return out;
}

// Slack names the people in a context line: "For a, b; copied: c" (or "Escalated to a; ...").
void SlackPeople(const Json& body, ReceivedMessage* m) {
  for (const Json& block : Items(body, "blocks")) {
    if (!block.is_object() || Text(block, "type") != "context") continue;
    for (const Json& e : Items(block, "elements")) {
      std::string t = Text(e, "text");
      std::string lead = t.rfind("For ", 0) == 0 ? "For " : t.rfind("Escalated to ", 0) == 0 ? "Escalated to " : "";
      if (lead.empty()) continue;
      t = t.substr(lead.size());
      size_t copied = t.find("; copied: ");
      m->to = SplitList(t.substr(0, copied));
      if (copied != std::string::npos) m->cc = SplitList(t.substr(copied + 10));
    }
  }
}

// Teams names them in a fact "For" (or "Escalated to").
void TeamsPeople(const Json& card, ReceivedMessage* m) {
  for (const Json& element : Items(card, "body")) {
    if (!element.is_object() || Text(element, "type") != "FactSet") continue;
    for (const Json& f : Items(element, "facts"))
      if (Text(f, "title") == "For" || Text(f, "title") == "Escalated to")
        m->to = SplitList(Text(f, "value"));
  }
}

Result<Json> GetJson(net::HttpClient& http, const std::string& url) {
  net::HttpRequest req;
  req.method = "GET";
  req.url = url;
  auto res = http.Send(req);
  if (!res.ok()) return Unavailable("the receiver at " + url + " cannot be read: " + res.status().message());
  if (res->status != 200) return Unavailable("the receiver at " + url + " answered HTTP " + std::to_string(res->status));
  Json j = Json::parse(res->body, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return Unavailable("the receiver at " + url + " answered something that is not JSON");
  return j;
}

// One recorded HTTP request as the message it delivered, or nothing when the service did not
// accept it (a fault, a refusal) or it was not a message (Opsgenie's request-status polls).
std::optional<ReceivedMessage> FromRequest(const std::string& channel, const Json& r, size_t index) {
  const Json& code = Field(r, "status");
  int status = code.is_number_integer() ? code.get<int>() : 0;
  if (status < 200 || status >= 300 || Text(r, "method") == "GET") return std::nullopt;
  const std::string path = Text(r, "path");
  const Json& body = Field(r, "body");
  ReceivedMessage m;
  m.key = channel + ":" + std::to_string(index);
  m.channel = channel;
  Strings(body, &m.text);
  if (channel == "slack") {
    if (!body.is_object()) return std::nullopt;
    if (path.rfind("/api/", 0) == 0) {
      const Json& answer = Field(r, "answer");
      if (Field(answer, "ok") != Json(true)) return std::nullopt;  // the Web API answers its refusals with 200
      m.edit = path == "/api/chat.update";
      m.key = "slack:" + (m.edit ? Text(body, "ts") : Text(answer, "ts"));
    }
    m.headline = Text(body, "text");
    SlackPeople(body, &m);
  } else if (channel == "teams") {
    if (!body.is_object() || !body.contains("attachments") || !body["attachments"].is_array() ||
        body["attachments"].empty())
      return std::nullopt;
    const Json& card = Field(body["attachments"][0], "content");
    for (const Json& e : Items(card, "body"))
      if (Text(e, "type") == "TextBlock" && m.headline.empty()) m.headline = Text(e, "text");
    TeamsPeople(card, &m);
  } else if (channel == "opsgenie") {
    auto ends_with = [&](const std::string& tail) {
      return path.size() >= tail.size() && path.compare(path.size() - tail.size(), tail.size(), tail) == 0;
    };
    if (ends_with("/close")) {
      m.event = "resolved";
      m.headline = "close " + path.substr(11, path.size() - 11 - 6);
    } else if (ends_with("/priority")) {
      m.event = "severity_raised";
      m.headline = "priority of " + path.substr(11, path.size() - 11 - 9);
    } else if (body.is_object()) {
      m.headline = Text(body, "message");
    }
  } else if (channel == "pagerduty") {
    if (!body.is_object()) return std::nullopt;
    std::string action = Text(body, "event_action");
    if (action == "trigger") m.headline = Text(Field(body, "payload"), "summary");
    else if (action == "acknowledge") m.event = "approved", m.headline = "acknowledge " + Text(body, "dedup_key");
    else if (action == "resolve") m.event = "resolved", m.headline = "resolve " + Text(body, "dedup_key");
  }
  if (m.event.empty()) m.event = EventOfHeadline(m.headline);
  return m;
}

// One line the SMTP receiver printed ({from, to, data, user}) as the mail it accepted.
std::optional<ReceivedMessage> FromMail(const std::string& line) {
  Json j = Json::parse(line, nullptr, false);
  if (j.is_discarded() || !j.is_object() || !j.contains("data") || !j["data"].is_string()) return std::nullopt;
  ReceivedMessage m;
  m.channel = "email";
  m.text = j["data"].get<std::string>();
  // The headers, up to the first empty line (continuation lines are not written by our mails).
  std::stringstream in(m.text);
  std::string header;
  while (std::getline(in, header)) {
    if (!header.empty() && header.back() == '\r') header.pop_back();
    if (header.empty()) break;
    auto value = [&](const char* name) -> std::optional<std::string> {
      std::string n = std::string(name) + ": ";
      if (header.size() < n.size()) return std::nullopt;
      for (size_t i = 0; i < n.size(); ++i)
        if (std::tolower(static_cast<unsigned char>(header[i])) != std::tolower(static_cast<unsigned char>(n[i])))
          return std::nullopt;
      return header.substr(n.size());
    };
    if (auto v = value("Subject")) m.headline = *v;
    else if (auto to = value("To")) m.to = SplitList(*to);
    else if (auto cc = value("Cc")) m.cc = SplitList(*cc);
  }
  m.event = EventOfHeadline(m.headline);
  return m;
}

}  // namespace

std::string EventOfHeadline(const std::string& headline) {
  // The words platforms/notify/ writes after "[SEVn] " for each event (its EventPhrase; a test
  // holds the two together).
  static const std::pair<const char*, const char*> kPhrases[] = {
      {"Opened: ", "open"},        {"Severity raised: ", "severity_raised"},
      {"Approval requested: ", "approval_requested"}, {"Approved: ", "approved"},
      {"Escalated: ", "escalated"}, {"Verified: ", "verified"}, {"Resolved: ", "resolved"},
      // A person is needed (the notify stage's attention_requested: a failed verification, a cause
      // still live, a decision that does not verify).
      {"Attention requested: ", "attention_requested"},
  };
  if (headline.rfind("[", 0) != 0) return "";
  size_t close = headline.find("] ");
  if (close == std::string::npos) return "";
  for (const auto& [phrase, event] : kPhrases)
    if (headline.compare(close + 2, std::string(phrase).size(), phrase) == 0) return event;
  return "";
}

Result<std::unique_ptr<NotifyReceivers>> NotifyReceivers::Start(const fs::path& sim_binary,
                                                                const std::map<std::string, ReceiverSpec>& specs,
                                                                const fs::path& script_dir, std::string* failed) {
  auto out = std::unique_ptr<NotifyReceivers>(new NotifyReceivers());
  for (const auto& [channel, spec] : specs) {
    *failed = channel;
    fs::path script = spec.script;
    if (script.empty()) {
      std::error_code ec;
      fs::create_directories(script_dir, ec);
      script = script_dir / (channel + ".json");
      std::ofstream f(script, std::ios::trunc);
      f << spec.inline_script.dump(2) << "\n";
      if (!f) return InvalidArgument("cannot write the inline receiver script to " + script.string());
    }
    auto process = SimulatorProcess::Start(sim_binary, ReceiverPlatform(channel), script);
    if (!process.ok()) return process.status();
    out->urls_[channel] = (*process)->url();
    out->processes_[channel] = std::move(process).value();
  }
  failed->clear();
  return out;
}

Status NotifyReceivers::SetClock(net::HttpClient& http, TimePoint t) {
  for (const auto& [channel, process] : processes_) {
    if (channel == "email") mail_output_ += process->TakeOutput();
    else DW_RETURN_IF_ERROR(process->SetClock(http, t));
  }
  return Status::Ok();
}

Result<std::vector<ReceivedMessage>> NotifyReceivers::Messages(net::HttpClient& http, const std::string& channel) {
  auto it = processes_.find(channel);
  if (it == processes_.end()) return NotFound("no receiver for channel " + channel);
  std::vector<ReceivedMessage> out;
  if (channel == "email") {
    mail_output_ += it->second->TakeOutput();
    std::stringstream in(mail_output_);
    std::string line;
    while (std::getline(in, line))
      if (auto m = FromMail(line)) {
        m->key = "email:" + std::to_string(out.size());
        out.push_back(std::move(*m));
      }
    return out;
  }
  auto received = GetJson(http, it->second->url() + "/_sim/received");
  if (!received.ok()) return received.status();
  const Json& requests = Items(*received, "requests");
  for (size_t i = 0; i < requests.size(); ++i)
    if (auto m = FromRequest(channel, requests[i], i)) out.push_back(std::move(*m));
  return out;
}

Result<std::vector<ReceivedAlert>> NotifyReceivers::Alerts(net::HttpClient& http, const std::string& channel) {
  auto it = processes_.find(channel);
  if (it == processes_.end()) return NotFound("no receiver for channel " + channel);
  auto state = GetJson(http, it->second->url() + "/_sim/state");
  if (!state.ok()) return state.status();
  std::vector<ReceivedAlert> out;
  if (channel == "opsgenie") {
    for (const Json& a : Items(*state, "alerts")) {
      ReceivedAlert alert{Text(a, "alias"), Text(a, "status"), Text(a, "message"), {}};
      for (const Json& n : Items(a, "notes"))
        if (n.is_string()) alert.notes.push_back(n.get<std::string>());
      out.push_back(std::move(alert));
    }
  } else if (channel == "pagerduty") {
    const Json& incidents = Field(*state, "incidents");
    if (incidents.is_object())
      for (const auto& [key, inc] : incidents.items()) out.push_back({key, Text(inc, "status"), Text(inc, "summary"), {}});
  } else {
    return InvalidArgument("channel " + channel + " keeps no alerts (opsgenie and pagerduty do)");
  }
  return out;
}

}  // namespace dw::replay
