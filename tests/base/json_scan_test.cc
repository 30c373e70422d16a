// ScanJson against nlohmann's sax_parse: on every input the fast scanner accepts, nlohmann accepts
// too and the handler sees the same callbacks with the same values; well-formed inputs take the
// fast path; a set of malformed inputs and thousands of byte mutations of real events never reach
// kOk where nlohmann refuses.
#include "base/json_scan.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "base/json.h"
#include "tests/support/build_paths.h"

namespace dw {
namespace {

// Records every callback as one line, so two runs can be compared.
struct Recorder {
  std::vector<std::string> calls;
  bool null() { return Add("null"); }
  bool boolean(bool b) { return Add(b ? "true" : "false"); }
  bool number_integer(Json::number_integer_t v) { return Add("int " + std::to_string(v)); }
  bool number_unsigned(Json::number_unsigned_t v) { return Add("uint " + std::to_string(v)); }
  bool number_float(Json::number_float_t v, const std::string& raw) {
    std::ostringstream s;
    s.precision(17);
    s << "float " << v << " " << raw;
    return Add(s.str());
  }
  bool string(std::string& s) { return Add("string " + s); }
  bool binary(Json::binary_t&) { return Add("binary"); }
  bool start_object(std::size_t n) { return Add("{" + std::to_string(n)); }
  bool end_object() { return Add("}"); }
  bool start_array(std::size_t n) { return Add("[" + std::to_string(n)); }
  bool end_array() { return Add("]"); }
  bool key(std::string& k) { return Add("key " + k); }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) { return false; }
  bool Add(std::string s) {
    calls.push_back(std::move(s));
    return true;
  }
};

struct Both {
  JsonScanResult fast;
  bool nlohmann_ok;
  std::vector<std::string> fast_calls, nlohmann_calls;
};

Both ScanBoth(const std::string& text) {
  Both b;
  Recorder fast, slow;
  b.fast = ScanJson(text, &fast);
  try {
    b.nlohmann_ok = Json::sax_parse(text, &slow);
  } catch (const std::exception&) {
    b.nlohmann_ok = false;
  }
  b.fast_calls = std::move(fast.calls);
  b.nlohmann_calls = std::move(slow.calls);
  return b;
}

std::vector<std::string> ReferenceEvents() {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(std::filesystem::path(DW_SOURCE_DIR) / "tests/graph/testdata")) {
    if (e.path().extension() != ".json") continue;
    std::ifstream in(e.path(), std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    out.push_back(ss.str());
  }
  return out;
}

TEST(JsonScan, WellFormedTextTakesTheFastPathWithNlohmannsCallbacks) {
  const std::vector<std::string> texts = {
      "{}", "[]", "  {\"a\" : [1, -2, 3.5, 1e3, -0, 0.5E-2, true, false, null, \"x\"]}  ",
      "\"just a string\"", "12", "-9223372036854775808", "18446744073709551615",
      "18446744073709551616",    // past uint64: a float, as nlohmann reads it
      "-9223372036854775809",    // past int64: a float
      "1e-400",                  // underflows to zero: accepted
      "\"esc \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\u0041 \\u00e9 \\u20ac \\ud83d\\ude00 \\u0000 end\"",
      "\"raw UTF-8: \xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80 \xED\x9F\xBF \xF4\x8F\xBF\xBF\"",
      "\xEF\xBB\xBF{\"bom\": 1}",
      "{\"dup\": 1, \"dup\": [{}, [[]], {\"k\": {}}]}",
      "[[[[[[[[[[1]]]]]]]]]]",
  };
  for (const std::string& t : texts) {
    Both b = ScanBoth(t);
    EXPECT_EQ(b.fast, JsonScanResult::kOk) << t;
    EXPECT_TRUE(b.nlohmann_ok) << t;
    EXPECT_EQ(b.fast_calls, b.nlohmann_calls) << t;
  }
  for (const std::string& t : ReferenceEvents()) {
    Both b = ScanBoth(t);
    EXPECT_EQ(b.fast, JsonScanResult::kOk) << t.substr(0, 80);
    EXPECT_EQ(b.fast_calls, b.nlohmann_calls) << t.substr(0, 80);
  }
}

TEST(JsonScan, MalformedTextIsRefusedWhereNlohmannRefusesIt) {
  const std::vector<std::string> texts = {
      "", " ", "{", "}", "[1,]", "{\"a\":1,}", "{\"a\" 1}", "{a:1}", "{\"a\":1}}", "[1 2]", "01", "1.",
      ".5", "-", "1e", "1e+", "+1", "tru", "nul", "falsey", "1e999", "-1e999", "\"\\x\"", "\"\\u12\"",
      "\"\\ud800\"", "\"\\udc00\"", "\"\\ud800\\u0041\"", "\"tab\there\"", "\"\x01\"", "\"\xC0\xAF\"",
      "\"\xE0\x80\xAF\"", "\"\xED\xA0\x80\"", "\"\xF4\x90\x80\x80\"", "\"\xF5\x80\x80\x80\"", "\"\x80\"",
      "\"\xC3\"", "\"unterminated", "{\"a\":1} x", "// c\n{}", "[1]/*c*/", "\xEF\xBB{}", "NaN", "[Infinity]",
  };
  for (const std::string& t : texts) {
    Both b = ScanBoth(t);
    EXPECT_FALSE(b.nlohmann_ok) << t;
    EXPECT_EQ(b.fast, JsonScanResult::kRefused) << t;
  }
  // A NUL byte: nlohmann reads it as the end of input and ignores what follows; the fast scanner
  // refuses, so callers ask nlohmann.
  Both nul = ScanBoth(std::string("{}\0garbage", 10));
  EXPECT_TRUE(nul.nlohmann_ok);
  EXPECT_EQ(nul.fast, JsonScanResult::kRefused);
}

TEST(JsonScan, MutatedEventsNeverPassWhereNlohmannRefuses) {
  std::mt19937 rng(20261130);
  const std::string alphabet = "{}[]:,\"\\ 0123456789.eE+-tfnulrsa\x01\x7f\x80\xC3\xA9\xED\xF0\xEF";
  size_t fast_ok = 0, refused = 0;
  for (const std::string& event : ReferenceEvents()) {
    for (int round = 0; round < 600; ++round) {
      std::string t = event;
      int edits = 1 + static_cast<int>(rng() % 3);
      for (int e = 0; e < edits; ++e) {
        size_t at = rng() % t.size();
        switch (rng() % 3) {
          case 0: t[at] = alphabet[rng() % alphabet.size()]; break;
          case 1: t.erase(at, 1 + rng() % 3); break;
          default: t.insert(at, 1, alphabet[rng() % alphabet.size()]); break;
        }
        if (t.empty()) t = "{";
      }
      Both b = ScanBoth(t);
      if (b.fast == JsonScanResult::kOk) {
        ++fast_ok;
        ASSERT_TRUE(b.nlohmann_ok) << t;
        ASSERT_EQ(b.fast_calls, b.nlohmann_calls) << t;
      } else {
        ++refused;
        ASSERT_EQ(b.fast, JsonScanResult::kRefused);
      }
    }
  }
  // Both kinds occur, so both branches above were exercised.
  EXPECT_GT(fast_ok, 100u);
  EXPECT_GT(refused, 100u);
}

TEST(JsonScan, ParseJsonTextBuildsNlohmannsDocumentOrItsRefusal) {
  std::vector<std::string> texts = ReferenceEvents();
  for (std::string t : std::vector<std::string>{"{\"sources\": {\"dbt\": {\"last_seen\": 1700000000000}}, \"columns\": [1, 2.5, -3, null]}",
                        "[1,]", "{\"a\":", "", std::string("{}\0x", 4), "\"\\ud83d\\ude00\""})
    texts.push_back(t);
  size_t documents = 0;
  for (const std::string& t : texts) {
    Json fast = ParseJsonText(t);
    Json slow = Json::parse(t, nullptr, /*allow_exceptions=*/false);
    EXPECT_EQ(fast.is_discarded(), slow.is_discarded()) << t;
    if (slow.is_discarded()) continue;
    ++documents;
    EXPECT_EQ(fast, slow) << t;
  }
  EXPECT_GT(documents, 5u);
}

TEST(JsonScan, AHandlerThatStopsStopsTheScan) {
  struct StopAtSecondKey : Recorder {
    int keys = 0;
    bool key(std::string& k) { return ++keys < 2 && Add("key " + k); }
  } sax;
  EXPECT_EQ(ScanJson(std::string("{\"a\":1,\"b\":2,\"c\":3}"), &sax), JsonScanResult::kStopped);
  EXPECT_EQ(sax.calls, (std::vector<std::string>{"{18446744073709551615", "key a", "uint 1"}));
}

}  // namespace
}  // namespace dw
