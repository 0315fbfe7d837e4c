# Sanitizer and fuzzing builds (README, "Sanitizers and fuzzing"). Included before any target.
#
#   PSTWIN_SANITIZE=address,undefined  every C++ target under ASan + UBSan (tests/sanitizers/run.sh asan)
#   PSTWIN_SANITIZE=thread             every C++ target under TSan (tests/sanitizers/run.sh tsan)
#   PSTWIN_FUZZ=ON                     the libFuzzer targets of fuzz/ (clang only), with address,undefined
#                                      and libFuzzer's coverage on every target they link (bench/fuzz.sh)
#
# Flags go to C++ only: nvcc takes none of them (and the CUDA runtime is not instrumented).
set(PSTWIN_SANITIZE "" CACHE STRING "Sanitizers for every C++ target, as -fsanitize= takes them (e.g. address,undefined or thread)")
option(PSTWIN_FUZZ "Build the libFuzzer targets in fuzz/ (needs clang)" OFF)

if(PSTWIN_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "PSTWIN_FUZZ needs clang's libFuzzer: configure with CXX=clang++-14")
  endif()
  if(NOT PSTWIN_SANITIZE)
    set(PSTWIN_SANITIZE address,undefined)
  endif()
  # Coverage for libFuzzer in every library, so it sees the paths inside the readers it drives.
  add_compile_options($<$<COMPILE_LANGUAGE:CXX>:-fsanitize=fuzzer-no-link>)
endif()

if(PSTWIN_SANITIZE)
  # Frame pointers and line tables make the reports' stacks readable (file and line of every
  # frame). Line tables only, not full debug information (which the build type's -g asks for and
  # this later flag overrides): the reports need no more, and full debug information made the
  # sanitizer builds the longest stages of CI.
  if(CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    set(pstwin_debug_lines -gline-tables-only)
  else()
    set(pstwin_debug_lines -g1)
  endif()
  add_compile_options($<$<COMPILE_LANGUAGE:CXX>:-fsanitize=${PSTWIN_SANITIZE}>
                      $<$<COMPILE_LANGUAGE:CXX>:-fno-omit-frame-pointer>
                      $<$<COMPILE_LANGUAGE:CXX>:${pstwin_debug_lines}>)
  if(PSTWIN_SANITIZE MATCHES "undefined")
    # Undefined behaviour fails the run (a test or a fuzz input), rather than printing and going on.
    add_compile_options($<$<COMPILE_LANGUAGE:CXX>:-fno-sanitize-recover=undefined>)
  endif()
  add_link_options(-fsanitize=${PSTWIN_SANITIZE})
endif()
