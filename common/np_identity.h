/*
 * np_identity.h - who produced a record: version, SHA-256 of the sources
 * (computed by the build, see scripts/source-hash.sh for the recipe) and of
 * the running executable, build flags and run-time library versions.
 */
#ifndef NP_IDENTITY_H
#define NP_IDENTITY_H

#include <stdio.h>

#include <cjson/cJSON.h>

#include "np_err.h"
#include "np_sha256.h"

/* NP_VERSION ("0.2.0") comes from the top-level CMakeLists.txt project()
 * version, the one place it is written (a PUBLIC definition of np_common). */

/* SHA-256 of the project's sources, fixed at build time. */
const char *np_identity_source_sha256(void);

/* SHA-256 of the measuring sources only (common/ schema/ model/ bench/
 * runner/ and the CMake files: scripts/source-hash.sh --measuring), fixed
 * at build time: records of two trees that differ in reports, archive,
 * docs or tests only carry the same value. */
const char *np_identity_measuring_sha256(void);

/* SHA-256 of /proc/self/exe. */
int np_identity_binary_sha256(char hex[NP_SHA256_HEX_SIZE]);

/* The record's `tool` object: name, version, source_sha256,
 * measuring_source_sha256, binary_sha256,
 * build {compiler, compiler_version, build_type, c_flags}, libraries
 * {libuv (when the program loaded it), openssl, cjson}.  NULL on failure. */
cJSON *np_identity_tool_json(const char *program);

/* What every program's --version prints. */
void np_identity_print_version(FILE *fp, const char *program);

#endif /* NP_IDENTITY_H */
