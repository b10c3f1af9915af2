// Errors that reach the user: one line that names where (file, JSON location, parameter) and why.
#pragma once
#include <stdexcept>
#include <string>

namespace tune {

// Every user-facing failure is a tune::Error; main() prints what() on one line and exits non-zero.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The input was wrong (a spec, a size list, a database): exit code 2.
class InputError : public Error {
 public:
  using Error::Error;
};

// The machine cannot do what was asked (no GPU, no driver): exit code 3.
class UnavailableError : public Error {
 public:
  using Error::Error;
};

}  // namespace tune
