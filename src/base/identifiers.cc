#include "base/identifiers.h"

#include <algorithm>
#include <cctype>

namespace dw {
namespace {

bool IsAsciiAlpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool IsAsciiDigit(char c) { return c >= '0' && c <= '9'; }

bool IsInstanceChar(char c) {
  return IsAsciiAlpha(c) || IsAsciiDigit(c) || c == '_' || c == '-' || c == '.';
}

// Name characters: printable ASCII except space and the characters that would make an id
// ambiguous inside a URL, a log line or a YAML flow sequence.
bool IsNameChar(char c) {
  if (c <= ' ' || c > '~') return false;
  return std::string_view("?#\"'`\\,[]{}<>|").find(c) == std::string_view::npos;
}

// A SQL identifier part of a table reference (schema or table); quoting is the dialect's job.
bool IsTablePart(std::string_view part) {
  if (part.empty()) return false;
  return std::all_of(part.begin(), part.end(), [](char c) {
    return IsAsciiAlpha(c) || IsAsciiDigit(c) || c == '_' || c == '-' || c == '$';
  });
}

std::vector<std::string_view> SplitDots(std::string_view s) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (true) {
    size_t dot = s.find('.', start);
    parts.push_back(s.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start));
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  return parts;
}

std::string JoinKinds() {
  std::string out;
  for (const auto& k : KnownAssetKinds()) out += (out.empty() ? "" : ", ") + k;
  return out;
}

// Kind-specific rules for the name part; an empty return means the name is fine.
std::string CheckNameForKind(std::string_view kind, std::string_view name) {
  if (kind == "table") {
    auto parts = SplitDots(name);
    if (parts.size() > 2 || !std::all_of(parts.begin(), parts.end(), IsTablePart))
      return "a table name is 'schema.table' or 'table' (letters, digits, '_')";
  } else if (kind == "kestra") {
    size_t dot = name.rfind('.');
    if (dot == std::string_view::npos || dot == 0 || dot + 1 == name.size() ||
        name.find('/') != std::string_view::npos)
      return "a Kestra flow is named 'namespace.flow_id'";
  }
  return "";
}

}  // namespace

std::string AssetId::ToString() const { return kind + "://" + instance + "/" + name; }

const std::vector<std::string>& KnownAssetKinds() {
  static const std::vector<std::string> kinds = {
      "kafka",    // a Kafka topic: kafka://<cluster>/<topic>
      "pubsub",   // a Pub/Sub topic: pubsub://<project>/<topic>
      "flink",    // a Flink job: flink://<platform>/<job name>
      "table",    // a warehouse table: table://<warehouse>/<schema>.<table>
      "dbt",      // a dbt model: dbt://<project>/<model>
      "kestra",   // a Kestra flow: kestra://<platform>/<namespace>.<flow>
      "kv",       // a Kestra KV entry: kv://<platform>/<namespace>/<key>
      "connect",  // a Kafka Connect connector: connect://<platform>/<connector>
      "subject",  // a Schema Registry subject: subject://<platform>/<subject>
      "sync",     // a reverse-ETL sync: sync://<tool>/<sync>
      "dashboard",  // a BI dashboard: dashboard://<tool>/<dashboard>
      "api",      // an HTTP endpoint another team serves: api://<service>/<path>
      "job",      // an OpenLineage job of another integration: job://<namespace>/<name>
  };
  return kinds;
}

bool IsKnownAssetKind(std::string_view kind) {
  const auto& kinds = KnownAssetKinds();
  return std::find(kinds.begin(), kinds.end(), kind) != kinds.end();
}

namespace {

// Checks `text` as an asset id and sets the views of its parts; the message names the problem.
// Allocates only for a message: ids are checked on every intake, most of them valid.
Status CheckAssetId(std::string_view text, std::string_view* kind_out, std::string_view* instance_out,
                    std::string_view* name_out) {
  auto quoted = [text] { return "'" + std::string(text) + "'"; };
  size_t sep = text.find("://");
  if (sep == std::string_view::npos)
    return InvalidArgument(quoted() + " is not an asset id: expected <kind>://<instance>/<name>, "
                           "e.g. table://main/loyalty.member_balances");
  std::string_view kind = text.substr(0, sep);
  if (!IsKnownAssetKind(kind)) {
    std::string lower(kind);
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (IsKnownAssetKind(lower))
      return InvalidArgument(quoted() + ": the kind is written in lower case ('" + lower + "')");
    return InvalidArgument(quoted() + ": unknown kind '" + std::string(kind) + "' (known: " + JoinKinds() + ")");
  }
  std::string_view rest = text.substr(sep + 3);
  size_t slash = rest.find('/');
  if (slash == std::string_view::npos || slash == 0)
    return InvalidArgument(quoted() + ": expected <kind>://<instance>/<name>; the instance or the "
                           "name is missing");
  std::string_view instance = rest.substr(0, slash);
  if (!std::all_of(instance.begin(), instance.end(), IsInstanceChar))
    return InvalidArgument(quoted() + ": the instance '" + std::string(instance) +
                           "' may hold only letters, digits, '_', '-' and '.'");
  std::string_view name = rest.substr(slash + 1);
  if (name.empty()) return InvalidArgument(quoted() + ": the name after the instance is empty");
  if (!std::all_of(name.begin(), name.end(), IsNameChar))
    return InvalidArgument(quoted() + ": the name holds whitespace or a character that is not "
                           "allowed in an id");
  if (name.back() == '/' || name.find("//") != std::string_view::npos)
    return InvalidArgument(quoted() + ": the name has an empty path segment");
  std::string kind_problem = CheckNameForKind(kind, name);
  if (!kind_problem.empty()) return InvalidArgument(quoted() + ": " + kind_problem);
  *kind_out = kind;
  *instance_out = instance;
  *name_out = name;
  return Status::Ok();
}

}  // namespace

Result<AssetId> ParseAssetId(std::string_view text) {
  std::string_view kind, instance, name;
  DW_RETURN_IF_ERROR(CheckAssetId(text, &kind, &instance, &name));
  return AssetId{std::string(kind), std::string(instance), std::string(name)};
}

bool IsCanonicalAssetId(std::string_view text) {
  std::string_view kind, instance, name;
  return CheckAssetId(text, &kind, &instance, &name).ok();
}

bool IsValidConfigName(std::string_view name) {
  if (name.empty() || !IsAsciiAlpha(name[0])) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return IsAsciiAlpha(c) || IsAsciiDigit(c) || c == '_' || c == '-';
  });
}

std::string TableRef::AssetIdString() const { return "table://" + warehouse + "/" + QualifiedName(); }

std::string TableRef::QualifiedName() const { return schema.empty() ? table : schema + "." + table; }

Result<TableRef> ParseTableRef(std::string_view text) {
  // Made only for a message: ids are checked on every intake, most of them valid.
  auto quoted = [text] { return "'" + std::string(text) + "'"; };
  TableRef ref;
  if (text.starts_with("table://")) {
    auto id = ParseAssetId(text);
    if (!id.ok()) return id.status();
    ref.warehouse = id->instance;
    auto parts = SplitDots(id->name);
    if (parts.size() == 2) ref.schema = std::string(parts[0]);
    ref.table = std::string(parts.back());
    return ref;
  }
  auto parts = SplitDots(text);
  if (parts.size() < 2 || parts.size() > 3)
    return InvalidArgument(quoted() + " is not a table reference: expected warehouse.schema.table, "
                           "warehouse.table or table://warehouse/schema.table");
  if (!IsValidConfigName(parts[0]))
    return InvalidArgument(quoted() + ": '" + std::string(parts[0]) + "' is not a warehouse name");
  for (size_t i = 1; i < parts.size(); ++i)
    if (!IsTablePart(parts[i]))
      return InvalidArgument(quoted() + ": '" + std::string(parts[i]) +
                             "' is not a schema or table name (letters, digits, '_')");
  ref.warehouse = std::string(parts[0]);
  if (parts.size() == 3) ref.schema = std::string(parts[1]);
  ref.table = std::string(parts.back());
  return ref;
}

std::vector<std::string> RelationParts(std::string_view relation) {
  std::vector<std::string> parts(1);
  char quote = 0;
  for (char c : relation) {
    if (quote != 0) {
      if (c == quote) quote = 0;
      else parts.back() += c;
    } else if (c == '"' || c == '`') {
      quote = c;
    } else if (c == '.') {
      parts.emplace_back();
    } else {
      parts.back() += c;
    }
  }
  return parts;
}

std::string AsciiLower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace dw
