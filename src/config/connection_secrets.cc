#include "config/connection_secrets.h"

#include <algorithm>
#include <cctype>

#include "base/url_redaction.h"

namespace dw::config {

std::vector<std::string> EmbeddedPasswords(std::string_view text) {
  std::vector<std::string> found;
  // URL form: the userinfo ends at the last '@' before the query (libpq, and people who do not
  // percent-encode, let a password hold '@' and '/'), when a ':' comes before any '/'.
  if (size_t scheme = text.find("://"); scheme != std::string_view::npos) {
    std::string_view rest = text.substr(scheme + 3);
    std::string_view before_query = rest.substr(0, rest.find('?'));
    size_t at = before_query.rfind('@');
    size_t colon = rest.find(':');
    if (at != std::string_view::npos && colon != std::string_view::npos && colon < at &&
        colon < rest.find('/') && colon + 1 < at)
      found.emplace_back(rest.substr(colon + 1, at - colon - 1));
  }
  // libpq keyword form: password=value or password='quoted value'.
  for (size_t pos = text.find("password="); pos != std::string_view::npos;
       pos = text.find("password=", pos + 1)) {
    if (pos > 0 && text[pos - 1] != ' ' && text[pos - 1] != '\t' && text[pos - 1] != '?' &&
        text[pos - 1] != '&')
      continue;
    std::string_view value = text.substr(pos + 9);
    size_t end;
    if (!value.empty() && value.front() == '\'') {
      value.remove_prefix(1);
      end = value.find('\'');
    } else {
      end = value.find_first_of(" \t&");
      // Unquoted words after it that are no keyword=value: the rest of a password with blanks.
      while (end != std::string_view::npos && value[end] != '&') {
        size_t word = value.find_first_not_of(" \t", end);
        if (word == std::string_view::npos) break;
        size_t word_end = value.find_first_of(" \t&", word);
        std::string_view w = value.substr(word, word_end == std::string_view::npos ? std::string_view::npos : word_end - word);
        if (w.find('=') != std::string_view::npos) break;
        end = word_end;
      }
    }
    value = value.substr(0, end);
    if (!value.empty()) found.emplace_back(value);
  }
  return found;
}

namespace {

void AddOnce(std::vector<std::string>& out, std::string_view s, size_t min_size) {
  if (s.size() < min_size) return;
  if (std::find(out.begin(), out.end(), s) == out.end()) out.emplace_back(s);
}

// The pieces of `s` between the characters a parser splits a misread password at.
void AddPieces(std::vector<std::string>& out, std::string_view s) {
  constexpr std::string_view kSplitters = "@:/?#&= \t%'\"";
  size_t start = 0;
  while (start <= s.size()) {
    size_t end = s.find_first_of(kSplitters, start);
    AddOnce(out, s.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start), 2);
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
}

}  // namespace

std::vector<std::string> SecretFragments(std::string_view text) {
  std::vector<std::string> out;
  for (const std::string& password : EmbeddedPasswords(text)) {
    AddOnce(out, password, 1);
    const std::string decoded = PercentDecoded(password);
    AddOnce(out, decoded, 1);
    AddPieces(out, password);
    AddPieces(out, decoded);
  }
  return out;
}

std::vector<std::string> SecretUrlParts(std::string_view text) {
  std::vector<std::string> out;
  if (size_t scheme = text.find("://"); scheme != std::string_view::npos) {
    std::string_view rest = text.substr(scheme + 3);
    size_t path = rest.find('/');
    if (path != std::string_view::npos && path + 1 < rest.size()) {
      std::string_view tail = rest.substr(path);
      AddOnce(out, tail, 8);
      std::string_view p = tail.substr(0, tail.find_first_of("?#"));
      for (size_t start = 1; start < p.size();) {
        size_t end = p.find('/', start);
        std::string_view segment = p.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
        // A token (letters and digits, 16 or more), not a word of the path that prose also uses.
        const bool digit = std::any_of(segment.begin(), segment.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
        const bool letter = std::any_of(segment.begin(), segment.end(), [](char c) { return std::isalpha(static_cast<unsigned char>(c)); });
        if (digit && letter) AddOnce(out, segment, 16);
        if (end == std::string_view::npos) break;
        start = end + 1;
      }
    }
  }
  return out;
}

}  // namespace dw::config
