#include "sim/smtp_receiver.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <stdexcept>

namespace dw::sim {
namespace {

std::string Base64Decode(const std::string& in) {
  static const std::string chars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  int val = 0, bits = -8;
  for (unsigned char c : in) {
    auto pos = chars.find(static_cast<char>(c));
    if (pos == std::string::npos) break;  // '=' or the end
    val = (val << 6) + static_cast<int>(pos);
    bits += 6;
    if (bits >= 0) {
      out.push_back(static_cast<char>((val >> bits) & 0xFF));
      bits -= 8;
    }
  }
  return out;
}

std::string Upper(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return s;
}

// Reads CRLF-terminated lines from a socket.
class LineReader {
 public:
  explicit LineReader(int fd) : fd_(fd) {}
  bool Next(std::string* line) {
    for (;;) {
      auto nl = buf_.find("\r\n");
      if (nl != std::string::npos) {
        *line = buf_.substr(0, nl);
        buf_.erase(0, nl + 2);
        return true;
      }
      if (buf_.size() > 1 << 24) return false;  // no line is that long
      char chunk[4096];
      ssize_t n = ::recv(fd_, chunk, sizeof chunk, 0);
      if (n <= 0) return false;
      buf_.append(chunk, static_cast<size_t>(n));
    }
  }

 private:
  int fd_;
  std::string buf_;
};

void Say(int fd, const std::string& s) {
  std::string line = s + "\r\n";
  size_t off = 0;
  while (off < line.size()) {
    ssize_t n = ::send(fd, line.data() + off, line.size() - off, MSG_NOSIGNAL);
    if (n <= 0) return;
    off += static_cast<size_t>(n);
  }
}

std::string Address(const std::string& arg) {
  auto lt = arg.find('<'), gt = arg.find('>');
  if (lt == std::string::npos || gt == std::string::npos || gt < lt) return "";
  return arg.substr(lt + 1, gt - lt - 1);
}

}  // namespace

Result<std::unique_ptr<SmtpReceiver>> SmtpReceiver::Start(const Json& script, int port) {
  std::unique_ptr<SmtpReceiver> r(new SmtpReceiver());
  if (!script.is_object()) return InvalidArgument("the script must be a JSON object");
  r->username_ = script.value("username", "");
  r->password_ = script.value("password", "");
  if (script.contains("fail")) {
    if (!script["fail"].is_array()) return InvalidArgument("fail: expected an array");
    for (const auto& f : script["fail"]) {
      if (!f.is_object()) return InvalidArgument("fail: each entry must be an object");
      Failure x{f.value("at", "data"), f.value("code", 451), f.value("times", -1)};
      if (x.at != "mail" && x.at != "rcpt" && x.at != "data")
        return InvalidArgument("fail.at must be mail, rcpt or data, not '" + x.at + "'");
      r->failures_.push_back(x);
    }
  }
  r->listen_fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
  int one = 1;
  ::setsockopt(r->listen_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::bind(r->listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      ::listen(r->listen_fd_, 16) != 0) {
    ::close(r->listen_fd_);
    r->listen_fd_ = -1;
    return Unavailable("cannot bind 127.0.0.1:" + std::to_string(port));
  }
  socklen_t len = sizeof addr;
  ::getsockname(r->listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len);
  r->port_ = ntohs(addr.sin_port);
  SmtpReceiver* raw = r.get();
  r->acceptor_ = std::thread([raw] { raw->AcceptLoop(); });
  return r;
}

SmtpReceiver::~SmtpReceiver() {
  stopping_ = true;
  if (listen_fd_ >= 0) ::shutdown(listen_fd_, SHUT_RDWR);
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (int fd : client_fds_) ::shutdown(fd, SHUT_RDWR);
  }
  if (acceptor_.joinable()) acceptor_.join();
  for (auto& t : clients_) t.join();
  if (listen_fd_ >= 0) ::close(listen_fd_);
}

void SmtpReceiver::Wait() {
  if (acceptor_.joinable()) acceptor_.join();
}

std::vector<Json> SmtpReceiver::received() const {
  std::lock_guard<std::mutex> lock(mu_);
  return received_;
}

int SmtpReceiver::TakeFailure(const std::string& stage) {
  std::lock_guard<std::mutex> lock(mu_);
  for (auto& f : failures_) {
    if (f.at != stage || f.times == 0) continue;
    if (f.times > 0) --f.times;
    return f.code;
  }
  return 0;
}

void SmtpReceiver::AcceptLoop() {
  while (!stopping_) {
    int fd = ::accept(listen_fd_, nullptr, nullptr);
    if (fd < 0) return;
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_) {
      ::close(fd);
      return;
    }
    client_fds_.push_back(fd);
    clients_.emplace_back([this, fd] {
      Serve(fd);
      ::close(fd);
    });
  }
}

void SmtpReceiver::Serve(int fd) {
  LineReader in(fd);
  Say(fd, "220 dw-sim ESMTP ready");
  const bool auth_required = !username_.empty();
  std::string user, from, line;
  bool authed = false, have_from = false;
  std::vector<std::string> to;
  auto check_plain = [&](const std::string& b64) {
    std::string decoded = Base64Decode(b64);  // authzid \0 authcid \0 password
    auto a = decoded.find('\0');
    auto b = a == std::string::npos ? a : decoded.find('\0', a + 1);
    if (b == std::string::npos) return false;
    user = decoded.substr(a + 1, b - a - 1);
    return user == username_ && decoded.substr(b + 1) == password_;
  };
  while (in.Next(&line)) {
    std::string verb = Upper(line.substr(0, line.find(' ')));
    std::string arg = line.find(' ') == std::string::npos ? "" : line.substr(line.find(' ') + 1);
    if (verb == "EHLO") {
      Say(fd, "250-dw-sim greets " + arg);
      Say(fd, "250-AUTH PLAIN LOGIN");
      Say(fd, "250-8BITMIME");
      Say(fd, "250 SIZE 10485760");
    } else if (verb == "HELO") {
      Say(fd, "250 dw-sim");
    } else if (verb == "STARTTLS") {
      Say(fd, "454 4.7.0 TLS not available");
    } else if (verb == "AUTH") {
      std::string mech = Upper(arg.substr(0, arg.find(' ')));
      std::string initial = arg.find(' ') == std::string::npos ? "" : arg.substr(arg.find(' ') + 1);
      bool ok = false;
      if (mech == "PLAIN") {
        if (initial.empty()) {
          Say(fd, "334 ");
          if (!in.Next(&initial)) return;
        }
        ok = check_plain(initial);
      } else if (mech == "LOGIN") {
        std::string u = initial, p;
        if (u.empty()) {
          Say(fd, "334 VXNlcm5hbWU6");
          if (!in.Next(&u)) return;
        }
        Say(fd, "334 UGFzc3dvcmQ6");
        if (!in.Next(&p)) return;
        user = Base64Decode(u);
        ok = user == username_ && Base64Decode(p) == password_;
      } else {
        Say(fd, "504 5.5.4 Unrecognized authentication type");
        continue;
      }
      if (!auth_required) ok = true;  // no login configured: any login is welcome
      authed = ok;
      Say(fd, ok ? "235 2.7.0 Authentication successful" : "535 5.7.8 Authentication credentials invalid");
    } else if (verb == "MAIL") {
      if (auth_required && !authed) {
        Say(fd, "530 5.7.0 Authentication required");
      } else if (int code = TakeFailure("mail")) {
        Say(fd, std::to_string(code) + " sender refused (scripted)");
      } else {
        from = Address(arg);
        have_from = true;
        to.clear();
        Say(fd, "250 2.1.0 OK");
      }
    } else if (verb == "RCPT") {
      if (!have_from) {
        Say(fd, "503 5.5.1 MAIL first");
      } else if (int code = TakeFailure("rcpt")) {
        Say(fd, std::to_string(code) + " recipient refused (scripted)");
      } else {
        to.push_back(Address(arg));
        Say(fd, "250 2.1.5 OK");
      }
    } else if (verb == "DATA") {
      if (to.empty()) {
        Say(fd, "503 5.5.1 RCPT first");
        continue;
      }
      Say(fd, "354 End data with <CR><LF>.<CR><LF>");
      std::string data, l;
      bool ended = false;
      while (in.Next(&l)) {
        if (l == ".") {
          ended = true;
          break;
        }
        if (!l.empty() && l[0] == '.') l.erase(0, 1);  // dot-unstuffing
        data += l + "\r\n";
      }
      if (!ended) return;
      if (int code = TakeFailure("data")) {
        Say(fd, std::to_string(code) + " message refused (scripted)");
      } else {
        Json message = {{"from", from}, {"to", to}, {"data", data}, {"user", user}};
        {
          std::lock_guard<std::mutex> lock(mu_);
          received_.push_back(message);
        }
        if (on_message_) on_message_(message);
        Say(fd, "250 2.0.0 OK queued as " + std::to_string(received().size()));
      }
      have_from = false;
      to.clear();
    } else if (verb == "RSET") {
      have_from = false;
      to.clear();
      Say(fd, "250 2.0.0 OK");
    } else if (verb == "NOOP") {
      Say(fd, "250 2.0.0 OK");
    } else if (verb == "QUIT") {
      Say(fd, "221 2.0.0 Bye");
      return;
    } else {
      Say(fd, "500 5.5.2 Command not recognized");
    }
  }
}

}  // namespace dw::sim
