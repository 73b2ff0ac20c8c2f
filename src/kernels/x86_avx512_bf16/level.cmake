adaptcore_level(avx512_bf16 ARCH x86_64 BELOW avx512_vnni
  SOURCES config.cpp bf16_avx512.cpp
  FLAGS -mavx512f -mavx512bw -mavx512vl -mavx512bf16 -mfma -mavx2)
