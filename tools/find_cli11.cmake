# Makes CLI11::CLI11 available in the including directory: the package's CMake config if
# installed, else the bare header. Sets ADAPTCORE_HAVE_CLI11.
set(ADAPTCORE_HAVE_CLI11 OFF)
if(NOT TARGET CLI11::CLI11)
  find_package(CLI11 CONFIG QUIET)
endif()
if(NOT TARGET CLI11::CLI11)
  find_path(CLI11_INCLUDE_DIR CLI/CLI.hpp)
  if(CLI11_INCLUDE_DIR)
    add_library(CLI11::CLI11 INTERFACE IMPORTED)
    set_target_properties(CLI11::CLI11 PROPERTIES INTERFACE_INCLUDE_DIRECTORIES
      ${CLI11_INCLUDE_DIR})
  endif()
endif()
if(TARGET CLI11::CLI11)
  set(ADAPTCORE_HAVE_CLI11 ON)
endif()
