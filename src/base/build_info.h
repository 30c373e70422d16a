// What this binary was built from, for `dw --version` and bug reports: the commit and the build
// type. Defined in a source generated at build time (cmake/build_info.cmake).
#pragma once

namespace dw {

// The commit's 12-digit short hash; "-modified" appended when tracked files differed from it;
// "unknown" outside a git checkout.
const char* BuildCommit();
// CMAKE_BUILD_TYPE (Release, Debug, ...), with the instrumented build's sanitizers where it has them.
const char* BuildType();

}  // namespace dw
