// The status of the exception being handled, for the catch blocks that keep exceptions from
// crossing the API (every entry point returns a status, never throws).
#pragma once

#include <new>
#include <string>

#include "adaptcore/types.hpp"

namespace adaptcore {

// Call only inside a catch block: OutOfMemory for std::bad_alloc, InternalError for anything
// else, with the reason in *why when given.
inline Status exception_status(std::string* why) noexcept {
  Status s = Status::InternalError;
  const char* text = "internal error";
  try {
    throw;
  } catch (const std::bad_alloc&) {
    s = Status::OutOfMemory;
    text = "out of memory";
  } catch (...) {
  }
  if (why != nullptr) {
    try {
      *why = text;  // short enough for the string's inline buffer
    } catch (...) {
    }
  }
  return s;
}

}  // namespace adaptcore
