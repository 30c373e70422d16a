// Internal to desk/: reading sessions off loopback. When `dw serve` requires its bearer token (off
// loopback), a browser that cannot send `Authorization` signs in once at /session with the token
// (or arrives through a trusted proxy that names the person) and gets a session cookie; pages are
// then read with the cookie. A session lets its holder read, never decide: deciding needs a signed
// link or the trusted proxy's identity on the request itself (actions/).
#pragma once

#include <array>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "actions/actions.h"
#include "base/clock.h"
#include "desk/desk.h"

namespace dw::desk {

inline constexpr char kSessionCookie[] = "dw_session";

class ReaderSessions {
 public:
  // Sessions last `ttl` from their start on `clock`; at most `cap` are kept (the oldest go first).
  ReaderSessions(const Clock& clock, std::chrono::milliseconds ttl, size_t cap);

  // A new session for `reader` ("bearer token", or the proxy's person): its id, 48 hex
  // characters from the OpenSSL RNG, kept only as its SHA-256; "" when the RNG fails.
  std::string Start(const std::string& reader);
  // True iff `id` is a live session (constant-time on the digest).
  bool Valid(const std::string& id);

  // Guessing the token: a peer that sent kMaxFailedSignIns wrong tokens within kFailedSignInWindow
  // is refused until the oldest of them leaves the window. How long `peer` must wait before it may
  // try again (zero: it may try now).
  std::chrono::milliseconds SignInWait(const std::string& peer);
  // Records a wrong token from `peer`; returns how many it sent within the window.
  int RecordFailedSignIn(const std::string& peer);
  static constexpr int kMaxFailedSignIns = 5;
  static constexpr std::chrono::minutes kFailedSignInWindow{5};

 private:
  using Digest = std::array<unsigned char, 32>;
  const Clock& clock_;
  std::chrono::milliseconds ttl_;
  size_t cap_;
  std::mutex mu_;
  std::map<Digest, std::pair<TimePoint, std::string>> live_;  // digest -> (expires, reader)
  std::map<std::string, std::vector<TimePoint>> failed_;      // peer -> its wrong tokens in the window
};

}  // namespace dw::desk

namespace dw::desk {

// GET /session: the sign-in form (the server's bearer token, pasted once).
Page SessionPage(const DeskOptions& options);
// POST /session: `token` the bearer token (compared in constant time), or a person the trusted
// proxy names (`via`): a session cookie (dw_session; HttpOnly; SameSite=Strict; Path=/; Secure off
// loopback) and a link to the incidents. 403 for a wrong token, naming nothing of it; 429 saying
// how long to wait once the peer sent ReaderSessions::kMaxFailedSignIns wrong ones within the
// window (the right token included, until then). Every refusal and sign-in is logged with the
// peer, never the token.
Page StartSessionPage(workspace::Services& services, ReaderSessions& sessions, const std::string& content_type,
                      const std::string& form, const actions::ProxiedIdentity& via, const DeskOptions& options);

}  // namespace dw::desk
