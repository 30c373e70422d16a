// Finds the secret inside a connection string, so logs can show a DSN or URL with only its
// password hidden (redacting the whole string would hide the host, which people need to debug).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace dw::config {

// Returns the passwords embedded in `text`: the password of a URL's userinfo
// (`scheme://user:PASSWORD@host`) and the value of libpq `password=...` keywords. Empty when none.
std::vector<std::string> EmbeddedPasswords(std::string_view text);

// Everything to hide of a secret-bearing value beside its passwords: each password as a driver
// may misread it and print it in part (a password holding '@', ':', '/' or a blank that was not
// percent-encoded or quoted is split by the parser into a host, a port or a keyword, and the error
// quotes that part: `could not translate host name "Secret@db"`, `invalid integer value "Sl" for
// "port"`): its pieces between those characters (two characters or more) and its percent-decoded
// form; an unquoted keyword password's value runs on over the blank-separated words after it that
// are not keyword=value. Empty when `text` holds no password.
std::vector<std::string> SecretFragments(std::string_view text);

// The parts of a secret URL (a webhook: its path is the credential) that an error may print
// without the rest: the path and query (8 characters or more), and each path segment that is a
// token (16 characters or more, letters and digits; not a word such as "services" that other
// text holds too). Empty for a URL without a path, or text that is no URL.
std::vector<std::string> SecretUrlParts(std::string_view text);

}  // namespace dw::config
