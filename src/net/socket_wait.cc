#include "net/socket_wait.h"

#include <poll.h>

#include <cerrno>

namespace dw::net {

bool WaitForSocket(int sock, short events, int timeout_ms) {
  pollfd p{sock, events, 0};
  for (;;) {
    int r = ::poll(&p, 1, timeout_ms);
    if (r < 0 && errno == EINTR) continue;
    return r > 0;
  }
}

}  // namespace dw::net
