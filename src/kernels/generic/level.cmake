adaptcore_level(generic
  SOURCES config.cpp sgemm_generic.cpp lowp_generic.cpp wq_generic.cpp)
