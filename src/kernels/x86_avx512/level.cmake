adaptcore_level(avx512 ARCH x86_64 BELOW avx2
  SOURCES config.cpp sgemm_avx512.cpp
  FLAGS -mavx512f -mavx512vl -mavx512dq -mavx512bw -mfma -mavx2)
