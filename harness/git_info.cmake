# Writes git_info.cpp (commit + dirty flag) at build time; touches it only when it changes.
execute_process(COMMAND git -C "${SRC}" rev-parse HEAD OUTPUT_VARIABLE commit OUTPUT_STRIP_TRAILING_WHITESPACE
                RESULT_VARIABLE rc ERROR_QUIET)
if(rc EQUAL 0)
  execute_process(COMMAND git -C "${SRC}" status --porcelain --untracked-files=no OUTPUT_VARIABLE status
                  ERROR_QUIET)
  if(status)
    set(dirty true)
  else()
    set(dirty false)
  endif()
elseif(EXISTS "${SRC}/.source-commit")
  # A copy of the tree without .git (e.g. shipped to a GPU machine): `make source-commit`
  # wrote "<commit> <true|false>" before it was copied.
  file(READ "${SRC}/.source-commit" recorded)
  string(REGEX MATCH "^([0-9a-f]+) (true|false)" _ "${recorded}")
  set(commit "${CMAKE_MATCH_1}")
  set(dirty "${CMAKE_MATCH_2}")
else()
  set(commit "unknown")
  set(dirty true)
endif()
set(text "// Generated at build time by harness/git_info.cmake.\n#include \"lb/harness/build_info.hpp\"\nnamespace lb::harness {\nconst char* git_commit() { return \"${commit}\"; }\nbool git_dirty() { return ${dirty}; }\n}  // namespace lb::harness\n")
if(EXISTS "${OUT}")
  file(READ "${OUT}" old)
endif()
if(NOT "${old}" STREQUAL "${text}")
  file(WRITE "${OUT}" "${text}")
endif()
