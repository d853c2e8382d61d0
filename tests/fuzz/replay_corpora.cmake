# fuzz_short: runs every replay program over its seed corpus.
# -DREPLAY="program=corpus_dir;...": stops at the first that fails.
foreach(pair ${REPLAY})
  string(REPLACE "=" ";" parts "${pair}")
  list(GET parts 0 program)
  list(GET parts 1 corpus)
  execute_process(COMMAND ${program} ${corpus} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${program} ${corpus} failed (${rc}):\n${err}")
  endif()
  string(STRIP "${out}" out)
  get_filename_component(name ${program} NAME)
  message(STATUS "${name}: ${out}")
endforeach()
