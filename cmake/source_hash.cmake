# Source identity.  At every build, cmake/source_hash_gen.cmake computes one
# SHA-256 over the project's sources and writes np_source_hash.h (only when
# the value changed, so nothing rebuilds needlessly).  The recipe is in
# scripts/source-hash.sh, which recomputes the same value with coreutils.
set(NP_GENERATED_DIR ${CMAKE_BINARY_DIR}/generated)
file(MAKE_DIRECTORY ${NP_GENERATED_DIR})
add_custom_target(np_source_hash ALL
  COMMAND ${CMAKE_COMMAND} -DROOT=${CMAKE_SOURCE_DIR}
          -DOUT=${NP_GENERATED_DIR}/np_source_hash.h
          -P ${CMAKE_SOURCE_DIR}/cmake/source_hash_gen.cmake
  BYPRODUCTS ${NP_GENERATED_DIR}/np_source_hash.h
  COMMENT "Hashing sources"
  VERBATIM)
