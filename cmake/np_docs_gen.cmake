# np_docs_gen.cmake - run at build time (cmake -P) by the np_docs target
# (cmake/np_install.cmake): expand the man page templates with np_docgen,
# render them with scdoc, gzip them (-9n: no name, no timestamp, as
# Debian's dh_compress does), write the bash completion, and gzip the
# Debian changelog.  Everything is written into fresh folders, so a
# removed command leaves no stale page behind.
#
# -D variables: DOCGEN SCDOC GZIP SRC OUT PLANS_REL PLANS_DIR
foreach(_np_v DOCGEN SCDOC GZIP SRC OUT PLANS_REL PLANS_DIR)
  if(NOT DEFINED ${_np_v})
    message(FATAL_ERROR "np_docs_gen.cmake: -D${_np_v}=... is required")
  endif()
endforeach()

file(REMOVE_RECURSE ${OUT}/scd ${OUT}/man1 ${OUT}/completions)
file(MAKE_DIRECTORY ${OUT}/scd ${OUT}/man1 ${OUT}/completions)

execute_process(COMMAND ${DOCGEN} man ${SRC}/man ${OUT}/scd
                RESULT_VARIABLE _np_rc)
if(NOT _np_rc EQUAL 0)
  message(FATAL_ERROR "np_docgen man: failed (${_np_rc})")
endif()
execute_process(COMMAND ${DOCGEN} bash ${SRC}/man
                        ${SRC}/completions/netproof.bash.in
                        ${PLANS_REL} ${PLANS_DIR} ${OUT}/completions
                RESULT_VARIABLE _np_rc)
if(NOT _np_rc EQUAL 0)
  message(FATAL_ERROR "np_docgen bash: failed (${_np_rc})")
endif()

file(GLOB _np_pages ${OUT}/scd/*.1.scd)
foreach(_np_f IN LISTS _np_pages)
  get_filename_component(_np_page ${_np_f} NAME)
  string(REGEX REPLACE "\\.scd$" "" _np_page "${_np_page}")
  execute_process(COMMAND ${SCDOC} INPUT_FILE ${_np_f}
                  OUTPUT_FILE ${OUT}/man1/${_np_page}
                  ERROR_VARIABLE _np_err RESULT_VARIABLE _np_rc)
  if(NOT _np_rc EQUAL 0)
    message(FATAL_ERROR "${_np_f}: scdoc: ${_np_err}")
  endif()
  execute_process(COMMAND ${GZIP} -9nc ${OUT}/man1/${_np_page}
                  OUTPUT_FILE ${OUT}/man1/${_np_page}.gz
                  RESULT_VARIABLE _np_rc)
  if(NOT _np_rc EQUAL 0)
    message(FATAL_ERROR "${_np_page}: gzip failed")
  endif()
endforeach()

execute_process(COMMAND ${GZIP} -9nc ${SRC}/packaging/debian/changelog
                OUTPUT_FILE ${OUT}/changelog.gz RESULT_VARIABLE _np_rc)
if(NOT _np_rc EQUAL 0)
  message(FATAL_ERROR "changelog: gzip failed")
endif()
file(TOUCH ${OUT}/stamp)
