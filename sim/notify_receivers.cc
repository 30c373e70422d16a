// Loopback receivers of the notification services: Slack (incoming webhooks under /services/...,
// and the Web API's chat.postMessage / chat.update under /api/), a Microsoft Teams Workflows
// webhook (any path), the Opsgenie Alert API v2 (/v2/alerts...) and the PagerDuty Events API v2
// (/v2/enqueue). Each validates a request the way its service does and answers with the service's
// own status and body; each records every request (GET /_sim/received, DELETE to clear) and keeps
// the service's state (GET /_sim/state: Slack messages, Opsgenie alerts, PagerDuty incidents), so a
// test can tell a message that arrived twice from one the service deduplicated. Faults (429 with
// Retry-After, 500, slow, a dropped connection, or an answer lost after the work was done) come
// from the script's "faults" or POST /_sim/faults.
//
// Scripts: slack {"token"?: bot token required on /api/, "channels"?: [ids], "revoked"?: [webhook
// paths answering 404 no_service], "archived"?: [paths answering 410 channel_is_archived]};
// teams {}; opsgenie {"api_key"?: the GenieKey required}; pagerduty {"routing_keys"?: [keys]}.
#include <algorithm>
#include <cstdio>
#include <map>
#include <mutex>
#include <set>

#include "sim/sim_platforms.h"

namespace dw::sim {
namespace {

// What every receiver keeps: the requests, in order, and a counter for ids.
struct Inbox {
  std::mutex mu;
  std::vector<Json> received;
  int64_t next_id = 1;

  // `answer`: what a service that answers 200 to a refusal (Slack's Web API) said ({ok, ts}), kept
  // with the request so a reader can tell an accepted call, and which message it made or edited.
  void Record(const httplib::Request& req, int status, const Json& answer = Json()) {
    std::lock_guard<std::mutex> lock(mu);
    RecordLocked(req, status, answer);
  }
  // REQUIRES: mu held.
  void RecordLocked(const httplib::Request& req, int status, const Json& answer = Json()) {
    Json body = Json::parse(req.body, nullptr, false);
    Json entry = {{"method", req.method}, {"path", req.path}, {"status", status},
                  {"body", body.is_discarded() ? Json(req.body) : body}};
    if (!answer.is_null()) entry["answer"] = answer;
    if (req.has_header("Authorization")) entry["authorization"] = req.get_header_value("Authorization");
    if (!req.params.empty()) {
      Json q = Json::object();
      for (const auto& [k, v] : req.params) q[k] = v;
      entry["query"] = q;
    }
    if (received.size() < 200000) received.push_back(std::move(entry));
  }
};

void ServeInbox(httplib::Server& server, std::shared_ptr<Inbox> inbox) {
  server.Get("/_sim/received", [inbox](const httplib::Request&, httplib::Response& res) {
    std::lock_guard<std::mutex> lock(inbox->mu);
    res.set_content(Json{{"requests", inbox->received}}.dump(), "application/json");
  });
  server.Delete("/_sim/received", [inbox](const httplib::Request&, httplib::Response& res) {
    std::lock_guard<std::mutex> lock(inbox->mu);
    inbox->received.clear();
    res.status = 204;
  });
}

std::string Uuid(int64_t n) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "6f1c2e3a-0000-4000-8000-%012lld", static_cast<long long>(n));
  return buf;
}

std::vector<std::string> StringList(const Json& script, const char* key) {
  std::vector<std::string> out;
  if (!script.contains(key)) return out;
  if (!script[key].is_array()) throw std::invalid_argument(std::string(key) + ": expected an array of strings");
  for (const auto& v : script[key]) {
    if (!v.is_string()) throw std::invalid_argument(std::string(key) + ": expected an array of strings");
    out.push_back(v.get<std::string>());
  }
  return out;
}

bool Contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

// ---- Slack ----

// A Block Kit text object: {"type": "plain_text"|"mrkdwn", "text": 1..max chars}.
bool TextObject(const Json& t, size_t max, bool plain_only = false) {
  if (!t.is_object() || !t.contains("type") || !t.contains("text") || !t["text"].is_string()) return false;
  std::string type = t["type"].is_string() ? t["type"].get<std::string>() : "";
  if (type != "plain_text" && (plain_only || type != "mrkdwn")) return false;
  size_t n = t["text"].get<std::string>().size();
  return n >= 1 && n <= max;
}

// The Block Kit rules Slack enforces on the blocks we (and most senders) use; anything else is
// refused, as Slack refuses an unknown block type.
bool ValidBlocks(const Json& blocks) {
  if (!blocks.is_array() || blocks.empty() || blocks.size() > 50) return false;
  for (const Json& b : blocks) {
    if (!b.is_object() || !b.contains("type") || !b["type"].is_string()) return false;
    const std::string type = b["type"];
    if (type == "header") {
      if (!b.contains("text") || !TextObject(b["text"], 150, true)) return false;
    } else if (type == "section") {
      bool has_text = b.contains("text"), has_fields = b.contains("fields");
      if (!has_text && !has_fields) return false;
      if (has_text && !TextObject(b["text"], 3000)) return false;
      if (has_fields) {
        const Json& f = b["fields"];
        if (!f.is_array() || f.empty() || f.size() > 10) return false;
        for (const Json& x : f)
          if (!TextObject(x, 2000)) return false;
      }
    } else if (type == "context") {
      if (!b.contains("elements") || !b["elements"].is_array() || b["elements"].empty() ||
          b["elements"].size() > 10)
        return false;
      for (const Json& e : b["elements"])
        if (!TextObject(e, 3000)) return false;
    } else if (type == "divider") {
    } else {
      return false;
    }
  }
  return true;
}

// "" when `body` is a valid message, else Slack's error code.
std::string SlackMessageError(const Json& body) {
  if (body.is_discarded() || !body.is_object()) return "invalid_payload";
  bool has_text = body.contains("text") && body["text"].is_string() && !body["text"].get<std::string>().empty();
  if (body.contains("blocks")) {
    if (!ValidBlocks(body["blocks"])) return "invalid_blocks";
  } else if (!has_text) {
    return "no_text";
  }
  return "";
}

struct SlackState {
  std::string token;
  std::vector<std::string> channels, revoked, archived;
  std::vector<Json> posts;                // webhook posts, in order
  std::map<std::string, Json> messages;   // ts -> {channel, text, blocks, edits}
  int64_t seq = 0;
};

}  // namespace

void InstallSlack(const Json& script, httplib::Server& server, FaultList faults) {
  auto inbox = std::make_shared<Inbox>();
  auto st = std::make_shared<SlackState>();
  st->token = script.value("token", "");
  st->channels = StringList(script, "channels");
  st->revoked = StringList(script, "revoked");
  st->archived = StringList(script, "archived");
  ServeInbox(server, inbox);
  server.Post(R"(/services/.+)", [inbox, st, faults](const httplib::Request& req, httplib::Response& res) {
    std::string error;
    int status = 200;
    if (Contains(st->revoked, req.path)) {
      status = 404, error = "no_service";
    } else if (Contains(st->archived, req.path)) {
      status = 410, error = "channel_is_archived";
    } else {
      error = SlackMessageError(Json::parse(req.body, nullptr, false));
      if (!error.empty()) status = 400;
    }
    if (error.empty()) {
      std::lock_guard<std::mutex> lock(inbox->mu);
      st->posts.push_back(Json::parse(req.body));
    }
    inbox->Record(req, status);
    res.status = status;
    // Slack answers webhooks in plain text, labelled text/html.
    res.set_content(error.empty() ? "ok" : error, "text/html");
    faults.LostAnswer(req, res);
  });
  auto api = [inbox, st, faults](const std::string& method) {
    return [inbox, st, method, faults](const httplib::Request& req, httplib::Response& res) {
      Json answer;
      std::string auth = req.get_header_value("Authorization");
      Json body = Json::parse(req.body, nullptr, false);
      std::string error;
      if (auth.rfind("Bearer ", 0) != 0 || auth.size() <= 7) error = "not_authed";
      else if (!st->token.empty() && auth.substr(7) != st->token) error = "invalid_auth";
      else if (body.is_discarded() || !body.is_object()) error = "invalid_json";
      else if (!body.contains("channel") || !body["channel"].is_string()) error = "channel_not_found";
      else if (!st->channels.empty() && !Contains(st->channels, body["channel"])) error = "channel_not_found";
      else error = SlackMessageError(body);
      if (error.empty()) {
        std::lock_guard<std::mutex> lock(inbox->mu);
        const std::string channel = body["channel"];
        Json content = {{"channel", channel}, {"text", body.value("text", "")},
                        {"blocks", body.value("blocks", Json::array())}};
        if (method == "chat.postMessage") {
          char ts[40];
          std::snprintf(ts, sizeof ts, "1764600000.%06lld", static_cast<long long>(++st->seq));
          content["edits"] = 0;
          st->messages[ts] = content;
          answer = {{"ok", true}, {"channel", channel}, {"ts", ts}, {"message", content}};
        } else {
          std::string ts = body.value("ts", "");
          auto it = st->messages.find(ts);
          if (it == st->messages.end() || it->second["channel"] != channel) {
            error = "message_not_found";
          } else {
            content["edits"] = it->second["edits"].get<int>() + 1;
            it->second = content;
            answer = {{"ok", true}, {"channel", channel}, {"ts", ts}, {"text", content["text"]}};
          }
        }
      }
      if (!error.empty()) answer = {{"ok", false}, {"error", error}};
      inbox->Record(req, 200, Json{{"ok", error.empty()}, {"ts", answer.value("ts", "")}});
      res.set_content(answer.dump(), "application/json; charset=utf-8");  // the Web API answers 200 even for errors
      faults.LostAnswer(req, res);
    };
  };
  // auth.test: whether the token is good, without posting (Slack answers 200 with ok true/false).
  server.Post("/api/auth.test", [inbox, st](const httplib::Request& req, httplib::Response& res) {
    std::string auth = req.get_header_value("Authorization");
    std::string error;
    if (auth.rfind("Bearer ", 0) != 0 || auth.size() <= 7) error = "not_authed";
    else if (!st->token.empty() && auth.substr(7) != st->token) error = "invalid_auth";
    Json answer = error.empty() ? Json{{"ok", true}, {"url", "https://sim.slack.com/"}, {"team", "Sim Team"},
                                       {"user", "dw-bot"}, {"team_id", "T0SIM"}, {"user_id", "U0BOT"}}
                                : Json{{"ok", false}, {"error", error}};
    inbox->Record(req, 200, Json{{"ok", error.empty()}});
    res.set_content(answer.dump(), "application/json; charset=utf-8");
  });
  server.Post("/api/chat.postMessage", api("chat.postMessage"));
  server.Post("/api/chat.update", api("chat.update"));
  server.Get("/_sim/state", [inbox, st](const httplib::Request&, httplib::Response& res) {
    std::lock_guard<std::mutex> lock(inbox->mu);
    Json messages = Json::object();
    for (const auto& [ts, m] : st->messages) messages[ts] = m;
    res.set_content(Json{{"posts", st->posts}, {"messages", messages}}.dump(), "application/json");
  });
}

namespace {

// "" when `body` is a Workflows message carrying Adaptive Cards, else what is wrong.
std::string TeamsMessageError(const Json& body) {
  if (body.is_discarded() || !body.is_object()) return "the request body is not JSON";
  if (body.value("type", "") != "message") return "'type' must be \"message\"";
  if (!body.contains("attachments") || !body["attachments"].is_array() || body["attachments"].empty())
    return "'attachments' must be a non-empty array";
  for (const Json& a : body["attachments"]) {
    if (!a.is_object() || a.value("contentType", "") != "application/vnd.microsoft.card.adaptive")
      return "each attachment needs contentType application/vnd.microsoft.card.adaptive";
    const Json& c = a.contains("content") ? a["content"] : Json();
    if (!c.is_object() || c.value("type", "") != "AdaptiveCard" || !c.contains("version") ||
        !c["version"].is_string() || !c.contains("body") || !c["body"].is_array())
      return "the card must be {type: AdaptiveCard, version, body: [...]}";
    for (const Json& e : c["body"])
      if (!e.is_object() || !e.contains("type") || !e["type"].is_string()) return "every card element needs a type";
  }
  return "";
}

}  // namespace

void InstallTeams(const Json&, httplib::Server& server, FaultList faults) {
  auto inbox = std::make_shared<Inbox>();
  auto cards = std::make_shared<std::vector<Json>>();
  ServeInbox(server, inbox);
  server.Post(R"(/(?!_sim/).*)", [inbox, cards, faults](const httplib::Request& req, httplib::Response& res) {
    Json body = Json::parse(req.body, nullptr, false);
    std::string error = TeamsMessageError(body);
    if (!error.empty()) {
      inbox->Record(req, 400);
      res.status = 400;
      res.set_content(Json{{"error", {{"code", "InvalidRequestContent"}, {"message", error}}}}.dump(),
                      "application/json");
      return;
    }
    {
      std::lock_guard<std::mutex> lock(inbox->mu);
      cards->push_back(body["attachments"][0]["content"]);
    }
    inbox->Record(req, 202);
    res.status = 202;  // the workflow runs afterwards
    faults.LostAnswer(req, res);
  });
  server.Get("/_sim/state", [inbox, cards](const httplib::Request&, httplib::Response& res) {
    std::lock_guard<std::mutex> lock(inbox->mu);
    res.set_content(Json{{"cards", *cards}}.dump(), "application/json");
  });
}

namespace {

struct OpsgenieState {
  std::string api_key;
  std::vector<Json> alerts;                 // {id, alias, message, priority, description, status, count, notes}
  std::map<std::string, Json> requests;     // requestId -> request status data
};

void OpsgenieAnswer(httplib::Response& res, int status, Json body, const std::string& request_id) {
  body["took"] = 0.004;
  body["requestId"] = request_id;
  res.status = status;
  res.set_content(body.dump(), "application/json");
}

}  // namespace

void InstallOpsgenie(const Json& script, httplib::Server& server, FaultList faults) {
  auto inbox = std::make_shared<Inbox>();
  auto st = std::make_shared<OpsgenieState>();
  st->api_key = script.value("api_key", "");
  ServeInbox(server, inbox);
  // Ok iff the request carries "Authorization: GenieKey <key>" (the configured key when set).
  auto authorized = [st](const httplib::Request& req) {
    std::string auth = req.get_header_value("Authorization");
    if (auth.rfind("GenieKey ", 0) != 0 || auth.size() <= 9) return false;
    return st->api_key.empty() || auth.substr(9) == st->api_key;
  };
  auto open_alert = [st](const std::string& alias) -> Json* {
    for (auto& a : st->alerts)
      if (a["alias"] == alias && a["status"] == "open") return &a;
    return nullptr;
  };
  server.Post("/v2/alerts", [=](const httplib::Request& req, httplib::Response& res) {
    std::unique_lock<std::mutex> lock(inbox->mu);
    std::string rid = Uuid(inbox->next_id++);
    if (!authorized(req)) {
      OpsgenieAnswer(res, 401, {{"message", "Could not authenticate"}}, rid);
      inbox->RecordLocked(req, 401);
      return;
    }
    Json body = Json::parse(req.body, nullptr, false);
    Json errors = Json::object();
    if (body.is_discarded() || !body.is_object()) errors["body"] = "Request body is not valid JSON.";
    else {
      std::string message = body.value("message", "");
      if (message.empty()) errors["message"] = "Message can not be empty.";
      else if (message.size() > 130) errors["message"] = "Message can not be longer than 130 characters.";
      if (body.contains("priority")) {
        std::string p = body["priority"].is_string() ? body["priority"].get<std::string>() : "";
        if (p.size() != 2 || p[0] != 'P' || p[1] < '1' || p[1] > '5') errors["priority"] = "Priority should be one of [P1, P2, P3, P4, P5]";
      }
      if (body.value("alias", "").size() > 512) errors["alias"] = "Alias can not be longer than 512 characters.";
    }
    if (!errors.empty()) {
      OpsgenieAnswer(res, 422, {{"message", "Request body is not processable. Please check the errors."}, {"errors", errors}}, rid);
    } else {
      std::string alias = body.value("alias", Uuid(1000000 + inbox->next_id));
      Json* existing = open_alert(alias);
      std::string alert_id;
      if (existing) {  // deduplicated: one open alert per alias
        (*existing)["count"] = (*existing)["count"].get<int>() + 1;
        alert_id = (*existing)["id"];
      } else {
        alert_id = Uuid(2000000 + static_cast<int64_t>(st->alerts.size()));
        st->alerts.push_back({{"id", alert_id}, {"alias", alias}, {"message", body["message"]},
                              {"priority", body.value("priority", "P3")},
                              {"description", body.value("description", "")}, {"status", "open"},
                              {"count", 1}, {"notes", Json::array()}});
      }
      st->requests[rid] = {{"success", true}, {"action", "Create"}, {"isSuccess", true},
                           {"status", existing ? "Alert deduplicated" : "Created alert"},
                           {"alertId", alert_id}, {"alias", alias}};
      OpsgenieAnswer(res, 202, {{"result", "Request will be processed"}}, rid);
    }
    inbox->RecordLocked(req, res.status);
    lock.unlock();  // a slow lost answer must not stall the readers of the recording
    faults.LostAnswer(req, res);
  });
  // Close and priority: accepted asynchronously whatever the alias; the request status tells.
  auto alert_action = [=](const std::string& action) {
    return [=](const httplib::Request& req, httplib::Response& res) {
      std::unique_lock<std::mutex> lock(inbox->mu);
      std::string rid = Uuid(inbox->next_id++);
      Json body = Json::parse(req.body, nullptr, false);
      if (!authorized(req)) {
        OpsgenieAnswer(res, 401, {{"message", "Could not authenticate"}}, rid);
      } else if (action == "Update Priority" &&
                 (!body.is_object() || body.value("priority", "").size() != 2)) {
        OpsgenieAnswer(res, 422, {{"message", "Request body is not processable. Please check the errors."},
                                  {"errors", {{"priority", "Priority should be one of [P1, P2, P3, P4, P5]"}}}}, rid);
      } else {
        std::string identifier = req.matches[1];
        bool by_alias = req.get_param_value("identifierType") == "alias";
        Json* alert = nullptr;
        for (auto& a : st->alerts)
          if ((by_alias ? a["alias"] : a["id"]) == identifier && a["status"] == "open") alert = &a;
        Json status = {{"action", action}, {"alias", identifier}};
        if (alert == nullptr) {
          status.update({{"success", false}, {"isSuccess", false}, {"status", "Alert does not exist"}});
        } else {
          if (action == "Close") {
            (*alert)["status"] = "closed";
            if (body.is_object() && body.contains("note")) (*alert)["notes"].push_back(body["note"]);
          } else {
            (*alert)["priority"] = body["priority"];
          }
          status.update({{"success", true}, {"isSuccess", true}, {"status", action == "Close" ? "Closed alert" : "Updated priority"},
                         {"alertId", (*alert)["id"]}});
        }
        st->requests[rid] = status;
        OpsgenieAnswer(res, 202, {{"result", "Request will be processed"}}, rid);
      }
      inbox->RecordLocked(req, res.status);
      lock.unlock();  // a slow lost answer must not stall the readers of the recording
      faults.LostAnswer(req, res);
    };
  };
  // The identifier is percent-decoded before matching, and an alias may hold '/'.
  server.Post(R"(/v2/alerts/(.+)/close)", alert_action("Close"));
  server.Put(R"(/v2/alerts/(.+)/priority)", alert_action("Update Priority"));
  server.Get(R"(/v2/alerts/requests/([^/]+))", [=](const httplib::Request& req, httplib::Response& res) {
    std::lock_guard<std::mutex> lock(inbox->mu);
    auto it = st->requests.find(req.matches[1]);
    if (it == st->requests.end()) {
      OpsgenieAnswer(res, 404, {{"message", "Request not found. It might not be processed, yet."}}, Uuid(inbox->next_id++));
      return;
    }
    OpsgenieAnswer(res, 200, {{"data", it->second}}, Uuid(inbox->next_id++));
  });
  server.Get("/_sim/state", [inbox, st](const httplib::Request&, httplib::Response& res) {
    std::lock_guard<std::mutex> lock(inbox->mu);
    res.set_content(Json{{"alerts", st->alerts}}.dump(), "application/json");
  });
}

namespace {

struct PagerDutyState {
  std::vector<std::string> routing_keys;
  std::map<std::string, Json> incidents;  // dedup_key -> {status, summary, severity, triggers, acks, resolves}
};

}  // namespace

void InstallPagerDuty(const Json& script, httplib::Server& server, FaultList faults) {
  auto inbox = std::make_shared<Inbox>();
  auto st = std::make_shared<PagerDutyState>();
  st->routing_keys = StringList(script, "routing_keys");
  ServeInbox(server, inbox);
  server.Post("/v2/enqueue", [inbox, st, faults](const httplib::Request& req, httplib::Response& res) {
    Json body = Json::parse(req.body, nullptr, false);
    std::vector<std::string> errors;
    auto blank = [&](const Json& obj, const char* key) {
      return !obj.is_object() || !obj.contains(key) || !obj[key].is_string() || obj[key].get<std::string>().empty();
    };
    std::string action;
    if (body.is_discarded() || !body.is_object()) {
      errors.push_back("Event object is not valid JSON");
    } else {
      if (blank(body, "routing_key")) errors.push_back("'routing_key' is missing or blank");
      else if (!st->routing_keys.empty() && !Contains(st->routing_keys, body["routing_key"]))
        errors.push_back("Invalid routing key");
      action = blank(body, "event_action") ? "" : body["event_action"].get<std::string>();
      if (action != "trigger" && action != "acknowledge" && action != "resolve")
        errors.push_back("'event_action' is missing or invalid");
      if (action == "trigger") {
        const Json& p = body.contains("payload") ? body["payload"] : Json();
        if (blank(p, "summary")) errors.push_back("'payload.summary' is missing or blank");
        if (blank(p, "source")) errors.push_back("'payload.source' is missing or blank");
        std::string sev = p.is_object() ? p.value("severity", "") : "";
        if (sev != "critical" && sev != "error" && sev != "warning" && sev != "info")
          errors.push_back("'payload.severity' is missing or invalid");
      } else if (!action.empty() && blank(body, "dedup_key")) {
        errors.push_back("'dedup_key' is missing or blank");
      }
    }
    std::unique_lock<std::mutex> lock(inbox->mu);
    if (!errors.empty()) {
      res.status = 400;
      res.set_content(Json{{"status", "invalid event"}, {"message", "Event object is invalid"}, {"errors", errors}}.dump(),
                      "application/json");
    } else {
      std::string key = blank(body, "dedup_key") ? Uuid(inbox->next_id++) : body["dedup_key"].get<std::string>();
      Json& inc = st->incidents[key];
      if (inc.is_null()) inc = {{"status", "none"}, {"triggers", 0}, {"acks", 0}, {"resolves", 0}, {"incidents_opened", 0}};
      if (action == "trigger") {
        inc["triggers"] = inc["triggers"].get<int>() + 1;
        if (inc["status"] == "none" || inc["status"] == "resolved") {
          inc["status"] = "triggered";
          inc["incidents_opened"] = inc["incidents_opened"].get<int>() + 1;
        }
        inc["summary"] = body["payload"]["summary"];
        inc["severity"] = body["payload"]["severity"];
      } else if (action == "acknowledge") {
        inc["acks"] = inc["acks"].get<int>() + 1;
        if (inc["status"] == "triggered") inc["status"] = "acknowledged";
      } else {
        inc["resolves"] = inc["resolves"].get<int>() + 1;
        if (inc["status"] != "none") inc["status"] = "resolved";
      }
      res.status = 202;
      res.set_content(Json{{"status", "success"}, {"message", "Event processed"}, {"dedup_key", key}}.dump(),
                      "application/json");
    }
    inbox->RecordLocked(req, res.status);
    lock.unlock();  // a slow lost answer must not stall the readers of the recording
    faults.LostAnswer(req, res);
  });
  server.Get("/_sim/state", [inbox, st](const httplib::Request&, httplib::Response& res) {
    std::lock_guard<std::mutex> lock(inbox->mu);
    Json incidents = Json::object();
    for (const auto& [k, v] : st->incidents) incidents[k] = v;
    res.set_content(Json{{"incidents", incidents}}.dump(), "application/json");
  });
}

}  // namespace dw::sim
