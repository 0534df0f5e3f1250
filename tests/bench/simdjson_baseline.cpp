// simdjson_baseline.cpp - simdjson's DOM parse as a further baseline for
// ap-bench (simdjson is C++; this is the one C++ file of the benchmarks).
// Each message is parsed with one reused parser, as a server would keep it;
// simdjson copies each message into its padded buffer, as it must for input
// it does not own.
#include <cstddef>

#include <simdjson.h>

extern "C" size_t bench_simdjson_parse(const char *data, const size_t *start, size_t count);

extern "C" size_t bench_simdjson_parse(const char *data, const size_t *start, size_t count)
{
    static simdjson::dom::parser parser; // reused across calls: its buffers stay warm
    size_t failed = 0;
    for (size_t i = 0; i < count; i++) {
        size_t len = start[i + 1] - start[i] - 1;
        simdjson::dom::element doc;
        if (parser.parse(data + start[i], len, true).get(doc) != simdjson::SUCCESS)
            failed++;
    }
    return failed;
}
