// Internal to desk/: the CSRF token of a decision form, bound to what the form decides through.
// A token is "<nonce>.<HMAC-SHA256(process key, nonce, binding)>": the page that shows the form
// binds it to its signed link ("approve:<link token>") or to the proposal and the person the
// trusted proxy names ("decide:<proposal>:<email>"), and the post is accepted only with the same
// binding and the same token in the form and in the browser's dw_csrf cookie. A token handed out
// for one link, proposal or person is worthless for another, and a cookie planted by a sibling
// site (cookie tossing defeats a plain double-submit cookie) cannot carry a valid token without
// the key. The key is random per process: a form shown before a restart of `dw serve` is refused
// and shown again.
#pragma once

#include <string>

namespace dw::desk {

// A new token bound to `binding`; "" when the random number generator fails.
std::string NewCsrfToken(const std::string& binding);

// True iff `sent` (the form's field) is a token this process made for `binding`, and the Cookie
// header's dw_csrf cookie holds the same token (both compared in constant time).
bool CsrfMatches(const std::string& cookie_header, const std::string& sent, const std::string& binding);

}  // namespace dw::desk
