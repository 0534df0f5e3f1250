// simdjson_baseline.cpp - simdjson as a baseline for ap-bench (simdjson is
// C++; this is the one C++ file of the benchmarks): its DOM parse, and its
// serialization of a parsed DOM (simdjson::minify), the write baseline.
//
// Each message is parsed with one reused parser, as a server would keep it;
// simdjson copies each message into its padded buffer, as it must for input
// it does not own.
#include <cstddef>
#include <new>
#include <string>
#include <vector>

#include <simdjson.h>

extern "C" {
size_t bench_simdjson_parse(const char *data, const size_t *start, size_t count);
void *bench_simdjson_docs_new(const char *data, const size_t *start, size_t first, size_t count);
size_t bench_simdjson_minify(void *docs, size_t i);
size_t bench_simdjson_builder(void *docs, size_t i);
void bench_simdjson_docs_free(void *docs);
}

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

// A batch of messages parsed once, each into its own document, so that the
// timed serialization reads DOMs that stay alive together, as our encoder
// reads decoded values that stay alive together.
namespace {
struct docs {
    std::vector<simdjson::dom::document> doc;
    std::vector<simdjson::dom::element> root;
    simdjson::internal::string_builder<> builder; // reused: its buffer stays warm
};
} // namespace

extern "C" void *bench_simdjson_docs_new(const char *data, const size_t *start, size_t first, size_t count)
{
    docs *d = new (std::nothrow) docs;
    if (d == nullptr)
        return nullptr;
    simdjson::dom::parser parser;
    d->doc.resize(count);
    d->root.resize(count);
    for (size_t i = 0; i < count; i++) {
        size_t s = start[first + i], len = start[first + i + 1] - s - 1;
        if (parser.parse_into_document(d->doc[i], data + s, len, true).get(d->root[i]) != simdjson::SUCCESS) {
            delete d;
            return nullptr;
        }
    }
    return d;
}

// simdjson::minify of message i: a new std::string each call, as the API gives it.
extern "C" size_t bench_simdjson_minify(void *docs_, size_t i)
{
    docs *d = static_cast<docs *>(docs_);
    std::string s = simdjson::minify(d->root[i]);
    return s.size();
}

// The same serializer without minify's copies: one string_builder reused
// for every message (an internal simdjson API; the fastest way it writes).
extern "C" size_t bench_simdjson_builder(void *docs_, size_t i)
{
    docs *d = static_cast<docs *>(docs_);
    d->builder.clear();
    d->builder.append(d->root[i]);
    return d->builder.str().size();
}

extern "C" void bench_simdjson_docs_free(void *docs_)
{
    delete static_cast<docs *>(docs_);
}
