// The tools, resources, resource template and prompts the official MCP conformance suite
// (@modelcontextprotocol/conformance) calls, with the exact names and texts its checks expect.
// Served by `dw mcp --conformance-fixtures`; never mixed into a product agent.
#pragma once

#include "mcp/catalog.h"

namespace dw::mcp {

// Adds every test_* tool, the test:// resources and template, and the test_* prompts to
// `catalog`. REQUIRES: none of those names is in `catalog` yet.
void AddConformanceFixtures(Catalog& catalog);

// The 1x1 PNG (base64) the image fixtures return; exposed for tests.
extern const char* const kFixturePngBase64;
// The minimal WAV (base64) test_audio_content returns; exposed for tests.
extern const char* const kFixtureWavBase64;

}  // namespace dw::mcp
