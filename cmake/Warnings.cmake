# Project-wide warning flags, applied per target through adaptcore_warnings().
add_library(adaptcore_warnings INTERFACE)
target_compile_options(adaptcore_warnings INTERFACE
  -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wno-sign-conversion
  -Wnon-virtual-dtor -Wold-style-cast -Wcast-align -Woverloaded-virtual
  $<$<COMPILE_LANGUAGE:CXX>:-Wno-psabi>)
