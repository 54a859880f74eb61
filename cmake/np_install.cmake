# np_install.cmake - netproof installed like a Debian tool (issue 21).
# Included from the top-level CMakeLists.txt after every component.
#
#   cmake --install BUILD [--prefix P]   (DESTDIR honoured; make install)
#     bin/                               the four programs
#     share/netproof/plans/              the shipped suite plans
#     share/netproof/schemas/            the JSON Schemas (also compiled in)
#     share/man/man1/                    one page per program and command
#     share/bash-completion/completions/ one file per program
#     share/doc/netproof/                README.md, docs/, copyright, changelog
#   cpack -G DEB (make package)          the same tree under /usr as a .deb
#
# The man pages and the completion are generated at build time (target
# np_docs, in ALL) by np_docgen from the command and option tables the
# programs run on (man/README.md).  The plan lookup of `netproof-bench
# matrix NAME` gets the installed plans folder compiled in, and a build
# tree gets a mark beside its netproof-bench (runner/np_matrix_find.h).
include(GNUInstallDirs)

set(NP_INSTALL_PROGRAMS netproof-bench netproof-report netproof-archive
    netproof-validate)
install(TARGETS ${NP_INSTALL_PROGRAMS} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

file(GLOB NP_INSTALL_PLANS CONFIGURE_DEPENDS
     ${PROJECT_SOURCE_DIR}/bench/plans/*.json)
file(GLOB NP_INSTALL_SCHEMAS CONFIGURE_DEPENDS
     ${PROJECT_SOURCE_DIR}/schema/*.schema.json)
install(FILES ${NP_INSTALL_PLANS}
        DESTINATION ${CMAKE_INSTALL_DATADIR}/netproof/plans)
install(FILES ${NP_INSTALL_SCHEMAS}
        DESTINATION ${CMAKE_INSTALL_DATADIR}/netproof/schemas)

# ---- where `netproof-bench matrix NAME` finds installed plans ----
# Beside the program first (relocated, staged or unpacked installs find
# their own), then the configured install path.
set(NP_PLANS_DIR ${CMAKE_INSTALL_FULL_DATADIR}/netproof/plans)
file(RELATIVE_PATH NP_PLANS_REL ${CMAKE_INSTALL_FULL_BINDIR} ${NP_PLANS_DIR})
set_source_files_properties(
  ${PROJECT_SOURCE_DIR}/runner/np_matrix_find.c
  DIRECTORY ${PROJECT_SOURCE_DIR}/runner
  PROPERTIES COMPILE_DEFINITIONS
  "NP_PLANS_REL=\"${NP_PLANS_REL}\";NP_PLANS_DIR=\"${NP_PLANS_DIR}\"")
# The build-tree mark: the source tree, beside the built netproof-bench
# (never installed), so a build reads its own bench/plans and no build
# path is compiled into a binary.
file(GENERATE OUTPUT $<TARGET_FILE_DIR:netproof-bench>/netproof-source-dir
     CONTENT "${PROJECT_SOURCE_DIR}\n")

# ---- man pages and bash completion from the tables ----
find_program(NP_SCDOC scdoc REQUIRED)
find_program(NP_GZIP gzip REQUIRED)
# np_docgen: tools/docgen (tools/CMakeLists.txt)
file(GLOB NP_DOC_SOURCES CONFIGURE_DEPENDS
     ${PROJECT_SOURCE_DIR}/man/*.scd ${PROJECT_SOURCE_DIR}/man/*.scd.in
     ${PROJECT_SOURCE_DIR}/man/include/*.scd
     ${PROJECT_SOURCE_DIR}/completions/*.bash.in)
set(NP_DOCS_OUT ${PROJECT_BINARY_DIR}/man)
add_custom_command(
  OUTPUT ${NP_DOCS_OUT}/stamp
  COMMAND ${CMAKE_COMMAND} -DDOCGEN=$<TARGET_FILE:np_docgen>
          -DSCDOC=${NP_SCDOC} -DGZIP=${NP_GZIP} -DSRC=${PROJECT_SOURCE_DIR}
          -DOUT=${NP_DOCS_OUT} -DPLANS_REL=${NP_PLANS_REL}
          -DPLANS_DIR=${NP_PLANS_DIR}
          -P ${PROJECT_SOURCE_DIR}/cmake/np_docs_gen.cmake
  DEPENDS np_docgen ${NP_DOC_SOURCES}
          ${PROJECT_SOURCE_DIR}/cmake/np_docs_gen.cmake
          ${PROJECT_SOURCE_DIR}/packaging/debian/changelog
  COMMENT "Generating man pages and bash completion from the option tables"
  VERBATIM)
add_custom_target(np_docs ALL DEPENDS ${NP_DOCS_OUT}/stamp)

install(DIRECTORY ${NP_DOCS_OUT}/man1/
        DESTINATION ${CMAKE_INSTALL_MANDIR}/man1
        FILES_MATCHING PATTERN "*.1.gz")
install(DIRECTORY ${NP_DOCS_OUT}/completions/
        DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions)

# ---- documentation ----
# README.md and docs/ side by side, so README's links work; the generated
# performance pages (results-specific, 2.7 MB of charts) stay in the source.
install(FILES ${PROJECT_SOURCE_DIR}/README.md
        ${PROJECT_SOURCE_DIR}/packaging/debian/copyright
        ${NP_DOCS_OUT}/changelog.gz
        DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/
        DESTINATION ${CMAKE_INSTALL_DOCDIR}/docs
        PATTERN performance EXCLUDE)

# ---- the Debian package ----
# The version and the maintainer are read from packaging/debian/changelog,
# whose first entry must be this version.
file(STRINGS ${PROJECT_SOURCE_DIR}/packaging/debian/changelog NP_DEB_HEAD
     LIMIT_COUNT 1)
file(STRINGS ${PROJECT_SOURCE_DIR}/packaging/debian/changelog NP_DEB_TRAILER
     REGEX "^ -- " LIMIT_COUNT 1)
if(NOT NP_DEB_HEAD MATCHES "^netproof \\(([^)]+)\\) " OR
   NOT CMAKE_MATCH_1 STREQUAL PROJECT_VERSION)
  message(FATAL_ERROR "packaging/debian/changelog: the first entry is "
          "'${NP_DEB_HEAD}', not version ${PROJECT_VERSION}: add an entry "
          "for this release")
endif()
if(NOT NP_DEB_TRAILER MATCHES "^ -- ([^<>]+ <[^<>]+>)  ")
  message(FATAL_ERROR "packaging/debian/changelog: no ' -- NAME <EMAIL>  "
          "DATE' line")
endif()
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${CMAKE_MATCH_1}")
set(CPACK_PACKAGE_CONTACT "${CMAKE_MATCH_1}")

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME netproof)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "UDP and reliable-UDP benchmarks that write checkable evidence")
set(CPACK_PACKAGE_DESCRIPTION
    "netproof turns loopback UDP and reliable-UDP benchmarks into evidence
anyone can check: every run writes one JSON record, validated against its
schema, with the SHA-256 of the sources and of the binary, the machine, the
full configuration, every counter and the kernel's counters from before and
after.
netproof-bench runs the UDP echo benchmark, the ARQ and Reed-Solomon FEC
benchmark through an emulating relay, any other benchmark program, and
whole suites; netproof-report draws SVG charts and Markdown tables and
self-checks a result set; netproof-archive packs verifiable BagIt bundles;
netproof-validate is a JSON Schema draft 2020-12 validator.")
set(CPACK_DEBIAN_PACKAGE_SECTION net)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "iperf3, sockperf")
# the package ships a completion; bash-completion is what loads it
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "bash-completion")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
set(CPACK_SOURCE_GENERATOR "")
include(CPack)
