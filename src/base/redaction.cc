#include "base/redaction.h"

#include <openssl/evp.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <mutex>
#include <shared_mutex>
#include <string_view>
#include <vector>

namespace dw {
namespace {

constexpr std::string_view kMask = "***";
// Secrets shorter than this are replaced only where they stand as a whole token.
constexpr size_t kAnywhereLength = 4;

std::shared_mutex g_mu;
std::atomic<bool> g_any{false};

// Every registered form (raw and JSON-escaped), longest first so that a secret that contains
// another is replaced whole.
std::vector<std::string>& Registered() {
  // Never destroyed: the redacting output streams flush from an exit handler, after function-local
  // statics constructed later would already be gone.
  static auto* forms = new std::vector<std::string>();
  return *forms;
}

bool IsWordChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }
bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

// Case-insensitive find of the lower-case `needle` in `text` from `from`.
size_t FindNoCase(std::string_view text, std::string_view needle, size_t from) {
  for (size_t i = from; i + needle.size() <= text.size(); ++i) {
    size_t k = 0;
    while (k < needle.size() &&
           std::tolower(static_cast<unsigned char>(text[i + k])) == needle[k])
      ++k;
    if (k == needle.size()) return i;
  }
  return std::string_view::npos;
}

// `scheme://user:PASSWORD@host...`: the userinfo ends at the last '@' before the query, because
// libpq (and people who do not percent-encode) let a password hold '@' and '/'.
void RedactUrlPasswords(std::string& text) {
  for (size_t p = text.find("://"); p != std::string::npos; p = text.find("://", p + 3)) {
    const size_t start = p + 3;
    size_t end = text.find_first_of(" \t\r\n\"'<>`", start);
    if (end == std::string::npos) end = text.size();
    size_t query = text.find('?', start);
    if (query == std::string::npos || query > end) query = end;
    if (query == start) continue;
    size_t at = text.rfind('@', query - 1);
    if (at == std::string::npos || at < start) continue;
    size_t colon = text.find(':', start);
    if (colon == std::string::npos || colon >= at || colon + 1 == at) continue;
    if (text.find('/', start) < colon) continue;  // a ':' in a path, not a user's password
    text.replace(colon + 1, at - colon - 1, kMask);
  }
}

// `password=VALUE` (libpq keyword/value, a URL query, an environment line), with optional blanks
// around '='; VALUE is 'quoted' (backslash escapes a quote) or runs to a blank, '&' or '"'.
void RedactPasswordKeywords(std::string& text) {
  for (size_t p = FindNoCase(text, "password", 0); p != std::string::npos;
       p = FindNoCase(text, "password", p + 1)) {
    size_t i = p + 8;
    while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) ++i;
    if (i >= text.size() || text[i] != '=') continue;
    ++i;
    while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) ++i;
    size_t begin = i;
    size_t end = i;
    if (i < text.size() && text[i] == '\'') {
      begin = end = i + 1;
      while (end < text.size() && text[end] != '\'') end += text[end] == '\\' ? 2 : 1;
      end = std::min(end, text.size());
    } else {
      while (end < text.size() && !IsSpace(text[end]) && text[end] != '&' && text[end] != '"')
        end += text[end] == '\\' ? 2 : 1;
      end = std::min(end, text.size());
    }
    if (end == begin) continue;
    text.replace(begin, end - begin, kMask);
    p = begin;
  }
}

void RedactRegistered(std::string& text, const std::vector<std::string>& forms) {
  for (const std::string& s : forms) {
    for (size_t pos = text.find(s); pos != std::string::npos; pos = text.find(s, pos)) {
      const size_t after = pos + s.size();
      if (s.size() < kAnywhereLength &&
          ((pos > 0 && IsWordChar(text[pos - 1])) || (after < text.size() && IsWordChar(text[after])))) {
        pos += 1;
        continue;
      }
      text.replace(pos, s.size(), kMask);
      pos += kMask.size();
    }
  }
}

// Both nets; the caller holds the registry's lock when `forms` is the registry.
void RedactText(std::string& text, const std::vector<std::string>* forms) {
  if (text.find("://") != std::string::npos) RedactUrlPasswords(text);
  if (text.find('=') != std::string::npos) RedactPasswordKeywords(text);
  if (forms != nullptr) RedactRegistered(text, *forms);
}

void RedactTree(Json& value, const std::vector<std::string>* forms) {
  if (value.is_string()) {
    RedactText(value.get_ref<std::string&>(), forms);
  } else if (value.is_array() || value.is_object()) {
    for (Json& child : value) RedactTree(child, forms);
  }
}

}  // namespace

void RegisterSecret(std::string value) {
  if (value.empty()) return;
  std::string escaped = Json(value).dump(-1, ' ', false, Json::error_handler_t::replace);
  escaped = escaped.substr(1, escaped.size() - 2);
  std::unique_lock<std::shared_mutex> lock(g_mu);
  std::vector<std::string>& forms = Registered();
  for (std::string* form : {&value, &escaped}) {
    if (std::find(forms.begin(), forms.end(), *form) == forms.end()) forms.push_back(*form);
  }
  std::stable_sort(forms.begin(), forms.end(),
                   [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
  g_any = true;
}

void RegisterBasicCredential(const std::string& user, const std::string& password) {
  if (password.empty()) return;
  RegisterSecret(password);
  const std::string plain = user + ":" + password;
  std::string encoded(4 * ((plain.size() + 2) / 3) + 1, '\0');
  const int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(encoded.data()),
                                reinterpret_cast<const unsigned char*>(plain.data()), static_cast<int>(plain.size()));
  encoded.resize(static_cast<size_t>(std::max(n, 0)));
  RegisterSecret(encoded);
}

std::string RedactConnectionPasswords(std::string text) {
  RedactText(text, nullptr);
  return text;
}

std::string RedactSecrets(std::string text) {
  if (!g_any.load(std::memory_order_acquire)) {
    RedactText(text, nullptr);
    return text;
  }
  std::shared_lock<std::shared_mutex> lock(g_mu);
  RedactText(text, &Registered());
  return text;
}

void RedactSecretsIn(Json& value) {
  if (!g_any.load(std::memory_order_acquire)) {
    RedactTree(value, nullptr);
    return;
  }
  std::shared_lock<std::shared_mutex> lock(g_mu);
  RedactTree(value, &Registered());
}

}  // namespace dw
