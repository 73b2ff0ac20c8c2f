adaptcore_level(avx2 ARCH x86_64 BELOW generic
  SOURCES config.cpp sgemm_avx2.cpp
  FLAGS -mavx2 -mfma)
