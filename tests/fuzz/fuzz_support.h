// What the fuzz targets share: a scratch folder of their own for the parsers that read files, and a
// way to write one input there. Each target is one process; libFuzzer calls the target from one
// thread, so the folder needs no locking.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

namespace dw::fuzz {

// A folder made once per process under $TMPDIR (or /tmp) and removed at exit.
inline const std::filesystem::path& ScratchDir() {
  static const std::filesystem::path dir = [] {
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/dw-fuzz-XXXXXX";
    if (mkdtemp(pattern.data()) == nullptr) {
      std::perror("dw fuzz: mkdtemp");
      std::abort();
    }
    static struct Remover {
      std::string path;
      ~Remover() { std::error_code ec; std::filesystem::remove_all(path, ec); }
    } remover{pattern};
    return std::filesystem::path(pattern);
  }();
  return dir;
}

// Writes `data` to ScratchDir()/`name` (replacing it) and returns the path.
inline std::filesystem::path WriteScratch(const std::string& name, std::string_view data) {
  std::filesystem::path p = ScratchDir() / name;
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out.write(data.data(), static_cast<std::streamsize>(data.size()));
  if (!out) {
    std::perror("dw fuzz: write");
    std::abort();
  }
  return p;
}

inline std::string_view AsText(const uint8_t* data, size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// Stops the run with a message libFuzzer reports as a crash: a property of the parser broke.
[[noreturn]] inline void Broken(const char* what) {
  std::fprintf(stderr, "dw fuzz: property broken: %s\n", what);
  std::abort();
}

}  // namespace dw::fuzz
