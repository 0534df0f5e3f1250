# cddlgen validate end to end: reports pinned in expected/, exit statuses.
# Run with -DCDDLGEN=... -DSRC=<repo> [-DSHARED=<CDDLGEN_SHARED_DIR>] -DEXPECTED=<dir>;
# without SHARED the cases on the recorded trace are not run.
function(expect name want_rc)
  execute_process(COMMAND ${CDDLGEN} validate ${ARGN}
                  WORKING_DIRECTORY ${SRC} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL want_rc)
    message(FATAL_ERROR "${name}: exit ${rc}, expected ${want_rc}\n${out}${err}")
  endif()
  if(EXISTS ${EXPECTED}/${name}.out)
    file(READ ${EXPECTED}/${name}.out want)
    if(NOT out STREQUAL want)
      message(FATAL_ERROR "${name}: output differs\n--- expected\n${want}--- got\n${out}")
    endif()
  endif()
endfunction()

# expect_err(NAME RC REGEX ARGS...): the exit status, and stderr matching REGEX.
function(expect_err name want_rc regex)
  execute_process(COMMAND ${CDDLGEN} validate ${ARGN}
                  WORKING_DIRECTORY ${SRC} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL want_rc)
    message(FATAL_ERROR "${name}: exit ${rc}, expected ${want_rc}\n${out}${err}")
  endif()
  if(NOT err MATCHES "${regex}")
    message(FATAL_ERROR "${name}: stderr does not match '${regex}':\n${err}")
  endif()
endfunction()

if(DEFINED SHARED)
  # Paths as a person types them from the repository root, so reports are stable.
  file(RELATIVE_PATH SHARED ${SRC} ${SHARED})
  # The real trace: exactly the schema breaks (snake_case members).
  expect(trace-jsonl 1 cddl/protocol.cddl --type Message --case snake ${SHARED}/traces/react-agent-tool-result-events.jsonl)
  expect(trace-sse-strict 1 cddl/protocol.cddl --type Message --case snake --strict ${SHARED}/traces/react-agent-tool-result-events.sse)
endif()
# Valid documents, one per file, and the JSON report.
expect(valid-commands 0 cddl/protocol.cddl --type Command tests/corpus/protocol/valid/command-run.start.json
       tests/corpus/protocol/valid/command-state.get.json)
expect(json-report 1 cddl/protocol.cddl --type Message --strict --format json tests/corpus/protocol/invalid/literal-delta-type.json)
# Usage and I/O errors.
expect(no-type 2 cddl/protocol.cddl tests/corpus/protocol/valid/command-run.start.json)
expect(unknown-type 2 cddl/protocol.cddl --type NoSuchRule tests/corpus/protocol/valid/command-run.start.json)
expect(missing-file 2 cddl/protocol.cddl --type Message does-not-exist.jsonl)
# Any schema, not only ours: an RFC 8610 example.
file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/person.json "{\"name\": \"A\", \"age\": 300}\n{\"name\": \"B\", \"age\": 30}\n")
file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/person.cddl "person = { name: tstr, age: 0..120 }\n")
expect(other-schema 1 ${CMAKE_CURRENT_BINARY_DIR}/person.cddl --type person ${CMAKE_CURRENT_BINARY_DIR}/person.json)
# Generic instances with arguments written out are types of their own: a
# list of texts is not the text literal of another instance.
file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/wrapped.cddl
     "Both = { literal: Wrapped<\"x; y\">, texts: Wrapped<[* text]>, ? uints: Wrapped<[* uint]> }\nWrapped<T> = { value: T }\n")
file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/wrapped.json
     "{\"literal\": {\"value\": \"x; y\"}, \"texts\": {\"value\": [\"a\", \"b\"]}}\n")
file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/wrapped-bad.json
     "{\"literal\": {\"value\": \"x; y\"}, \"texts\": {\"value\": []}, \"uints\": {\"value\": [\"a\"]}}\n")
expect(generic-written-args 0 ${CMAKE_CURRENT_BINARY_DIR}/wrapped.cddl --type Both ${CMAKE_CURRENT_BINARY_DIR}/wrapped.json)
expect(generic-written-args-bad 1 ${CMAKE_CURRENT_BINARY_DIR}/wrapped.cddl --type Both ${CMAKE_CURRENT_BINARY_DIR}/wrapped-bad.json)
# A recursive generic rule instantiated with a written-out argument meets
# its own instance again instead of nesting new ones.
file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/tree.cddl "Root = Tree<[* int]>\nTree<T> = [* Tree<T>] / T\n")
file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/tree.json "[[[1, 2]], [3], []]\n")
expect(generic-recursive-written-arg 0 ${CMAKE_CURRENT_BINARY_DIR}/tree.cddl --type Root ${CMAKE_CURRENT_BINARY_DIR}/tree.json)

# A gate that fails closed: a file the command did not understand is an
# error naming the file (and line), never "0 valid, 0 invalid" with exit 0.
set(gate ${CMAKE_CURRENT_BINARY_DIR}/gate)
file(MAKE_DIRECTORY ${gate})
file(WRITE ${gate}/empty.jsonl "")
file(WRITE ${gate}/prose.txt "These are not JSON lines,\nnor SSE fields.\n")
file(WRITE ${gate}/one.jsonl "{\"type\":\"event\",\"eventId\":\"1\",\"seq\":1,\"method\":\"lifecycle\",\"params\":{\"namespace\":[],\"timestamp\":1,\"data\":{\"event\":\"running\"}}}\n")
expect_err(gate-empty 1 "^cddlgen: [^\n]*/empty.jsonl: error: no records" cddl/protocol.cddl --type Message ${gate}/empty.jsonl)
expect_err(gate-empty-json-report 1 "empty.jsonl: error: no records" cddl/protocol.cddl --type Message --format json ${gate}/empty.jsonl)
expect_err(gate-not-json 1 "^cddlgen: [^\n]*/prose.txt:1: error: not JSONL or SSE: no line is a JSON text"
           cddl/protocol.cddl --type Message ${gate}/prose.txt)
expect_err(gate-random 1 "^cddlgen: tests/apstream/data/random.bin:3: error: not JSONL or SSE: a NUL byte"
           cddl/protocol.cddl --type Message tests/apstream/data/random.bin)
expect_err(gate-random-sse 1 "^cddlgen: tests/apstream/data/random.bin:1: error: not SSE: "
           cddl/protocol.cddl --type Message --input sse tests/apstream/data/random.bin)
expect_err(gate-jsonl-as-sse 1 "^cddlgen: [^\n]*/one.jsonl:1: error: not SSE: "
           cddl/protocol.cddl --type Message --input sse ${gate}/one.jsonl)
expect_err(gate-cut 0 "^cddlgen: tests/apstream/data/cut.sse:5: warning: the stream ends inside the event"
           cddl/protocol.cddl --type Message tests/apstream/data/cut.sse)
expect_err(gate-cut-strict 1 "^cddlgen: tests/apstream/data/cut.sse:5: error: the stream ends inside the event"
           cddl/protocol.cddl --type Message --strict tests/apstream/data/cut.sse)
# One good file does not carry an empty one.
expect_err(gate-one-of-two-empty 1 "empty.jsonl: error: no records"
           cddl/protocol.cddl --type Message ${gate}/one.jsonl ${gate}/empty.jsonl)
expect(gate-one 0 cddl/protocol.cddl --type Message ${gate}/one.jsonl)
