#include "store/bytes_cell.h"

namespace dw::store {
namespace {

bool IsPostgres(std::string_view backend) { return backend == "postgresql"; }

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

std::string BytesParamSql(std::string_view backend, int n) {
  const std::string p = "$" + std::to_string(n);
  // encode/decode 'hex' rather than bytea's own text form, which depends on bytea_output.
  return IsPostgres(backend) ? "decode(" + p + ", 'hex')" : "CAST(" + p + " AS BLOB)";
}

std::string BytesParamValue(std::string_view backend, std::string_view bytes) {
  if (!IsPostgres(backend)) return std::string(bytes);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (unsigned char c : bytes) {
    out.push_back(kHex[c >> 4]);
    out.push_back(kHex[c & 15]);
  }
  return out;
}

std::string BytesColumnSql(std::string_view backend, std::string_view column) {
  return IsPostgres(backend) ? "encode(" + std::string(column) + ", 'hex')" : std::string(column);
}

Result<std::string> BytesFromCell(std::string_view backend, std::string_view cell) {
  if (!IsPostgres(backend)) return std::string(cell);
  if (cell.size() % 2 != 0) return DataLoss("hex bytes of odd length " + std::to_string(cell.size()));
  std::string out;
  out.reserve(cell.size() / 2);
  for (size_t i = 0; i < cell.size(); i += 2) {
    int hi = HexDigit(cell[i]), lo = HexDigit(cell[i + 1]);
    if (hi < 0 || lo < 0) return DataLoss("not hex at offset " + std::to_string(hi < 0 ? i : i + 1));
    out.push_back(static_cast<char>(hi * 16 + lo));
  }
  return out;
}

}  // namespace dw::store
