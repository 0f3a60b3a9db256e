# Writes git_info.cpp (commit + dirty flag) at build time; touches it only when it changes.
# Which source answers: git, unless `make source-commit` recorded a commit in .source-commit
# that this repository does not have at or behind HEAD. A copy of the tree shipped to a GPU
# machine carries a fresh .source-commit and may find an unrelated or stale .git there
# (seen: a leftover checkout from an earlier session recorded its old commit in a paper
# run's context); locally, a .source-commit left from before later commits is behind HEAD,
# so git wins. (File times do not work: `git status` refreshes the index.)
set(recorded_commit "")
set(recorded_dirty "")
if(EXISTS "${SRC}/.source-commit")
  file(READ "${SRC}/.source-commit" recorded)
  if(recorded MATCHES "^([0-9a-f]+) (true|false)")
    set(recorded_commit "${CMAKE_MATCH_1}")
    set(recorded_dirty "${CMAKE_MATCH_2}")
  endif()
endif()
execute_process(COMMAND git -C "${SRC}" rev-parse HEAD OUTPUT_VARIABLE commit OUTPUT_STRIP_TRAILING_WHITESPACE
                RESULT_VARIABLE rc ERROR_QUIET)
if(rc EQUAL 0 AND recorded_commit AND NOT recorded_commit STREQUAL commit)
  execute_process(COMMAND git -C "${SRC}" merge-base --is-ancestor "${recorded_commit}" HEAD
                  RESULT_VARIABLE behind ERROR_QUIET OUTPUT_QUIET)
  if(NOT behind EQUAL 0)
    set(rc 1)  # the shipped record describes this tree, not the repository found here
  endif()
endif()
if(rc EQUAL 0)
  execute_process(COMMAND git -C "${SRC}" status --porcelain --untracked-files=no OUTPUT_VARIABLE status
                  ERROR_QUIET)
  if(status)
    set(dirty true)
  else()
    set(dirty false)
  endif()
elseif(recorded_commit)
  # "<commit> <true|false>", written by `make source-commit` before the tree was copied.
  set(commit "${recorded_commit}")
  set(dirty "${recorded_dirty}")
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
