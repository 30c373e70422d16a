// ScanJson: reads a JSON text with JsonLexer and drives a SAX handler with nlohmann's callback
// interface (null, boolean, number_integer, number_unsigned, number_float, string, start_object,
// key, end_object, start_array, end_array), in the order nlohmann's sax_parse calls them. A
// handler written for nlohmann therefore runs unchanged on the fast path; whenever ScanJson does
// not answer kOk, the caller re-reads the text with nlohmann, whose answer (and error) rules.
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

#include "base/json.h"
#include "base/json_lexer.h"

namespace dw {

enum class JsonScanResult {
  kOk,       // the text is one JSON value; every callback ran and returned true
  kRefused,  // not JSON as JsonLexer reads it (nlohmann may still accept it: ask it)
  kStopped,  // a callback returned false
};

template <class Sax>
JsonScanResult ScanJson(std::string_view text, Sax* sax) {
  using Token = JsonLexer::Token;
  constexpr std::size_t kUnknownSize = static_cast<std::size_t>(-1);  // as nlohmann passes it
  JsonLexer lexer(text);
  std::vector<bool> in_array;  // one per open container: true for an array, false for an object
  in_array.reserve(16);
  Token token = lexer.Next();
  for (;;) {
    // `token` starts a value.
    bool opened = false;
    switch (token) {
      case Token::kBeginObject:
        if (!sax->start_object(kUnknownSize)) return JsonScanResult::kStopped;
        token = lexer.Next();
        if (token == Token::kEndObject) {
          if (!sax->end_object()) return JsonScanResult::kStopped;
          break;
        }
        if (token != Token::kString) return JsonScanResult::kRefused;
        if (!sax->key(lexer.text())) return JsonScanResult::kStopped;
        if (lexer.Next() != Token::kColon) return JsonScanResult::kRefused;
        in_array.push_back(false);
        token = lexer.Next();
        opened = true;
        break;
      case Token::kBeginArray:
        if (!sax->start_array(kUnknownSize)) return JsonScanResult::kStopped;
        token = lexer.Next();
        if (token == Token::kEndArray) {
          if (!sax->end_array()) return JsonScanResult::kStopped;
          break;
        }
        in_array.push_back(true);
        opened = true;
        break;
      case Token::kString:
        if (!sax->string(lexer.text())) return JsonScanResult::kStopped;
        break;
      case Token::kTrue:
      case Token::kFalse:
        if (!sax->boolean(token == Token::kTrue)) return JsonScanResult::kStopped;
        break;
      case Token::kNull:
        if (!sax->null()) return JsonScanResult::kStopped;
        break;
      case Token::kInteger:
        if (!sax->number_integer(lexer.integer())) return JsonScanResult::kStopped;
        break;
      case Token::kUnsigned:
        if (!sax->number_unsigned(lexer.unsigned_integer())) return JsonScanResult::kStopped;
        break;
      case Token::kFloat:
        if (!sax->number_float(lexer.real(), lexer.text())) return JsonScanResult::kStopped;
        break;
      default:
        return JsonScanResult::kRefused;
    }
    if (opened) continue;  // `token` starts the container's first value
    // A value ended: close what it ends, or move to the next element or member.
    for (;;) {
      if (in_array.empty()) return lexer.Next() == Token::kEnd ? JsonScanResult::kOk : JsonScanResult::kRefused;
      token = lexer.Next();
      if (in_array.back()) {
        if (token == Token::kComma) {
          token = lexer.Next();
          break;
        }
        if (token != Token::kEndArray) return JsonScanResult::kRefused;
        if (!sax->end_array()) return JsonScanResult::kStopped;
      } else {
        if (token == Token::kComma) {
          if (lexer.Next() != Token::kString) return JsonScanResult::kRefused;
          if (!sax->key(lexer.text())) return JsonScanResult::kStopped;
          if (lexer.Next() != Token::kColon) return JsonScanResult::kRefused;
          token = lexer.Next();
          break;
        }
        if (token != Token::kEndObject) return JsonScanResult::kRefused;
        if (!sax->end_object()) return JsonScanResult::kStopped;
      }
      in_array.pop_back();
    }
  }
}

// Json::parse(text, nullptr, false) through JsonLexer: the same document (or a discarded value
// when the text is not JSON), built faster for well-formed text; nlohmann parses what JsonLexer
// refuses. For hot paths that read many small documents (the graph's rows at load).
Json ParseJsonText(std::string_view text);

}  // namespace dw
