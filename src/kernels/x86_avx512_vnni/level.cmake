adaptcore_level(avx512_vnni ARCH x86_64 BELOW avx512
  SOURCES config.cpp int8_vnni.cpp wq_vnni.cpp
  FLAGS -mavx512f -mavx512bw -mavx512vl -mavx512vnni -mfma -mavx2)
