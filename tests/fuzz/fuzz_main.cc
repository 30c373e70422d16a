// dw_fuzz: every libFuzzer target of tests/fuzz/ in one program. It runs the target named by the
// name it is started under, fuzz_<target> (the links tests/fuzz/CMakeLists.txt makes next to it),
// so `fuzz_jsonrpc CORPUS...` behaves as a program of that target alone would, and libFuzzer's own
// re-runs of argv[0] (merge, fork) stay on the same target.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "fuzz_targets.inc"

namespace {

int (*g_target)(const uint8_t*, size_t) = nullptr;

}  // namespace

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  const std::string self = (argc != nullptr && *argc > 0) ? (*argv)[0] : "";
  const size_t slash = self.rfind('/');
  std::string name = slash == std::string::npos ? self : self.substr(slash + 1);
  if (name.rfind("fuzz_", 0) == 0) name = name.substr(5);
  for (const FuzzTarget& t : kFuzzTargets)
    if (name == t.name) g_target = t.run;
  if (g_target == nullptr) {
    std::string known;
    for (const FuzzTarget& t : kFuzzTargets) known += std::string(known.empty() ? "" : ", ") + "fuzz_" + t.name;
    std::fprintf(stderr, "dw_fuzz: started as '%s', which names no target; run one of its links: %s\n",
                 self.c_str(), known.c_str());
    std::exit(2);
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) { return g_target(data, size); }
