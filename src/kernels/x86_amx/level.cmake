# Built where the compiler has the AMX intrinsics (GCC 11, Clang 12 and later).
include(CheckCXXCompilerFlag)
check_cxx_compiler_flag("-mamx-tile -mamx-bf16 -mamx-int8" ADAPTCORE_CXX_HAS_AMX)
if(ADAPTCORE_CXX_HAS_AMX)
  adaptcore_level(amx ARCH x86_64 BELOW avx512_bf16
    SOURCES config.cpp amx_kernels.cpp
    FLAGS -mavx512f -mavx512bw -mavx512vl -mavx512bf16 -mavx512vnni -mfma -mavx2
          -mamx-tile -mamx-bf16 -mamx-int8)
endif()
