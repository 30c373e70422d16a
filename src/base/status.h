// Errors as values: Status says whether an operation worked and, if not, why; Result<T> carries a
// value or the Status that explains its absence. Exceptions never cross a module boundary.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace dw {

// What kind of failure a Status reports; callers branch on the code, people read the message.
enum class StatusCode {
  kOk = 0,
  kInvalidArgument,   // the caller's input is wrong (names what and where)
  kNotFound,          // a named thing does not exist
  kAlreadyExists,
  kFailedPrecondition,  // the system is not in a state that allows this (e.g. newer store schema)
  kPermissionDenied,
  kUnavailable,       // a dependency (warehouse, platform) could not be reached
  kDeadlineExceeded,  // timed out
  kCancelled,
  kResourceExhausted,  // a size or budget limit was hit
  kDataLoss,           // stored data is corrupt or was edited
  kInternal,           // a bug or an unexpected failure of ours
};

// Returns the stable lower-case name of `code` ("invalid_argument", ...).
const char* StatusCodeName(StatusCode code);

class Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status Ok() { return Status(); }

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }
  // "<code name>: <message>", or "ok".
  std::string ToString() const;

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

inline Status InvalidArgument(std::string m) { return {StatusCode::kInvalidArgument, std::move(m)}; }
inline Status NotFound(std::string m) { return {StatusCode::kNotFound, std::move(m)}; }
inline Status FailedPrecondition(std::string m) { return {StatusCode::kFailedPrecondition, std::move(m)}; }
inline Status Unavailable(std::string m) { return {StatusCode::kUnavailable, std::move(m)}; }
inline Status Internal(std::string m) { return {StatusCode::kInternal, std::move(m)}; }
inline Status DeadlineExceeded(std::string m) { return {StatusCode::kDeadlineExceeded, std::move(m)}; }
inline Status ResourceExhausted(std::string m) { return {StatusCode::kResourceExhausted, std::move(m)}; }
inline Status PermissionDenied(std::string m) { return {StatusCode::kPermissionDenied, std::move(m)}; }
inline Status Cancelled(std::string m) { return {StatusCode::kCancelled, std::move(m)}; }
inline Status DataLoss(std::string m) { return {StatusCode::kDataLoss, std::move(m)}; }

// A value of T, or the non-ok Status that explains why there is none.
// REQUIRES: a Result is never built from an ok Status.
template <typename T>
class Result {
 public:
  Result(T value) : v_(std::move(value)) {}                 // NOLINT: implicit by design
  Result(Status status) : v_(std::move(status)) {}          // NOLINT: implicit by design

  bool ok() const { return std::holds_alternative<T>(v_); }
  // REQUIRES: ok().
  T& value() & { return std::get<T>(v_); }
  const T& value() const& { return std::get<T>(v_); }
  T&& value() && { return std::get<T>(std::move(v_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  // The failure, or an ok Status when there is a value.
  Status status() const { return ok() ? Status() : std::get<Status>(v_); }

 private:
  std::variant<T, Status> v_;
};

}  // namespace dw

// Returns early from the enclosing function when `expr` (a Status) is not ok.
#define DW_RETURN_IF_ERROR(expr)          \
  do {                                    \
    ::dw::Status dw_status_ = (expr);     \
    if (!dw_status_.ok()) return dw_status_; \
  } while (0)
