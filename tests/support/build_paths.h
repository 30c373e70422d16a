// Where this build put the binaries the tests and benchmarks run, and where the sources are.
// The values live in one small file the build generates (CMakeLists.txt, dw_built_paths), not in
// each source's compile command: a clone in another folder then compiles every test with the same
// command, and the compiler cache (scripts/compiler-cache.sh) hands back what it compiled before.
#pragma once

namespace dw::testing::built {
extern const char kSourceDir[];  // the source tree: CMAKE_SOURCE_DIR
extern const char kDwBinary[];   // this build's `dw`
extern const char kSimBinary[];  // this build's `dw-sim`
}  // namespace dw::testing::built

#define DW_SOURCE_DIR (::dw::testing::built::kSourceDir)
#define DW_BINARY (::dw::testing::built::kDwBinary)
#define DW_SIM_BINARY (::dw::testing::built::kSimBinary)
