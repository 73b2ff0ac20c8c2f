# ADAPTCORE_SANITIZE="address;undefined" or "thread" instruments every target.
if(ADAPTCORE_SANITIZE)
  string(REPLACE ";" "," _san "${ADAPTCORE_SANITIZE}")
  add_compile_options(-fsanitize=${_san} -fno-omit-frame-pointer -fno-sanitize-recover=all)
  add_link_options(-fsanitize=${_san})
endif()
